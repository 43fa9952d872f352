#include "read/file_slice_reader.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include <arrow/builder.h>
#include <arrow/io/memory.h>
#include <parquet/arrow/writer.h>

#include "format/log_block.h"
#include "storage/memory_storage.h"
#include "testing/status_test_util.h"

namespace lakeshore {
namespace {

using format::LogBlockType;

/// One version of a record: key, ordering value, payload, deleted flag, commit time.
struct Row {
  std::string key;
  int64_t ts = 0;
  std::string value;
  bool deleted = false;
  std::string commit = "20250101000000000";
};

std::shared_ptr<arrow::Schema> Schema() {
  return arrow::schema({arrow::field("_hoodie_commit_time", arrow::utf8()),
                        arrow::field("_hoodie_record_key", arrow::utf8()), arrow::field("ts", arrow::int64()),
                        arrow::field("value", arrow::utf8()), arrow::field("_hoodie_is_deleted", arrow::boolean())});
}

std::shared_ptr<arrow::Table> TableOf(const std::vector<Row>& rows) {
  arrow::StringBuilder commit, key, value;
  arrow::Int64Builder ts;
  arrow::BooleanBuilder deleted;
  for (const auto& r : rows) {
    (void)commit.Append(r.commit);
    (void)key.Append(r.key);
    (void)ts.Append(r.ts);
    (void)value.Append(r.value);
    (void)deleted.Append(r.deleted);
  }
  std::vector<std::shared_ptr<arrow::Array>> columns(5);
  (void)commit.Finish(&columns[0]);
  (void)key.Finish(&columns[1]);
  (void)ts.Finish(&columns[2]);
  (void)value.Finish(&columns[3]);
  (void)deleted.Finish(&columns[4]);
  return arrow::Table::Make(Schema(), columns);
}

std::string ParquetBytes(const std::shared_ptr<arrow::Table>& table) {
  auto sink = arrow::io::BufferOutputStream::Create();
  if (!sink.ok()) return "";
  EXPECT_TRUE(parquet::arrow::WriteTable(*table, arrow::default_memory_pool(), *sink, 1024).ok());
  auto buffer = (*sink)->Finish();
  return buffer.ok() ? (*buffer)->ToString() : "";
}

std::string DataBlock(const std::string& instant, const std::vector<Row>& rows) {
  return format::RenderLogBlock(LogBlockType::kParquetData, {{0, instant}, {2, "{}"}}, ParquetBytes(TableOf(rows)));
}

std::string RollbackBlock(const std::string& instant, const std::string& target) {
  return format::RenderLogBlock(LogBlockType::kCommand, {{0, instant}, {1, target}, {3, "0"}}, "");
}

class SliceMerge : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(storage_, MemoryStorage::Make("slice_merge_" + std::to_string(counter_++), "", Clock::System()));
  }
  std::map<std::string, std::pair<int64_t, std::string>> Read(const std::vector<Row>& base, const std::string& log,
                                                              RecordMergeMode mode,
                                                              std::set<std::string> visible = {}) {
    EXPECT_TRUE(storage_->WriteString("p/f-0_0-1-1_20250101000000000.parquet", ParquetBytes(TableOf(base))).ok());
    EXPECT_TRUE(storage_->WriteString("p/.f-0_20250101000000000.log.1_0-1-1", log).ok());
    FileSlice slice;
    slice.base_instant = "20250101000000000";
    slice.base_file = BaseFile{"p/f-0_0-1-1_20250101000000000.parquet"};
    slice.log_files = {"p/.f-0_20250101000000000.log.1_0-1-1"};
    SliceReadSpec spec;
    spec.schema = Schema();
    spec.merge_mode = mode;
    spec.ordering_field = "ts";
    spec.instant_is_visible = [visible](const std::string& t) { return visible.empty() || visible.count(t) > 0; };
    auto table = ReadFileSlice(*storage_, slice, spec);
    EXPECT_TRUE(table.ok()) << table.status();
    std::map<std::string, std::pair<int64_t, std::string>> out;
    if (!table.ok()) return out;
    auto batch = (*table)->CombineChunksToBatch();
    EXPECT_TRUE(batch.ok());
    if (!batch.ok()) return out;
    auto combined = *batch;
    auto keys = std::static_pointer_cast<arrow::StringArray>(combined->GetColumnByName("_hoodie_record_key"));
    auto ts = std::static_pointer_cast<arrow::Int64Array>(combined->GetColumnByName("ts"));
    auto values = std::static_pointer_cast<arrow::StringArray>(combined->GetColumnByName("value"));
    for (int64_t i = 0; i < combined->num_rows(); ++i) {
      EXPECT_TRUE(out.emplace(std::string(keys->GetView(i)), std::make_pair(ts->Value(i), std::string(values->GetView(i)))).second)
          << "key twice: " << keys->GetView(i);
    }
    return out;
  }
  std::shared_ptr<Storage> storage_;
  static inline int counter_ = 0;
};

TEST_F(SliceMerge, EventTimeKeepsTheLargestOrderingValueAndTiesGoToTheLaterWrite) {
  const std::vector<Row> base = {{"a", 5, "base"}, {"b", 5, "base"}, {"c", 5, "base"}};
  const std::string log = DataBlock("20250102000000000", {{"a", 4, "older"}, {"b", 5, "tie"}, {"c", 6, "newer"}, {"d", 1, "new"}});
  auto got = Read(base, log, RecordMergeMode::kEventTimeOrdering);
  EXPECT_EQ(got["a"].second, "base");
  EXPECT_EQ(got["b"].second, "tie");
  EXPECT_EQ(got["c"].second, "newer");
  EXPECT_EQ(got["d"].second, "new");
  auto commit_time = Read(base, log, RecordMergeMode::kCommitTimeOrdering);
  EXPECT_EQ(commit_time["a"].second, "older");
}

TEST_F(SliceMerge, DeletesFollowTheMergeMode) {
  const std::vector<Row> base = {{"a", 5, "base"}, {"b", 5, "base"}, {"c", 5, "base"}};
  // a: delete with a smaller ordering value (loses under event time); b: larger (wins);
  // c: the default ordering value 0 (always wins).
  const std::string log = DataBlock("20250102000000000", {{"a", 4, "", true}, {"b", 6, "", true}, {"c", 0, "", true}});
  auto event = Read(base, log, RecordMergeMode::kEventTimeOrdering);
  EXPECT_EQ(event.size(), 1u);
  EXPECT_EQ(event["a"].second, "base");
  auto commit = Read(base, log, RecordMergeMode::kCommitTimeOrdering);
  EXPECT_TRUE(commit.empty());
}

TEST_F(SliceMerge, SkipsInvisibleRolledBackAndCorruptBlocks) {
  const std::vector<Row> base = {{"a", 1, "base"}};
  std::string torn = DataBlock("20250103000000000", {{"a", 9, "torn"}});
  torn.resize(torn.size() - 3);
  const std::string log = DataBlock("20250102000000000", {{"a", 2, "rolled back"}}) +
                          RollbackBlock("20250102000000001", "20250102000000000") + torn +
                          DataBlock("20250104000000000", {{"a", 3, "pending"}}) +
                          DataBlock("20250105000000000", {{"a", 4, "visible"}});
  auto got = Read(base, log, RecordMergeMode::kCommitTimeOrdering,
                  {"20250102000000000", "20250103000000000", "20250105000000000"});
  EXPECT_EQ(got["a"].second, "visible");
  auto without_last = Read(base, log, RecordMergeMode::kCommitTimeOrdering, {"20250102000000000", "20250103000000000"});
  EXPECT_EQ(without_last["a"].second, "base");
}

TEST_F(SliceMerge, ADeletedKeyWrittenAgainMeetsTheBaseVersionByOrderingValueAsInHudi) {
  // Hudi's readers merge the logs first, then the result with the base: a commit-time delete
  // (no ordering value) gives way to the later log version, which then loses to a base version
  // with a larger ordering value (HoodieFileGroupReader, and hudi-rs, read "base" for a).
  const std::vector<Row> base = {{"a", 39, "base"}, {"b", 5, "base"}, {"c", 5, "base"}};
  const std::string log = DataBlock("20250102000000000", {{"a", 0, "", true}, {"b", 0, "", true}, {"c", 0, "", true}}) +
                          DataBlock("20250103000000000", {{"a", 31, "again"}, {"b", 7, "again"}});
  auto event = Read(base, log, RecordMergeMode::kEventTimeOrdering);
  EXPECT_EQ(event.size(), 2u);
  EXPECT_EQ(event["a"], std::make_pair(int64_t{39}, std::string("base")));
  EXPECT_EQ(event["b"], std::make_pair(int64_t{7}, std::string("again")));
  auto commit = Read(base, log, RecordMergeMode::kCommitTimeOrdering);
  EXPECT_EQ(commit.size(), 2u);
  EXPECT_EQ(commit["a"].second, "again");
}

// Random histories against a map oracle of Hudi's two merge steps, under both merge modes.
TEST_F(SliceMerge, MatchesAnOracleOnRandomHistories) {
  struct Version {
    bool seen = false;
    Row row;
  };
  std::mt19937 rng(11);
  for (int trial = 0; trial < 60; ++trial) {
    const RecordMergeMode mode = trial % 2 ? RecordMergeMode::kEventTimeOrdering : RecordMergeMode::kCommitTimeOrdering;
    // Hudi's shouldKeepNewerRecord; a delete without an ordering value (0) is a commit-time one.
    auto commit_time_delete = [](const Row& r) { return r.deleted && r.ts == 0; };
    auto keeps_newer = [&](const Row& older, const Row& newer) {
      if (mode == RecordMergeMode::kCommitTimeOrdering) return true;
      if (commit_time_delete(older) || commit_time_delete(newer)) return true;
      return newer.ts >= older.ts;
    };
    std::map<std::string, Version> base_of, log_of;
    std::vector<Row> base;
    for (int k = 0; k < 6; ++k) {
      Row r{"k" + std::to_string(k), static_cast<int64_t>(rng() % 5 + 1), "base" + std::to_string(k)};
      base.push_back(r);
      base_of[r.key] = {true, r};
    }
    std::string log;
    for (int block = 0; block < 4; ++block) {
      std::vector<Row> rows;
      std::set<std::string> seen;
      for (int n = 0; n < 4; ++n) {
        Row r{"k" + std::to_string(rng() % 8), static_cast<int64_t>(rng() % 6),
              "b" + std::to_string(block) + "n" + std::to_string(n), rng() % 4 == 0};
        if (!seen.insert(r.key).second) continue;  // one version per key per block
        rows.push_back(r);
        Version& kept = log_of[r.key];
        if (!kept.seen || keeps_newer(kept.row, r)) kept = {true, r};
      }
      log += DataBlock("2025010200000000" + std::to_string(block), rows);
    }
    std::map<std::string, std::pair<int64_t, std::string>> expected;
    for (int k = 0; k < 8; ++k) {
      const std::string key = "k" + std::to_string(k);
      const Version& b = base_of[key];
      const Version& l = log_of[key];
      const Version& kept = !l.seen ? b : (!b.seen || keeps_newer(b.row, l.row) ? l : b);
      if (kept.seen && !kept.row.deleted) expected[key] = {kept.row.ts, kept.row.value};
    }
    auto got = Read(base, log, mode);
    EXPECT_EQ(got, expected) << "trial " << trial;
  }
}

}  // namespace
}  // namespace lakeshore
