#include "format/metadata_keys.h"

#include <map>
#include <set>

#include <gtest/gtest.h>

#include "format/avro_container.h"
#include "format/hfile.h"
#include "testing/hudi_tables.h"

namespace lakeshore::format {
namespace {

TEST(MetadataKeys, MatchValuesComputedIndependently) {
  // Computed with Python's xxhash and hashlib:
  //   base64(struct.pack(">Q", xxhash.xxh64(s.encode(), seed=0xffffffffdabadaba).intdigest()))
  //   base64(hashlib.md5(s.encode()).digest())
  EXPECT_EQ(PartitionIndexId(""), "FXThHwelITM=");  // the non-partitioned table's "."
  EXPECT_EQ(PartitionIndexId("."), "FXThHwelITM=");
  EXPECT_EQ(PartitionIndexId("city=san_francisco"), "8L2cgj6DtVM=");
  EXPECT_EQ(ColumnIndexId("txn_id"), "RXObmOuurgM=");
  EXPECT_EQ(ColumnIndexId("_hoodie_record_key"), "uSJGdDiVr/k=");
  EXPECT_EQ(PartitionIndexId("ü/x=1"), "1klpLsnvHq8=");
  EXPECT_EQ(FileIndexId("a079bdb3-731c-4894-b855-abfcd6921007-0_0-203-274_20240418173551906.parquet"),
            "05AQo02pVR4BGw6VPuorwQ==");
  EXPECT_EQ(ColumnStatsIndexKey("city=san_francisco", "f.parquet", "txn_id"),
            ColumnIndexId("txn_id") + PartitionIndexId("city=san_francisco") + FileIndexId("f.parquet"));
  EXPECT_EQ(BloomFilterIndexKey("", "f.parquet"), PartitionIndexId(".") + FileIndexId("f.parquet"));
  EXPECT_EQ(PartitionStatsIndexKey("p=1", "c"), ColumnIndexId("c") + PartitionIndexId("p=1"));
}

/// Decodes one metadata record value with the HFile's writer schema.
nlohmann::json Decode(const HFileReader& reader, std::string_view value, const std::string& where) {
  auto schema = reader.file_info().find("schema");
  EXPECT_NE(schema, reader.file_info().end()) << where;
  if (schema == reader.file_info().end()) return {};
  auto records = ReadAvroDatums(schema->second, {value}, where);
  EXPECT_TRUE(records.ok()) << records.status();
  return records.ok() ? (*records)[0] : nlohmann::json();
}

TEST(MetadataKeys, EveryKeyOfTheSparkWrittenMetadataTablesIsOurs) {
  // Each column_stats, partition_stats and bloom_filters key Spark wrote equals the key computed
  // from its record's own names (column, file) and one of the table's partitions; each files
  // key is a partition name or __all_partitions__.
  int checked = 0;
  for (const char* zip : {"sample_table/cow/v9_txns_simple_meta.zip", "sample_table/mor/avro/v9_txns_simple_meta.zip",
                          "quickstart_trips_table/mor/avro/v8_trips_8i3u1d.zip"}) {
    const auto entries = testing::ReadHudiTablesZip(zip);
    if (entries.empty()) GTEST_SKIP() << "shared/hudi-tables is not beside the checkout";
    // The table's partitions: the folders holding .hoodie_partition_metadata (the root: "").
    std::set<std::string> partitions;
    for (const auto& [name, bytes] : entries) {
      const size_t mark = name.find("/.hoodie_partition_metadata");
      if (mark == std::string::npos || name.find("/.hoodie/") != std::string::npos) continue;
      const size_t root = name.find('/');
      partitions.insert(mark > root ? name.substr(root + 1, mark - root - 1) : "");
    }
    ASSERT_FALSE(partitions.empty()) << zip;
    for (const auto& [name, bytes] : entries) {
      const size_t at = name.find("/.hoodie/metadata/");
      if (at == std::string::npos || name.size() < 6 || name.substr(name.size() - 6) != ".hfile") continue;
      const std::string partition_of_mdt = name.substr(at + 18, name.find('/', at + 18) - at - 18);
      auto reader = HFileReader::Open(arrow::Buffer::FromString(bytes), name);
      ASSERT_TRUE(reader.ok()) << reader.status();
      ASSERT_TRUE((*reader)
                      ->Scan([&](std::string_view key, std::string_view value) {
                        const nlohmann::json record = Decode(**reader, value, name);
                        if (partition_of_mdt == "files") {
                          EXPECT_TRUE(key == "__all_partitions__" || partitions.count(std::string(key)) ||
                                      (key == "." && partitions.count("")))
                              << key;
                          ++checked;
                        } else if (partition_of_mdt == "column_stats" || partition_of_mdt == "partition_stats") {
                          const auto& stats = record["ColumnStatsMetadata"];
                          const std::string column = stats.value("columnName", "");
                          const std::string file = stats.value("fileName", "");
                          bool found = false;
                          for (const auto& p : partitions) {
                            const std::string expected = partition_of_mdt == "column_stats"
                                                             ? ColumnStatsIndexKey(p, file, column)
                                                             : PartitionStatsIndexKey(p, column);
                            found = found || key == expected;
                          }
                          EXPECT_TRUE(found) << partition_of_mdt << " key " << key << " of " << column << " / " << file;
                          ++checked;
                        } else if (partition_of_mdt == "bloom_filters") {
                          bool found = false;
                          for (const auto& p : partitions) found = found || key.substr(0, 12) == PartitionIndexId(p);
                          EXPECT_TRUE(found) << key;
                          ++checked;
                        }
                        return Status::OK();
                      })
                      .ok());
    }
  }
  EXPECT_GE(checked, 100);
}

}  // namespace
}  // namespace lakeshore::format

namespace lakeshore::format {
namespace {

TEST(MetadataKeys, RecordIndexFileGroupsAreJavasStringHashes) {
  // Java's "...".hashCode() (computed over UTF-16 in Python): |h| % n, absolute again.
  EXPECT_EQ(RecordIndexFileGroup("TXN-008", 10), 1);
  EXPECT_EQ(RecordIndexFileGroup("ü-key", 7), 5);
  EXPECT_EQ(RecordIndexFileGroup("\xF0\x9F\x98\x80x", 13), 6);  // a surrogate pair
  EXPECT_EQ(RecordIndexFileGroup("polygenelubricants", 5), 3);   // hashCode() == Integer.MIN_VALUE
  EXPECT_EQ(RecordIndexFileGroup("", 3), 0);
}

TEST(MetadataKeys, EverySparkRecordIndexKeyIsInTheFileGroupItsHashNames) {
  int checked = 0;
  for (const char* zip : {"sample_table/cow/v9_txns_simple_meta.zip", "sample_table/mor/avro/v9_txns_simple_meta.zip",
                          "quickstart_trips_table/mor/avro/v8_trips_8i3u1d.zip"}) {
    SCOPED_TRACE(zip);
    const auto entries = testing::ReadHudiTablesZip(zip);
    if (entries.empty()) GTEST_SKIP() << "shared/hudi-tables is not beside the checkout";
    // The file groups: base files and log files (".record-index-NNNN-0_...") alike.
    std::set<std::string> groups;
    for (const auto& [name, bytes] : entries) {
      const size_t at = name.find("record-index-");
      if (at != std::string::npos && name.find("/record_index/") != std::string::npos) {
        groups.insert(name.substr(at + 13, 4));
      }
    }
    for (const auto& [name, bytes] : entries) {
      const size_t at = name.find("/record_index/record-index-");
      if (at == std::string::npos || name.substr(name.size() - 6) != ".hfile") continue;
      const int64_t group = std::stoi(name.substr(at + 27, 4));
      auto reader = HFileReader::Open(arrow::Buffer::FromString(bytes), name);
      ASSERT_TRUE(reader.ok()) << reader.status();
      ASSERT_TRUE((*reader)
                      ->Scan([&](std::string_view key, std::string_view) {
                        EXPECT_EQ(RecordIndexFileGroup(key, static_cast<int64_t>(groups.size())), group) << key;
                        ++checked;
                        return Status::OK();
                      })
                      .ok());
    }
  }
  EXPECT_GE(checked, 10);
}

}  // namespace
}  // namespace lakeshore::format

namespace lakeshore::format {
namespace {

TEST(MetadataKeys, SecondaryIndexKeysEscapeAndSplitAsHudiDoes) {
  EXPECT_EQ(SecondaryIndexKey(std::string("Amazon"), "TXN-001"), "Amazon$TXN-001");
  EXPECT_EQ(SecondaryIndexKey(std::nullopt, "TXN-003"), std::string("\0$TXN-003", 9));
  EXPECT_EQ(SecondaryIndexKey(std::string("a$b\\c"), "k$"), "a\\$b\\\\c$k\\$");
  EXPECT_EQ(SecondaryIndexKeyPrefix(std::string(1, '\0')), std::string("\\\0$", 3));
  for (const auto& [sk, rk] : std::vector<std::pair<std::optional<std::string>, std::string>>{
           {std::string("plain"), "r1"}, {std::nullopt, "r2"}, {std::string("$$\\"), "\\$"},
           {std::string(1, '\0'), "x"}, {std::string(""), ""}, {std::string("a\\"), "b"}}) {
    auto split = SplitSecondaryIndexKey(SecondaryIndexKey(sk, rk));
    ASSERT_TRUE(split.ok()) << split.status();
    EXPECT_EQ(split->first, sk);
    EXPECT_EQ(split->second, rk);
  }
  auto bad = SplitSecondaryIndexKey("no separator\\$");
  EXPECT_TRUE(IsError(bad.status(), ErrorKind::kCorruptMetadata)) << bad.status();
  // The group of a secondary key is the Java hash of its prefix: Spark's table put "Spotify"
  // in group 0 and "Japan Airlines" in group 3 of 10.
  EXPECT_EQ(SecondaryIndexFileGroup(std::string("Spotify"), 10), 0);
  EXPECT_EQ(SecondaryIndexFileGroup(std::string("Japan Airlines"), 10), 3);
  EXPECT_EQ(SecondaryIndexFileGroup(std::nullopt, 10), 6);
}

}  // namespace
}  // namespace lakeshore::format
