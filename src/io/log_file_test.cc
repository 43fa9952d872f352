#include "io/log_file.h"

#include <gtest/gtest.h>

#include <filesystem>

#include <arrow/builder.h>

#include "storage/memory_storage.h"
#include "testing/hudi_tables.h"
#include "testing/status_test_util.h"

namespace lakeshore {
namespace {

/// Meta columns, then `id` (int64, with a null) and `s` (utf8).
std::shared_ptr<arrow::Table> Records() {
  arrow::StringBuilder commit, key, s;
  arrow::Int64Builder id;
  for (int64_t i = 0; i < 5; ++i) {
    EXPECT_TRUE(commit.Append("20250101000000000").ok());
    EXPECT_TRUE(key.Append("k" + std::to_string(i)).ok());
    EXPECT_TRUE((i == 2 ? id.AppendNull() : id.Append(10 + i * 3)).ok());
    EXPECT_TRUE(s.Append(std::string(1, static_cast<char>('e' - i))).ok());
  }
  std::vector<std::shared_ptr<arrow::Array>> columns(4);
  EXPECT_TRUE(commit.Finish(&columns[0]).ok());
  EXPECT_TRUE(key.Finish(&columns[1]).ok());
  EXPECT_TRUE(id.Finish(&columns[2]).ok());
  EXPECT_TRUE(s.Finish(&columns[3]).ok());
  auto schema = arrow::schema({arrow::field("_hoodie_commit_time", arrow::utf8()),
                               arrow::field("_hoodie_record_key", arrow::utf8()), arrow::field("id", arrow::int64()),
                               arrow::field("s", arrow::utf8())});
  return arrow::Table::Make(schema, columns);
}

const format::FileColumnStats* Find(const std::vector<format::FileColumnStats>& stats, const std::string& column) {
  for (const auto& c : stats) {
    if (c.column == column) return &c;
  }
  return nullptr;
}

std::string Text(const std::shared_ptr<arrow::Scalar>& s) { return s ? s->ToString() : "(none)"; }

std::shared_ptr<Storage> NewStorage() {
  static int counter = 0;
  auto storage = MemoryStorage::Make("log_file_test_" + std::to_string(counter++), "", Clock::System());
  EXPECT_TRUE(storage.ok());
  return storage.ok() ? std::shared_ptr<Storage>(std::move(*storage)) : nullptr;
}

TEST(LogFileColumnStats, AreTheDataBlocksOwnAndTheWriteAndAReadAgree) {
  auto storage = NewStorage();
  ASSERT_NE(storage, nullptr);
  LogFileContent content;
  content.instant_time = "20250101000000001";
  content.records = Records();
  content.deletes = {LogDelete{"gone", "", nullptr}};
  const std::string path = ".f1_20250101000000000.log.1_0-1-0";
  ASSERT_OK_AND_ASSIGN(auto written, WriteLogFile(*storage, path, content, ParquetWriteSettings{}));
  const auto* id = Find(written.column_stats, "id");
  ASSERT_NE(id, nullptr);
  EXPECT_EQ(Text(id->value.min), "10");
  EXPECT_EQ(Text(id->value.max), "22");
  EXPECT_EQ(id->value.null_count, 1);
  EXPECT_EQ(id->value.value_count, 5);
  const auto* s = Find(written.column_stats, "s");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(Text(s->value.min), "a");
  EXPECT_EQ(Text(s->value.max), "e");
  // A read of the file gives what the write gave.
  ASSERT_OK_AND_ASSIGN(auto read, LogFileColumnStats(*storage, path));
  ASSERT_EQ(read.size(), written.column_stats.size());
  for (size_t i = 0; i < read.size(); ++i) {
    EXPECT_EQ(read[i].column, written.column_stats[i].column);
    EXPECT_EQ(Text(read[i].value.min), Text(written.column_stats[i].value.min));
    EXPECT_EQ(Text(read[i].value.max), Text(written.column_stats[i].value.max));
    EXPECT_EQ(read[i].value.null_count, written.column_stats[i].value.null_count);
    EXPECT_EQ(read[i].value.value_count, written.column_stats[i].value.value_count);
    EXPECT_EQ(read[i].value.total_size, written.column_stats[i].value.total_size);
  }
}

TEST(LogFileColumnStats, AreAbsentForDeletesOnlyAndForFilesTheyCannotDescribe) {
  auto storage = NewStorage();
  ASSERT_NE(storage, nullptr);
  LogFileContent deletes;
  deletes.instant_time = "20250101000000001";
  deletes.deletes = {LogDelete{"gone", "", nullptr}};
  const std::string path = ".f1_20250101000000000.log.1_0-1-0";
  ASSERT_OK_AND_ASSIGN(auto written, WriteLogFile(*storage, path, deletes, ParquetWriteSettings{}));
  EXPECT_TRUE(written.column_stats.empty());
  ASSERT_OK_AND_ASSIGN(auto read, LogFileColumnStats(*storage, path));
  EXPECT_TRUE(read.empty());
  // Not a log file: an error naming it.
  ASSERT_OK(storage->WriteString("notes.txt", "hello, not a log file"));
  auto bad = LogFileColumnStats(*storage, "notes.txt");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("notes.txt"), std::string::npos) << bad.status();
}

TEST(LogFileColumnStats, OfSparksLogFilesComeFromTheirParquetAndAvroDataBlocks) {
  struct Case {
    const char* folder;
    bool has_stats;
  };
  bool any = false;
  for (const Case& c : {Case{"valid_log_parquet_data", true}, Case{"valid_log_avro_data", true},
                        Case{"valid_log_delete", false}, Case{"valid_log_rollback", false}}) {
    const std::string dir = testing::HudiTablesPath(std::string("unit/log_files/") + c.folder);
    if (dir.empty()) continue;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      if (name.rfind(".", 0) != 0 || name.find(".log.") == std::string::npos) continue;
      any = true;
      auto storage = NewStorage();
      ASSERT_NE(storage, nullptr);
      ASSERT_OK(storage->WriteString(name, testing::ReadHudiTablesFile(std::string("unit/log_files/") + c.folder + "/" + name)));
      ASSERT_OK_AND_ASSIGN(auto stats, LogFileColumnStats(*storage, name));
      EXPECT_EQ(!stats.empty(), c.has_stats) << c.folder;
      if (c.has_stats) {
        const auto* key = Find(stats, "_hoodie_record_key");
        ASSERT_NE(key, nullptr) << c.folder;
        EXPECT_GT(key->value.value_count, 0);
        ASSERT_NE(key->value.min, nullptr);
        // The bounds are those of the records the file holds.
        ASSERT_OK_AND_ASSIGN(auto blocks, ReadLogFile(*storage, name));
        std::string low, high;
        int64_t rows = 0;
        for (const auto& block : blocks) {
          if (block.records == nullptr) continue;
          auto keys = block.records->GetColumnByName("_hoodie_record_key");
          ASSERT_NE(keys, nullptr);
          for (const auto& chunk : keys->chunks()) {
            const auto& strings = static_cast<const arrow::StringArray&>(*chunk);
            for (int64_t i = 0; i < strings.length(); ++i, ++rows) {
              const std::string k(strings.GetView(i));
              if (low.empty() || k < low) low = k;
              if (high.empty() || k > high) high = k;
            }
          }
        }
        EXPECT_EQ(key->value.value_count, rows) << c.folder;
        EXPECT_EQ(Text(key->value.min), low) << c.folder;
        EXPECT_EQ(Text(key->value.max), high) << c.folder;
      }
    }
  }
  if (!any) GTEST_SKIP() << "shared/hudi-tables not found";
}

}  // namespace
}  // namespace lakeshore
