// The `files` partition of Spark-written metadata tables lists exactly the data files the
// table holds, with their sizes.
#include "io/metadata_files.h"

#include <set>

#include <gtest/gtest.h>

#include "common/parse_number.h"
#include "format/hfile.h"
#include "format/metadata_keys.h"
#include "lakeshore/table/table.h"
#include "table/index_definitions.h"
#include "table/file_naming.h"
#include "testing/hudi_tables.h"

namespace lakeshore {
namespace {

int counter = 0;

TEST(MetadataFiles, TheSparkWrittenFilesPartitionListsTheTablesDataFiles) {
  for (const char* zip : {"sample_table/cow/v9_txns_simple_meta.zip", "sample_table/mor/avro/v9_txns_simple_meta.zip",
                          "sample_table/mor/avro/v9_nonpartitioned_rollback.zip",
                          "quickstart_trips_table/mor/avro/v8_trips_8i3u1d.zip"}) {
    SCOPED_TRACE(zip);
    const auto entries = testing::ReadHudiTablesZip(zip);
    if (entries.empty()) GTEST_SKIP() << "shared/hudi-tables is not beside the checkout";
    // The table, in memory; the files the zip holds in each partition folder are the oracle.
    auto storage = *Storage::Open("mem://mdt_files_" + std::to_string(counter++));
    std::map<std::string, std::map<std::string, int64_t>> expected;
    for (const auto& [name, bytes] : entries) {
      const std::string path = name.substr(name.find('/') + 1);
      ASSERT_TRUE(storage->WriteString(path, bytes).ok());
      if (path.rfind(".hoodie", 0) == 0) continue;
      const size_t slash = path.rfind('/');
      const std::string partition = slash == std::string::npos ? "" : path.substr(0, slash);
      const std::string file = path.substr(slash == std::string::npos ? 0 : slash + 1);
      if (file == ".hoodie_partition_metadata") continue;
      expected[partition][file] = static_cast<int64_t>(bytes.size());
    }
    auto listing = ReadMetadataFiles(storage, *Engine::Default(), nullptr);
    ASSERT_TRUE(listing.ok()) << listing.status();
    EXPECT_EQ(listing->files, expected);
  }
}

}  // namespace
}  // namespace lakeshore

namespace lakeshore {
namespace {

TEST(MetadataRecordIndex, TheSparkWrittenRecordIndexLocatesEveryRecordAsAScanDoes) {
  int checked = 0;
  for (const char* zip : {"sample_table/cow/v9_txns_simple_meta.zip", "sample_table/mor/avro/v9_txns_simple_meta.zip",
                          "sample_table/mor/avro/v9_nonpartitioned_rollback.zip",
                          "quickstart_trips_table/mor/avro/v8_trips_8i3u1d.zip"}) {
    SCOPED_TRACE(zip);
    const auto entries = testing::ReadHudiTablesZip(zip);
    if (entries.empty()) GTEST_SKIP() << "shared/hudi-tables is not beside the checkout";
    const std::string uri = "mem://mdt_record_index_" + std::to_string(counter++);
    auto storage = *Storage::Open(uri);
    for (const auto& [name, bytes] : entries) {
      ASSERT_TRUE(storage->WriteString(name.substr(name.find('/') + 1), bytes).ok());
    }
    if (!storage->Exists(".hoodie/metadata/record_index/.hoodie_partition_metadata").ValueOr(false)) continue;
    // The oracle: the snapshot's meta columns (key, partition, file).
    auto table = Table::Open(uri);
    ASSERT_TRUE(table.ok()) << table.status();
    ReadOptions read;
    read.columns = {"_hoodie_record_key", "_hoodie_partition_path", "_hoodie_file_name"};
    auto rows = (*table)->Read(read);
    ASSERT_TRUE(rows.ok()) << rows.status();
    auto combined = *(*rows)->CombineChunks();
    // A key INSERT wrote twice (v9_nonpartitioned_rollback) is held in two file groups: the
    // index names one of them.
    std::map<std::string, std::set<std::pair<std::string, std::string>>> expected;
    for (int64_t i = 0; i < combined->num_rows(); ++i) {
      auto text = [&](int c) {
        return std::string(static_cast<const arrow::StringArray&>(*combined->column(c)->chunk(0)).GetView(i));
      };
      const std::string file = text(2);
      auto parsed = ParseDataFileName(file);
      expected[text(0)].insert({text(1), parsed ? parsed->file_id : file});  // log records name the file id itself
    }
    auto index = ReadMetadataRecordIndex(storage, *Engine::Default(), nullptr);
    ASSERT_TRUE(index.ok()) << index.status();
    EXPECT_EQ(index->size(), expected.size());
    for (const auto& [key, loc] : *index) {
      auto it = expected.find(key);
      ASSERT_NE(it, expected.end()) << key;
      EXPECT_TRUE(it->second.count({loc.partition(), loc.file_id()})) << key << " at " << loc.file_id();
    }
    EXPECT_FALSE(index->empty());
    // A point lookup (only the groups the keys hash to, their base files probed) agrees.
    std::vector<std::string> keys = {"no-such-key"};
    for (const auto& [key, loc] : *index) keys.push_back(key);
    auto looked_up = ReadMetadataRecordIndex(storage, *Engine::Default(), nullptr, &keys);
    ASSERT_TRUE(looked_up.ok()) << looked_up.status();
    EXPECT_EQ(*looked_up, *index);
    std::vector<std::string> one = {keys.back()};
    auto single = ReadMetadataRecordIndex(storage, *Engine::Default(), nullptr, &one);
    ASSERT_TRUE(single.ok()) << single.status();
    ASSERT_EQ(single->size(), 1u);
    EXPECT_EQ(single->begin()->second, index->at(keys.back()));
    // Answers in the keys' own order, repeats and misses included.
    std::vector<std::string> asked(keys.rbegin(), keys.rend());
    asked.push_back(keys[1]);
    asked.push_back("no-such-key");
    const std::vector<std::string_view> asked_views(asked.begin(), asked.end());
    auto aligned = LookupMetadataRecordIndex(storage, *Engine::Default(), nullptr, asked_views);
    ASSERT_TRUE(aligned.ok()) << aligned.status();
    ASSERT_EQ(aligned->size(), asked.size());
    for (size_t k = 0; k < asked.size(); ++k) {
      auto it = index->find(asked[k]);
      if (it == index->end()) {
        EXPECT_FALSE((*aligned)[k].has_value()) << asked[k];
      } else {
        ASSERT_TRUE((*aligned)[k].has_value()) << asked[k];
        EXPECT_EQ(*(*aligned)[k], it->second) << asked[k];
      }
    }
    ++checked;
  }
  EXPECT_GE(checked, 3) << "tables with a record index";
}

}  // namespace
}  // namespace lakeshore

namespace lakeshore {
namespace {

/// The secondary key Hudi stores for a value of `column` at `row`: strings as they are, dates
/// as days since the epoch, integers in decimal; nullopt for null.
std::optional<std::string> SecondaryKeyOf(const arrow::Array& column, int64_t row) {
  if (column.IsNull(row)) return std::nullopt;
  switch (column.type_id()) {
    case arrow::Type::STRING: return std::string(static_cast<const arrow::StringArray&>(column).GetView(row));
    case arrow::Type::DATE32: return std::to_string(static_cast<const arrow::Date32Array&>(column).Value(row));
    case arrow::Type::INT64: return std::to_string(static_cast<const arrow::Int64Array&>(column).Value(row));
    case arrow::Type::INT32: return std::to_string(static_cast<const arrow::Int32Array&>(column).Value(row));
    default: ADD_FAILURE() << "no oracle for " << column.type()->ToString(); return std::nullopt;
  }
}

TEST(MetadataSecondaryIndex, TheSparkWrittenSecondaryIndexesEqualAScanAndTheirLookups) {
  int checked = 0;
  for (const char* zip : {"sample_table/cow/v9_txns_simple_meta.zip", "sample_table/mor/avro/v9_txns_simple_meta.zip"}) {
    SCOPED_TRACE(zip);
    const auto entries = testing::ReadHudiTablesZip(zip);
    if (entries.empty()) GTEST_SKIP() << "shared/hudi-tables is not beside the checkout";
    const std::string uri = "mem://mdt_secondary_" + std::to_string(counter++);
    auto storage = *Storage::Open(uri);
    for (const auto& [name, bytes] : entries) {
      ASSERT_TRUE(storage->WriteString(name.substr(name.find('/') + 1), bytes).ok());
    }
    auto defs = LoadIndexDefinitions(*storage);
    ASSERT_TRUE(defs.ok()) << defs.status();
    auto table = Table::Open(uri);
    ASSERT_TRUE(table.ok()) << table.status();
    for (const auto& [name, def] : *defs) {
      if (def.type != "secondary_index") continue;
      SCOPED_TRACE(name);
      ASSERT_EQ(def.source_fields.size(), 1u);
      ASSERT_EQ(def.version, "V2");
      // The oracle: a scan of the table's key and indexed column.
      ReadOptions read;
      read.columns = {"_hoodie_record_key", def.source_fields[0]};
      auto rows = (*table)->Read(read);
      ASSERT_TRUE(rows.ok()) << rows.status();
      auto combined = *(*rows)->CombineChunks();
      std::map<std::optional<std::string>, std::vector<std::string>> expected;
      for (int64_t i = 0; i < combined->num_rows(); ++i) {
        const auto& keys = static_cast<const arrow::StringArray&>(*combined->column(0)->chunk(0));
        expected[SecondaryKeyOf(*combined->column(1)->chunk(0), i)].push_back(std::string(keys.GetView(i)));
      }
      for (auto& [sk, keys] : expected) std::sort(keys.begin(), keys.end());
      auto index = ReadMetadataSecondaryIndex(storage, *Engine::Default(), name, nullptr);
      ASSERT_TRUE(index.ok()) << index.status();
      EXPECT_EQ(*index, expected);
      // Lookups (one file group per secondary key, prefix scans of its base file) agree,
      // a null key and a missing one included.
      std::vector<std::optional<std::string>> wanted = {std::string("no such value")};
      for (const auto& [sk, keys] : expected) wanted.push_back(sk);
      auto looked_up = ReadMetadataSecondaryIndex(storage, *Engine::Default(), name, nullptr, &wanted);
      ASSERT_TRUE(looked_up.ok()) << looked_up.status();
      EXPECT_EQ(*looked_up, expected);
      std::vector<std::optional<std::string>> one = {expected.rbegin()->first};
      auto single = ReadMetadataSecondaryIndex(storage, *Engine::Default(), name, nullptr, &one);
      ASSERT_TRUE(single.ok()) << single.status();
      ASSERT_EQ(single->size(), 1u);
      EXPECT_EQ(single->begin()->second, expected.rbegin()->second);
      // Every entry of a base file is in the group its secondary key hashes to.
      auto listed = storage->List(".hoodie/metadata/" + name, false);
      ASSERT_TRUE(listed.ok());
      std::set<std::string> group_ids;  // Hudi hashes over the file groups, with or without a base file
      for (const auto& e : *listed) {
        if (auto parsed = ParseDataFileName(std::string(BaseName(e.path)))) group_ids.insert(parsed->file_id);
      }
      const auto groups = static_cast<int64_t>(group_ids.size());
      for (const auto& e : *listed) {
        if (e.path.size() <= 6 || e.path.substr(e.path.size() - 6) != ".hfile") continue;
        auto parsed = ParseDataFileName(std::string(BaseName(e.path)));
        ASSERT_TRUE(parsed.has_value()) << e.path;
        const int64_t number = ParseInt64(parsed->file_id.substr(parsed->file_id.size() - 6, 4)).value_or(-1);
        auto reader = format::HFileReader::Open(*storage->ReadFile(e.path), e.path);
        ASSERT_TRUE(reader.ok()) << reader.status();
        ASSERT_TRUE((*reader)
                        ->Scan([&](std::string_view key, std::string_view) {
                          auto pair = format::SplitSecondaryIndexKey(key);
                          EXPECT_TRUE(pair.ok()) << pair.status();
                          if (pair.ok()) EXPECT_EQ(format::SecondaryIndexFileGroup(pair->first, groups), number) << key;
                          return Status::OK();
                        })
                        .ok());
      }
      EXPECT_EQ(groups, 10);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 4) << "two secondary indexes in each of two tables";
}

}  // namespace
}  // namespace lakeshore
