#include "format/log_block.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "format/avro_container.h"
#include "testing/hudi_tables.h"

namespace lakeshore::format {
namespace {

/// The one log file in a unit/log_files fixture folder.
std::string FixtureLog(const std::string& folder) {
  const std::string dir = testing::HudiTablesPath("unit/log_files/" + folder);
  if (dir.empty()) return {};
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(".", 0) == 0 && name.find(".log.") != std::string::npos) {
      return testing::ReadHudiTablesFile("unit/log_files/" + folder + "/" + name);
    }
  }
  return {};
}

TEST(LogBlock, ReadsTheBlocksSparkWrote) {
  const std::string avro = FixtureLog("valid_log_avro_data");
  if (avro.empty()) GTEST_SKIP() << "shared/hudi-tables not found";
  struct Case {
    const char* folder;
    LogBlockType type;
  };
  for (const Case& c : {Case{"valid_log_avro_data", LogBlockType::kAvroData},
                        Case{"valid_log_delete", LogBlockType::kDelete},
                        Case{"valid_log_parquet_data", LogBlockType::kParquetData},
                        Case{"valid_log_rollback", LogBlockType::kCommand}}) {
    auto blocks = ReadLogBlocks(FixtureLog(c.folder), c.folder);
    ASSERT_TRUE(blocks.ok()) << blocks.status();
    ASSERT_EQ(blocks->size(), 1u) << c.folder;
    EXPECT_EQ((*blocks)[0].type, c.type) << c.folder;
    EXPECT_EQ((*blocks)[0].format_version, 1);
    EXPECT_EQ((*blocks)[0].instant_time().size(), 17u) << c.folder;
  }
  auto rollback = ReadLogBlocks(FixtureLog("valid_log_rollback"), "rollback");
  ASSERT_TRUE(rollback.ok());
  EXPECT_EQ((*rollback)[0].Header(LogHeaderKey::kCommandBlockType), "0");
  EXPECT_EQ((*rollback)[0].Header(LogHeaderKey::kTargetInstantTime), "20250126040826878");
  EXPECT_EQ((*rollback)[0].instant_time(), "20250126040936578");
}

TEST(LogBlock, DecodesTheRecordsOfAnAvroDataBlock) {
  const std::string avro = FixtureLog("valid_log_avro_data");
  if (avro.empty()) GTEST_SKIP() << "shared/hudi-tables not found";
  auto blocks = ReadLogBlocks(avro, "avro");
  ASSERT_TRUE(blocks.ok());
  const LogBlock& block = (*blocks)[0];
  // Avro data block content: version, record count, then (length, datum) pairs.
  std::string_view content = block.content;
  auto int32_at = [&](size_t pos) {
    uint32_t v = 0;
    for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(content[pos + i]);
    return v;
  };
  ASSERT_EQ(int32_at(0), 3u);
  ASSERT_EQ(int32_at(4), 1u);
  const uint32_t length = int32_at(8);
  auto records = ReadAvroDatums(block.Header(LogHeaderKey::kSchema), {content.substr(12, length)}, "avro");
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_EQ((*records)[0]["rider"], "rider-A");
  EXPECT_EQ((*records)[0]["_hoodie_record_key"], "334e26e9-8355-45cc-97c6-c31daf0df330");
}

TEST(LogBlock, RoundTripsAndSkipsCorruptStretchesAsHudiDoes) {
  const std::map<int32_t, std::string> header = {{0, "20250101000000000"}, {2, "{}"}};
  const std::string a = RenderLogBlock(LogBlockType::kParquetData, header, "content-a");
  const std::string b = RenderLogBlock(LogBlockType::kDelete, {{0, "20250101000000001"}}, "content-b");
  auto both = ReadLogBlocks(a + b, "two");
  ASSERT_TRUE(both.ok());
  ASSERT_EQ(both->size(), 2u);
  EXPECT_EQ((*both)[0].content, "content-a");
  EXPECT_EQ((*both)[1].content, "content-b");
  EXPECT_EQ((*both)[1].offset, static_cast<int64_t>(a.size()));

  // A torn first block (a writer died mid-append): corrupt, then the next block reads.
  std::string torn = a.substr(0, a.size() - 5) + b;
  auto skipped = ReadLogBlocks(torn, "torn");
  ASSERT_TRUE(skipped.ok());
  ASSERT_EQ(skipped->size(), 2u);
  EXPECT_EQ((*skipped)[0].type, LogBlockType::kCorrupt);
  EXPECT_EQ((*skipped)[1].content, "content-b");
  // A wrong size field (the bad-input case "a log block with a wrong size").
  std::string wrong = a;
  wrong[13] = static_cast<char>(wrong[13] + 1);
  auto bad = ReadLogBlocks(wrong + b, "wrong");
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ((*bad)[0].type, LogBlockType::kCorrupt);
  EXPECT_EQ(bad->back().content, "content-b");
  // Every prefix of a valid file reads without crashing.
  for (size_t n = 1; n < a.size() + b.size(); ++n) {
    auto cut = ReadLogBlocks((a + b).substr(0, n), "cut");
    if (n < kLogBlockMagic.size()) {
      EXPECT_FALSE(cut.ok());
    } else {
      ASSERT_TRUE(cut.ok()) << n;
    }
  }
  EXPECT_TRUE(IsError(ReadLogBlocks("not a log", "x").status(), ErrorKind::kCorruptMetadata));
}

// Found from outside: one flipped byte in a header value's length, the block's size and
// reverse pointer intact, made the block a "corrupt" one, skipped: a committed update was
// undone without a word. Hudi's reader fails there; so does ReadLogBlocks, naming the file.
TEST(LogBlock, ABlockFramedWholeWhoseInsideDoesNotParseIsDamage) {
  const std::map<int32_t, std::string> header = {{0, "20250101000000000"}, {2, "{}"}};
  const std::string a = RenderLogBlock(LogBlockType::kParquetData, header, "content-a");
  const std::string b = RenderLogBlock(LogBlockType::kDelete, {{0, "20250101000000001"}}, "content-b");
  // magic(6) size(8) version(4) type(4) count(4) key(4): then the first value's length.
  const size_t value_length = 6 + 8 + 4 + 4 + 4 + 4;
  for (auto [at, flipped] : {std::pair<size_t, char>{value_length, '\x7f'}, {value_length + 3, '\x7f'},
                             {value_length + 3, '\xff'}}) {
    std::string damaged = a;
    damaged[at] = flipped;
    auto read = ReadLogBlocks(damaged + b, "damaged.log");
    ASSERT_FALSE(read.ok());
    EXPECT_TRUE(IsError(read.status(), ErrorKind::kCorruptMetadata)) << read.status();
    EXPECT_NE(read.status().message().find("damaged.log"), std::string::npos) << read.status();
    EXPECT_NE(read.status().message().find("byte 0"), std::string::npos) << read.status();
  }
}

}  // namespace
}  // namespace lakeshore::format
