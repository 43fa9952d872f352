#include "format/avro_container.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
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
  // The thread keeps one parse per schema: reads after the first must not grow Avro C's bytes,
  // and clearing the thread's schemas must release everything.
  auto bytes = WriteAvroContainer(kSchema, {Record(1), Record(2)});
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  ClearAvroSchemaCacheOfThisThread();  // what was parsed under the default allocator goes with it
  const avro_allocator_state before = AVRO_CURRENT_ALLOCATOR;
  avro_set_allocator(CountingAllocator, nullptr);
  avro_live_bytes = 0;
  ASSERT_TRUE(ReadAvroContainer(*bytes, "counted").ok());
  const int64_t after_first = avro_live_bytes;
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(ReadAvroContainer(*bytes, "counted").ok());
  const int64_t after_more = avro_live_bytes;
  ClearAvroSchemaCacheOfThisThread();
  const int64_t left = avro_live_bytes;
  avro_set_allocator(before.alloc, before.user_data);
  EXPECT_EQ(after_more, after_first) << "Avro C's bytes grew over 20 reads of one schema";
  EXPECT_EQ(left, 0) << "bytes of Avro C allocations left after the reads and the schemas' release";
}

// A container Avro C compressed (deflate) is read through Avro C's file reader, which inflates it.
TEST(AvroContainer, ACompressedContainerIsRead) {
  const char* kNameOnly = R"({"type": "record", "name": "N", "fields": [{"name": "name", "type": "string"}]})";
  avro_schema_t schema = nullptr;
  ASSERT_EQ(avro_schema_from_json_length(kNameOnly, std::strlen(kNameOnly), &schema), 0) << avro_strerror();
  char* buffer = nullptr;
  size_t length = 0;
  FILE* sink = open_memstream(&buffer, &length);
  ASSERT_NE(sink, nullptr);
  avro_file_writer_t writer = nullptr;
  ASSERT_EQ(avro_file_writer_create_with_codec_fp(sink, "memory", 0, schema, &writer, "deflate", 64 * 1024), 0)
      << avro_strerror();
  avro_value_iface_t* iface = avro_generic_class_from_schema(schema);
  avro_value_t value;
  ASSERT_EQ(avro_generic_value_new(iface, &value), 0);
  for (int i = 0; i < 3; ++i) {
    avro_value_reset(&value);
    avro_value_t field;
    ASSERT_EQ(avro_value_get_by_name(&value, "name", &field, nullptr), 0);
    ASSERT_EQ(avro_value_set_string(&field, ("z" + std::to_string(i)).c_str()), 0);
    ASSERT_EQ(avro_file_writer_append_value(writer, &value), 0) << avro_strerror();
  }
  avro_file_writer_close(writer);
  avro_value_decref(&value);
  avro_value_iface_decref(iface);
  avro_schema_decref(schema);
  std::fclose(sink);
  const std::string bytes(buffer, length);
  std::free(buffer);
  ASSERT_NE(bytes.find("deflate"), std::string::npos);
  auto read = ReadAvroContainer(bytes, "deflated.avro");
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->records.size(), 3u);
  EXPECT_EQ(read->records[2]["name"], "z2");
}

// More schemas on one thread than it keeps parsed: each file still decodes with its own schema.
TEST(AvroContainer, FilesOfManySchemasOnOneThreadEachDecodeWithTheirOwn) {
  std::vector<std::string> files;
  for (int s = 0; s < 40; ++s) {
    const std::string schema = R"({"type": "record", "name": "R)" + std::to_string(s) +
                               R"(", "fields": [{"name": "f)" + std::to_string(s) + R"(", "type": "long"}]})";
    auto bytes = WriteAvroContainer(schema, {json{{"f" + std::to_string(s), s}}});
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    files.push_back(*bytes);
  }
  for (int round = 0; round < 2; ++round) {
    for (int s = 39; s >= 0; --s) {
      auto read = ReadAvroContainer(files[static_cast<size_t>(s)], "schema " + std::to_string(s));
      ASSERT_TRUE(read.ok()) << read.status();
      ASSERT_EQ(read->records.size(), 1u);
      EXPECT_EQ(read->records[0], (json{{"f" + std::to_string(s), s}})) << s;
    }
  }
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

// A schema whose record has a field of an unknown type fails deep inside Avro C's parse, which
// then leaves its out-parameter at a schema it freed: releasing that crashed (a log block's
// header schema, or an instant file's, is input).
TEST(AvroContainer, ASchemaFailingInsideARecordIsACleanError) {
  const std::string schema = R"({"type": "record", "name": "R", "fields": [
    {"name": "a", "type": "long"}, {"name": "b", "type": {"type": "i\u007ft"}}]})";
  auto reader = AvroDatumReader::Make(schema, "a log block's header");
  ASSERT_FALSE(reader.ok());
  EXPECT_TRUE(IsError(reader.status(), ErrorKind::kCorruptMetadata)) << reader.status();
  EXPECT_NE(reader.status().message().find("a log block's header"), std::string::npos);
  EXPECT_FALSE(WriteAvroContainer(schema, {}).ok());
  auto good = WriteAvroContainer(kSchema, {Record(1)});
  ASSERT_TRUE(good.ok());
  std::string bad = *good;
  const size_t at = bad.find("\"int\"");
  ASSERT_NE(at, std::string::npos);
  bad[at + 2] = '\x7f';  // "i\x7ft": same length, so the framing still holds
  auto read = ReadAvroContainer(bad, "bad-schema.avro");
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(IsError(read.status(), ErrorKind::kCorruptMetadata)) << read.status();
  EXPECT_NE(read.status().message().find("bad-schema.avro"), std::string::npos);
}

}  // namespace
}  // namespace lakeshore::format
