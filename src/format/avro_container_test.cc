#include "format/avro_container.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include <avro.h>

#include "testing/hudi_tables.h"

namespace lakeshore::format {
namespace {

using nlohmann::json;

constexpr const char* kSchema = R"({
  "type": "record", "name": "R", "fields": [
    {"name": "name", "type": "string"},
    {"name": "count", "type": ["null", "long"], "default": null},
    {"name": "ratio", "type": "double"},
    {"name": "small", "type": "int"},
    {"name": "flag", "type": "boolean"},
    {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B"]}},
    {"name": "blob", "type": "bytes"},
    {"name": "stats", "type": ["null", {"type": "map", "values": {"type": "array", "items": {
      "type": "record", "name": "S", "fields": [
        {"name": "fileId", "type": ["null", "string"], "default": null},
        {"name": "size", "type": ["null", "long"], "default": null}]}}}], "default": null}
  ]})";

json Record(int i) {
  return json{{"name", "r" + std::to_string(i)},
              {"count", i % 2 == 0 ? json(nullptr) : json(int64_t{1} << 40)},
              {"ratio", 0.5 * i},
              {"small", -i},
              {"flag", i % 3 == 0},
              {"kind", i % 2 == 0 ? "A" : "B"},
              {"blob", json::binary({0, 1, 2, static_cast<uint8_t>(i)})},
              {"stats", {{"p=1", {{{"fileId", "f" + std::to_string(i)}, {"size", 7}},
                                  {{"fileId", nullptr}, {"size", nullptr}}}}}}};
}

TEST(AvroContainer, RoundTripsEveryTypeHudiUses) {
  std::vector<json> records;
  for (int i = 0; i < 50; ++i) records.push_back(Record(i));
  auto bytes = WriteAvroContainer(kSchema, records);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto read = ReadAvroContainer(*bytes, "round-trip");
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->records.size(), records.size());
  for (size_t i = 0; i < records.size(); ++i) EXPECT_EQ(read->records[i], records[i]) << i;
  EXPECT_NE(read->schema_json.find("\"R\""), std::string::npos);
}

// Avro C's allocations, counted (it passes each block's old size): what a read leaves behind.
int64_t avro_live_bytes = 0;
void* CountingAllocator(void*, void* ptr, size_t old_size, size_t new_size) {
  avro_live_bytes += static_cast<int64_t>(new_size) - static_cast<int64_t>(ptr != nullptr ? old_size : 0);
  if (new_size == 0) {
    std::free(ptr);
    return nullptr;
  }
  return std::realloc(ptr, new_size);
}

TEST(AvroContainer, AReadLeavesNothingOfAvroCBehind) {
  // The writer schema Avro C hands out is a reference of the caller's own: taking another leaked
  // the whole parsed schema (~60 KB for a commit's) per file, at every open, for every commit.
  auto bytes = WriteAvroContainer(kSchema, {Record(1), Record(2)});
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  const avro_allocator_state before = AVRO_CURRENT_ALLOCATOR;
  avro_set_allocator(CountingAllocator, nullptr);
  avro_live_bytes = 0;
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(ReadAvroContainer(*bytes, "counted").ok());
  const int64_t left = avro_live_bytes;
  avro_set_allocator(before.alloc, before.user_data);
  EXPECT_EQ(left, 0) << "bytes of Avro C allocations left after 20 reads";
}

TEST(AvroContainer, ALargeRecordFitsItsBlock) {
  json record = Record(1);
  record["name"] = std::string(3 << 20, 'x');  // Avro C refuses records larger than a block
  auto bytes = WriteAvroContainer(kSchema, {record});
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto read = ReadAvroContainer(*bytes, "large");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->records.at(0)["name"].get<std::string>().size(), size_t{3} << 20);
}

TEST(AvroContainer, AValueThatDoesNotFitIsRefusedNamingItsField) {
  json record = Record(1);
  record["stats"]["p=1"][0]["size"] = "seven";
  auto bytes = WriteAvroContainer(kSchema, {record});
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find("record 0.stats[p=1][0].size"), std::string::npos)
      << bytes.status();
  record = Record(1);
  record["small"] = int64_t{1} << 40;
  EXPECT_FALSE(WriteAvroContainer(kSchema, {record}).ok());
  EXPECT_FALSE(WriteAvroContainer("{not a schema", {}).ok());
}

TEST(AvroContainer, ReadsTheDeltacommitSparkWrote) {
  const std::string bytes = lakeshore::testing::ReadHudiTablesFile("unit/commit_metadata/v8_deltacommit.avro");
  if (bytes.empty()) GTEST_SKIP() << "shared/hudi-tables not found";
  auto read = ReadAvroContainer(bytes, "v8_deltacommit.avro");
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->records.size(), 1u);
  const json& commit = read->records[0];
  ASSERT_TRUE(commit["partitionToWriteStats"].is_object()) << commit.dump();
  size_t stats = 0;
  for (const auto& [partition, list] : commit["partitionToWriteStats"].items()) {
    for (const auto& stat : list) {
      EXPECT_TRUE(stat["fileId"].is_string());
      EXPECT_EQ(stat["partitionPath"], partition);
      ++stats;
    }
  }
  EXPECT_GT(stats, 0u);
  EXPECT_EQ(commit["operationType"], "UPSERT") << commit["operationType"];
}

// Every prefix and many corruptions of a valid file decode or fail with kCorruptMetadata naming
// the file; none crashes, hangs or allocates without bound.
TEST(AvroContainer, TruncatedOrCorruptFilesAreCleanErrors) {
  std::vector<json> records;
  for (int i = 0; i < 20; ++i) records.push_back(Record(i));
  auto written = WriteAvroContainer(kSchema, records);
  ASSERT_TRUE(written.ok());
  const std::string& good = *written;
  for (size_t n = 0; n < good.size(); ++n) {
    auto read = ReadAvroContainer(std::string_view(good).substr(0, n), "cut.avro");
    // A cut at a block boundary is a shorter valid file (the format keeps no record count).
    if (read.ok()) {
      EXPECT_LT(read->records.size(), records.size()) << n;
      continue;
    }
    EXPECT_TRUE(IsError(read.status(), ErrorKind::kCorruptMetadata)) << read.status();
    EXPECT_NE(read.status().message().find("cut.avro"), std::string::npos);
  }
  std::mt19937 rng(7);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string bad = good;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bad[rng() % bad.size()] = static_cast<char>(rng());
    auto read = ReadAvroContainer(bad, "flip.avro");
    if (!read.ok()) EXPECT_TRUE(IsError(read.status(), ErrorKind::kCorruptMetadata)) << read.status();
  }
  auto garbage = ReadAvroContainer("hello, not avro", "garbage.avro");
  ASSERT_FALSE(garbage.ok());
  EXPECT_NE(garbage.status().message().find("garbage.avro"), std::string::npos);
  EXPECT_NE(garbage.status().message().find("bad magic"), std::string::npos);
}

}  // namespace
}  // namespace lakeshore::format
