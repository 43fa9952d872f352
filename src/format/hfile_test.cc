// HFiles written by HBase for Hudi 1.0 (shared/hudi-tables/unit/hfile; hudi-rs's tests state
// their contents): keys "hudi-key-%09d" with values "hudi-value-%09d", in GZ and uncompressed
// files with one, two and three index levels.
#include "format/hfile.h"

#include <cstdio>
#include <random>

#include <gtest/gtest.h>

#include "testing/hudi_tables.h"

namespace lakeshore::format {
namespace {

std::string Number(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%09d", i);
  return buf;
}

std::shared_ptr<HFileReader> OpenShared(const std::string& name) {
  const std::string bytes = testing::ReadHudiTablesFile("unit/hfile/" + name);
  if (bytes.empty()) return nullptr;
  auto reader = HFileReader::Open(arrow::Buffer::FromString(bytes), name);
  EXPECT_TRUE(reader.ok()) << reader.status();
  return reader.ok() ? *reader : nullptr;
}

/// Every entry in order: key prefix + number + suffix, value "hudi-value-" + number.
void ExpectSequence(const HFileReader& reader, int count, const std::string& key_prefix, const std::string& suffix) {
  int i = 0;
  auto st = reader.Scan([&](std::string_view key, std::string_view value) {
    EXPECT_EQ(key, key_prefix + Number(i) + suffix);
    EXPECT_EQ(value, "hudi-value-" + Number(i));
    ++i;
    return Status::OK();
  });
  EXPECT_TRUE(st.ok()) << st;
  EXPECT_EQ(i, count);
  EXPECT_EQ(reader.num_entries(), count);
}

struct Case {
  const char* file;
  int count;
};

class HFileSharedTest : public ::testing::TestWithParam<Case> {};

TEST_P(HFileSharedTest, ReadsEveryEntryAndFindsEachKeyInOneBlock) {
  auto reader = OpenShared(GetParam().file);
  if (reader == nullptr) GTEST_SKIP() << "shared/hudi-tables is not beside the checkout";
  ExpectSequence(*reader, GetParam().count, "hudi-key-", "");
  for (int i : {0, 1, GetParam().count / 2, GetParam().count - 1}) {
    const int64_t before = reader->blocks_decoded();
    auto value = reader->Get("hudi-key-" + Number(i));
    ASSERT_TRUE(value.ok()) << value.status();
    ASSERT_TRUE(value->has_value()) << i;
    EXPECT_EQ(**value, "hudi-value-" + Number(i));
    EXPECT_EQ(reader->blocks_decoded() - before, 1) << "a point lookup decodes one data block";
  }
  for (const char* absent : {"hudi-key-", "a", "hudi-key-999999999", "zzz"}) {
    auto value = reader->Get(absent);
    ASSERT_TRUE(value.ok()) << value.status();
    EXPECT_FALSE(value->has_value()) << absent;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Files, HFileSharedTest,
    ::testing::Values(Case{"hudi_1_0_hbase_2_4_9_16KB_GZ_20000.hfile", 20000},
                      Case{"hudi_1_0_hbase_2_4_9_16KB_NONE_5000.hfile", 5000},
                      Case{"hudi_1_0_hbase_2_4_9_512KB_GZ_20000.hfile", 20000},
                      Case{"hudi_1_0_hbase_2_4_9_64KB_NONE_5000.hfile", 5000}),
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string name = info.param.file;
      name = name.substr(0, name.find(".hfile"));
      for (char& ch : name) ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
      return name;
    });

TEST(HFile, ASortedBatchIsOneForwardPass) {
  auto reader = OpenShared("hudi_1_0_hbase_2_4_9_16KB_GZ_20000.hfile");
  if (reader == nullptr) GTEST_SKIP() << "shared/hudi-tables is not beside the checkout";
  std::vector<std::string> owned;
  for (int i = 0; i < 20000; i += 7) owned.push_back("hudi-key-" + Number(i));
  owned.push_back("hudi-key-999999999");
  std::vector<std::string_view> keys(owned.begin(), owned.end());
  const int64_t before = reader->blocks_decoded();
  auto values = reader->GetSorted(keys);
  ASSERT_TRUE(values.ok()) << values.status();
  for (size_t k = 0; k + 1 < keys.size(); ++k) {
    ASSERT_TRUE((*values)[k].has_value()) << keys[k];
    EXPECT_EQ(*(*values)[k], "hudi-value-" + std::string(keys[k].substr(9)));
  }
  EXPECT_FALSE(values->back().has_value());
  EXPECT_LE(reader->blocks_decoded() - before, reader->num_data_blocks()) << "each block at most once";
  std::vector<std::string_view> unsorted = {keys[1], keys[0]};
  EXPECT_TRUE(reader->GetSorted(unsorted).status().IsInvalid());
}

TEST(HFile, APrefixScanReadsOnlyTheBlocksThatCanMatch) {
  auto reader = OpenShared("hudi_1_0_hbase_2_4_9_16KB_GZ_20000.hfile");
  if (reader == nullptr) GTEST_SKIP() << "shared/hudi-tables is not beside the checkout";
  std::vector<std::string> found;
  const int64_t before = reader->blocks_decoded();
  ASSERT_TRUE(reader
                  ->ScanPrefix("hudi-key-00000010",
                               [&](std::string_view key, std::string_view) {
                                 found.emplace_back(key);
                                 return Status::OK();
                               })
                  .ok());
  ASSERT_EQ(found.size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(found[static_cast<size_t>(i)], "hudi-key-" + Number(100 + i));
  EXPECT_LE(reader->blocks_decoded() - before, 2);
}

TEST(HFile, NonUniqueKeysComeInWriteOrderAndALookupFindsTheFirst) {
  auto reader = OpenShared("hudi_1_0_hbase_2_4_9_16KB_GZ_200_20_non_unique.hfile");
  if (reader == nullptr) GTEST_SKIP() << "shared/hudi-tables is not beside the checkout";
  EXPECT_EQ(reader->num_entries(), 4200);
  int n = 0;
  ASSERT_TRUE(reader
                  ->Scan([&](std::string_view key, std::string_view value) {
                    const int i = n / 21, j = n % 21;
                    EXPECT_EQ(key, "hudi-key-" + Number(i));
                    EXPECT_EQ(value, "hudi-value-" + Number(i) + (j == 0 ? "" : "_" + std::to_string(j - 1)));
                    ++n;
                    return Status::OK();
                  })
                  .ok());
  EXPECT_EQ(n, 4200);
  auto value = reader->Get("hudi-key-" + Number(5));
  ASSERT_TRUE(value.ok() && value->has_value());
  EXPECT_EQ(**value, "hudi-value-" + Number(5));
}

TEST(HFile, FakeFirstKeysInTheIndexStillLeadToTheRightBlock) {
  auto reader = OpenShared("hudi_1_0_hbase_2_4_13_16KB_GZ_20000_fake_first_key.hfile");
  if (reader == nullptr) GTEST_SKIP() << "shared/hudi-tables is not beside the checkout";
  ExpectSequence(*reader, 20000, "hudi-key-", "-abcdefghij");
  for (int i : {0, 99, 469, 470, 19999}) {
    auto value = reader->Get("hudi-key-" + Number(i) + "-abcdefghij");
    ASSERT_TRUE(value.ok() && value->has_value()) << i;
    EXPECT_EQ(**value, "hudi-value-" + Number(i));
  }
  auto between = reader->Get("hudi-key-000000470");
  ASSERT_TRUE(between.ok());
  EXPECT_FALSE(between->has_value());
}

TEST(HFile, LargeKeysWithTwoAndThreeIndexLevels) {
  for (const auto& [name, count, levels] :
       {std::tuple<const char*, int, int>{"hudi_1_0_hbase_2_4_13_1KB_GZ_20000_large_keys.hfile", 20000, 2},
        std::tuple<const char*, int, int>{"hudi_1_0_hbase_2_4_13_1KB_GZ_10000_large_keys_deep_index.hfile", 10000, 3}}) {
    SCOPED_TRACE(name);
    auto reader = OpenShared(name);
    if (reader == nullptr) GTEST_SKIP() << "shared/hudi-tables is not beside the checkout";
    EXPECT_EQ(reader->num_index_levels(), levels);
    // The keys share one long prefix (hudi-key-aaa...) and end in the number.
    std::string prefix;
    ASSERT_TRUE(reader
                    ->Scan([&](std::string_view key, std::string_view) {
                      if (prefix.empty()) prefix = std::string(key.substr(0, key.size() - 9));
                      return Status::OK();
                    })
                    .ok());
    ASSERT_EQ(prefix.rfind("hudi-key-aaaa", 0), 0u) << prefix;
    ExpectSequence(*reader, count, prefix, "");
    const int64_t before = reader->blocks_decoded();
    auto value = reader->Get(prefix + Number(count / 3));
    ASSERT_TRUE(value.ok() && value->has_value());
    EXPECT_EQ(**value, "hudi-value-" + Number(count / 3));
    EXPECT_EQ(reader->blocks_decoded() - before, 1);
  }
}

TEST(HFile, AnEmptyFileHasNoEntries) {
  auto reader = OpenShared("hudi_1_0_hbase_2_4_9_no_entry.hfile");
  if (reader == nullptr) GTEST_SKIP() << "shared/hudi-tables is not beside the checkout";
  EXPECT_EQ(reader->num_entries(), 0);
  auto value = reader->Get("hudi-key-000000000");
  ASSERT_TRUE(value.ok());
  EXPECT_FALSE(value->has_value());
}

TEST(HFile, DamagedFilesAreCorruptMetadataNamingTheFile) {
  const std::string good = testing::ReadHudiTablesFile("unit/hfile/hudi_1_0_hbase_2_4_9_16KB_NONE_5000.hfile");
  if (good.empty()) GTEST_SKIP() << "shared/hudi-tables is not beside the checkout";
  std::vector<std::string> damaged = {"", "not an hfile", good.substr(0, good.size() - 1), good.substr(100)};
  std::string flipped = good;
  flipped[flipped.size() - 4096 + 20] ^= 0x55;  // inside the trailer's protobuf
  damaged.push_back(flipped);
  std::string bad_block = good;
  bad_block[0] = 'X';  // the first data block's magic
  damaged.push_back(bad_block);
  for (const auto& bytes : damaged) {
    auto reader = HFileReader::Open(arrow::Buffer::FromString(bytes), "damaged.hfile");
    Status st = reader.status();
    if (reader.ok()) st = (*reader)->Scan([](std::string_view, std::string_view) { return Status::OK(); });
    ASSERT_FALSE(st.ok());
    EXPECT_TRUE(IsError(st, ErrorKind::kCorruptMetadata) || IsError(st, ErrorKind::kUnsupportedFeature)) << st;
    EXPECT_NE(st.message().find("damaged.hfile"), std::string::npos) << st;
  }
}

}  // namespace
}  // namespace lakeshore::format

namespace lakeshore::format {
namespace {

TEST(HFile, ReadsEveryHFileOfTheSparkWrittenMetadataTables) {
  // The metadata tables of the Spark tables (files, column_stats, partition_stats, record_index,
  // secondary indexes): each HFile opens, and a full scan yields its entry count in key order.
  int files = 0;
  for (const char* zip : {"sample_table/cow/v9_txns_simple_meta.zip", "sample_table/mor/avro/v9_txns_simple_meta.zip",
                          "quickstart_trips_table/mor/avro/v8_trips_8i3u1d.zip"}) {
    const auto entries = testing::ReadHudiTablesZip(zip);
    if (entries.empty()) GTEST_SKIP() << "shared/hudi-tables is not beside the checkout";
    for (const auto& [name, bytes] : entries) {
      if (name.find("/.hoodie/metadata/") == std::string::npos || name.size() < 6 ||
          name.substr(name.size() - 6) != ".hfile") {
        continue;
      }
      SCOPED_TRACE(name);
      auto reader = HFileReader::Open(arrow::Buffer::FromString(bytes), name);
      ASSERT_TRUE(reader.ok()) << reader.status();
      int64_t n = 0;
      std::string previous;
      ASSERT_TRUE((*reader)
                      ->Scan([&](std::string_view key, std::string_view value) {
                        EXPECT_LE(previous, key);
                        previous = std::string(key);
                        EXPECT_FALSE(value.empty());
                        ++n;
                        return Status::OK();
                      })
                      .ok());
      EXPECT_EQ(n, (*reader)->num_entries());
      if (n > 0) {
        auto found = (*reader)->Get(previous);
        ASSERT_TRUE(found.ok() && found->has_value());
      }
      ++files;
    }
  }
  EXPECT_GE(files, 20);
}

}  // namespace
}  // namespace lakeshore::format

namespace lakeshore::format {
namespace {

TEST(HFile, RandomDamageNeverCrashesAndIsAnErrorOrAReadableFile) {
  const std::string good = testing::ReadHudiTablesFile("unit/hfile/hudi_1_0_hbase_2_4_9_16KB_GZ_20000.hfile");
  if (good.empty()) GTEST_SKIP() << "shared/hudi-tables is not beside the checkout";
  std::mt19937_64 rng(20261201);
  for (int round = 0; round < 300; ++round) {
    std::string bytes = good;
    const int flips = 1 + static_cast<int>(rng() % 8);
    for (int f = 0; f < flips; ++f) {
      // Half the damage lands in the load-on-open section and trailer, where the index lives.
      const size_t tail = std::min<size_t>(bytes.size(), 8192);
      const size_t at = rng() % 2 ? bytes.size() - 1 - rng() % tail : rng() % bytes.size();
      bytes[at] = static_cast<char>(rng());
    }
    auto reader = HFileReader::Open(arrow::Buffer::FromString(bytes), "fuzzed.hfile");
    if (!reader.ok()) {
      EXPECT_NE(reader.status().message().find("fuzzed.hfile"), std::string::npos) << reader.status();
      continue;
    }
    (void)(*reader)->Scan([](std::string_view, std::string_view) { return Status::OK(); });
    (void)(*reader)->Get("hudi-key-000001234");
    (void)(*reader)->ScanPrefix("hudi-key-0000012", [](std::string_view, std::string_view) { return Status::OK(); });
  }
}

}  // namespace
}  // namespace lakeshore::format
