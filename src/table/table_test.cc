#include "lakeshore/table/table.h"

#include <filesystem>
#include <random>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "format/avro_container.h"
#include "format/hoodie_avro_schemas.h"
#include "table/layout.h"
#include "testing/table_test_util.h"
#include "timeline/instant_time.h"

namespace lakeshore {
namespace {
using testing::Person;
using testing::PeopleReader;
using testing::ReadPeople;

TEST(Table, CreateOpenAndReject) {
  testing::TempDir dir("table_create");
  auto table = Table::Create(dir.path(), testing::PeopleConfig());
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_TRUE(Table::Create(dir.path(), testing::PeopleConfig()).status().IsAlreadyExists());
  auto reopened = Table::Open(dir.path());
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  EXPECT_TRUE((*reopened)->config().schema->Equals(*testing::PeopleSchema()));
  EXPECT_EQ((*reopened)->config().record_key_fields, std::vector<std::string>{"id"});
}

TEST(Table, MergeOnReadUpdatesAndDeletesBecomeLogFilesOnTheirSlice) {
  testing::TempDir dir("table_mor");
  auto config = testing::PeopleConfig();
  config.table_type = TableType::kMergeOnRead;
  auto created = Table::Create(dir.path(), config);
  ASSERT_TRUE(created.ok()) << created.status();
  auto table = *created;
  ASSERT_TRUE(table->Write(WriteOperation::kInsert, PeopleReader({{1, "a", 10, "x"}, {2, "b", 10, "x"}})).ok());
  auto base_files = [&] {
    std::vector<std::string> logs, bases;
    for (const auto& e : std::filesystem::directory_iterator(dir.path() + "/part=x")) {
      const std::string name = e.path().filename().string();
      if (name.find(".log.") != std::string::npos) logs.push_back(name);
      if (name.size() > 8 && name.substr(name.size() - 8) == ".parquet") bases.push_back(name);
    }
    return std::make_pair(bases, logs);
  };
  // An update that loses on ordering, one that wins, and a delete: one log file, no new base.
  auto upsert = table->Write(WriteOperation::kUpsert, PeopleReader({{1, "old", 9, "x"}, {2, "new", 11, "x"}}));
  ASSERT_TRUE(upsert.ok()) << upsert.status();
  ASSERT_TRUE(table->Write(WriteOperation::kDelete, testing::KeysReader({{1, "x"}})).ok());
  auto [bases, logs] = base_files();
  EXPECT_EQ(bases.size(), 1u);
  ASSERT_EQ(logs.size(), 2u);
  auto rows = ReadPeople(*table);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows.at({"x", 2}).name, "new");
  // The read-optimized view is the base file alone.
  ReadOptions optimized;
  optimized.read_optimized = true;
  auto base_rows = ReadPeople(*table, optimized);
  EXPECT_EQ(base_rows.size(), 2u);
  EXPECT_EQ(base_rows.at({"x", 2}).name, "b");
  // Every write is a deltacommit.
  auto timeline = table->Timeline();
  ASSERT_TRUE(timeline.ok()) << timeline.status();
  for (const auto& instant : *timeline) EXPECT_EQ(instant.action, "deltacommit") << instant.time;
}

TEST(Table, CorruptConfigIsAClearError) {
  testing::TempDir dir("table_corrupt");
  ASSERT_TRUE(Table::Create(dir.path(), testing::PeopleConfig()).ok());
  auto storage = *Storage::Open(dir.path());
  // hoodie.properties whose checksum no longer matches its names (and no backup).
  std::string text = *storage->ReadString(layout::kPropertiesFile);
  text.replace(text.find("hoodie.table.name=people"), 24, "hoodie.table.name=peoplf");
  ASSERT_TRUE(storage->WriteString(layout::kPropertiesFile, text).ok());
  auto st = Table::Open(dir.path()).status();
  EXPECT_TRUE(IsError(st, ErrorKind::kCorruptMetadata)) << st;
  EXPECT_NE(st.message().find("hoodie.properties"), std::string::npos) << st;
  // An unknown table version is named.
  text.replace(text.find("hoodie.table.name=peoplf"), 24, "hoodie.table.name=people");
  text.replace(text.find("hoodie.table.version=9"), 22, "hoodie.table.version=5");
  ASSERT_TRUE(storage->WriteString(layout::kPropertiesFile, text).ok());
  st = Table::Open(dir.path()).status();
  EXPECT_TRUE(IsError(st, ErrorKind::kUnsupportedFeature)) << st;
  EXPECT_NE(st.message().find("table version 5"), std::string::npos) << st;
}

TEST(Table, UpsertDeleteAndOrdering) {
  testing::TempDir dir("table_upsert");
  auto table = *Table::Create(dir.path(), testing::PeopleConfig());
  auto r1 = table->Write(WriteOperation::kUpsert,
                         PeopleReader({{1, "a", 10, "x"}, {2, "b", 10, "x"}, {3, "c", 10, "y"}, {1, "a2", 5, "x"}}));
  ASSERT_TRUE(r1.ok()) << r1.status();
  EXPECT_EQ(r1->records_inserted, 3);
  auto rows = ReadPeople(*table);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows.at({"x", 1}).name, "a");  // ts 10 beats ts 5 inside the batch

  // An update with a smaller ordering value loses; a larger one wins.
  auto r2 = table->Write(WriteOperation::kUpsert, PeopleReader({{1, "old", 9, "x"}, {2, "new", 11, "x"}, {4, "d", 1, "y"}}));
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_EQ(r2->records_updated, 1);
  EXPECT_EQ(r2->records_inserted, 1);
  rows = ReadPeople(*table);
  EXPECT_EQ(rows.at({"x", 1}).name, "a");
  EXPECT_EQ(rows.at({"x", 2}).name, "new");
  EXPECT_EQ(rows.size(), 4u);

  auto r3 = table->Write(WriteOperation::kDelete, testing::KeysReader({{1, "x"}, {2, "x"}, {99, "x"}}));
  ASSERT_TRUE(r3.ok()) << r3.status();
  EXPECT_EQ(r3->records_deleted, 2);
  rows = ReadPeople(*table);
  EXPECT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows.count({"x", 1}), 0u);

  // Time travel to the first commit.
  ReadOptions as_of;
  as_of.as_of = r1->instant_time;
  auto old = ReadPeople(*table, as_of);
  EXPECT_EQ(old.size(), 3u);
  EXPECT_EQ(old.at({"x", 2}).name, "b");

  // Partition filter.
  ReadOptions only_y;
  only_y.partition_filter = {PartitionPredicate::FromStrings("part", "=", {"y"})};
  auto y = ReadPeople(*table, only_y);
  EXPECT_EQ(y.size(), 2u);

  // Incremental: what changed after r1 up to r2.
  auto inc = table->ReadIncremental(r1->instant_time, r2->instant_time);
  ASSERT_TRUE(inc.ok()) << inc.status();
  EXPECT_EQ((*inc)->num_rows(), 2);  // ids 2 and 4 as of r2 (the delete of 2 came later)

  auto timeline = *table->Timeline();
  ASSERT_EQ(timeline.size(), 3u);
  for (const auto& i : timeline) EXPECT_EQ(i.state, "completed");
}

TEST(Table, SchemaMismatchIsRefused) {
  testing::TempDir dir("table_schema");
  auto table = *Table::Create(dir.path(), testing::PeopleConfig());
  auto schema = arrow::schema({arrow::field("id", arrow::int32())});
  auto batch = arrow::RecordBatch::Make(schema, 0, {*arrow::MakeEmptyArray(arrow::int32())});
  auto st = table->Write(WriteOperation::kUpsert, *arrow::RecordBatchReader::Make({batch}, schema)).status();
  EXPECT_TRUE(IsError(st, ErrorKind::kSchemaMismatch)) << st;
  EXPECT_EQ(table->Timeline()->size(), 0u);
}

TEST(Table, SmallFilePackingAndNewFileGroups) {
  testing::TempDir dir("table_sizing");
  auto config = testing::PeopleConfig(false);
  config.properties["write.max_file_size_bytes"] = "1000";
  config.properties["write.small_file_limit_bytes"] = "500";
  config.properties["write.record_size_estimate_bytes"] = "100";
  auto table = *Table::Create(dir.path(), config);
  std::vector<Person> rows;
  for (int i = 0; i < 100; ++i) rows.push_back({i, "n" + std::to_string(i), 1, ""});
  auto r = table->Write(WriteOperation::kInsert, PeopleReader(rows));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GE(r->files_written, 2);  // 100 records of >= 24 bytes in memory > 1000 bytes per file
  EXPECT_EQ(ReadPeople(*table).size(), 100u);
}

// Model-based: random upserts and deletes against a std::map oracle.
TEST(Table, RandomHistoryMatchesOracle) {
  testing::TempDir dir("table_model");
  auto table = *Table::Create(dir.path(), testing::PeopleConfig());
  std::map<std::pair<std::string, int64_t>, Person> oracle;
  std::mt19937 rng(42);
  const char* parts[] = {"a", "b", "c"};
  for (int step = 0; step < 25; ++step) {
    bool del = rng() % 4 == 0;
    if (del) {
      std::vector<std::pair<int64_t, std::string>> keys;
      for (int k = 0; k < 5; ++k) keys.push_back({static_cast<int64_t>(rng() % 40), parts[rng() % 3]});
      ASSERT_TRUE(table->Write(WriteOperation::kDelete, testing::KeysReader(keys)).ok());
      for (const auto& [id, p] : keys) oracle.erase({p, id});
    } else {
      std::vector<Person> batch;
      for (int k = 0; k < 10; ++k) {
        batch.push_back({static_cast<int64_t>(rng() % 40), "v" + std::to_string(step) + "_" + std::to_string(k),
                         static_cast<int64_t>(rng() % 50), parts[rng() % 3]});
      }
      ASSERT_TRUE(table->Write(WriteOperation::kUpsert, PeopleReader(batch)).ok());
      // Oracle: within the batch the largest ts wins (last on ties); against stored, >= wins.
      std::map<std::pair<std::string, int64_t>, Person> winners;
      for (const auto& p : batch) {
        auto key = std::make_pair(p.part, p.id);
        auto it = winners.find(key);
        if (it == winners.end() || p.ts >= it->second.ts) winners[key] = p;
      }
      for (const auto& [key, p] : winners) {
        auto it = oracle.find(key);
        if (it == oracle.end() || p.ts >= it->second.ts) oracle[key] = p;
      }
    }
    auto rows = ReadPeople(*table);
    ASSERT_EQ(rows.size(), oracle.size()) << "step " << step;
    for (const auto& [key, p] : oracle) {
      ASSERT_EQ(rows.count(key), 1u) << "step " << step;
      EXPECT_EQ(rows.at(key).name, p.name) << "step " << step;
    }
  }
}

TEST(Table, ConcurrentWritersConflictOnSameFileGroup) {
  testing::TempDir dir("table_conflict");
  auto a = *Table::Create(dir.path(), testing::PeopleConfig(false));
  ASSERT_TRUE(a->Write(WriteOperation::kUpsert, PeopleReader({{1, "x", 1, ""}, {2, "y", 1, ""}})).ok());
  auto b = *Table::Open(dir.path());
  // Both writers update record 1 of the same file group; run them interleaved by hand:
  // b commits while a is between tagging and committing is hard to force from outside, so
  // instead we check the rule directly: after b commits, a's stale view must conflict.
  std::atomic<bool> a_paused{false};
  WriteOptions pause;
  std::atomic<bool> fired{false};
  pause.progress = [&](const Progress& p) {
    if (p.phase == "committing" && p.done == 0 && !fired.exchange(true)) {
      auto r = b->Write(WriteOperation::kUpsert, PeopleReader({{1, "from b", 5, ""}}));
      ASSERT_TRUE(r.ok()) << r.status();
    }
  };
  auto ra = a->Write(WriteOperation::kUpsert, PeopleReader({{1, "from a", 6, ""}}), pause);
  EXPECT_TRUE(IsError(ra.status(), ErrorKind::kCommitConflict)) << ra.status();
  auto rows = ReadPeople(*a);
  EXPECT_EQ(rows.at({"", 1}).name, "from b");
  // The loser left nothing behind: only completed instants remain.
  for (const auto& i : *a->Timeline()) EXPECT_EQ(i.state, "completed");
}

/// Schedules a clustering of `groups` (partition, file id) as Hudi 1.x does: a requested
/// `clustering` instant holding HoodieRequestedReplaceMetadata with a clustering plan.
void ScheduleClustering(Storage& storage, const std::string& time,
                        const std::vector<std::pair<std::string, std::string>>& groups) {
  nlohmann::json slices = nlohmann::json::array();
  for (const auto& [partition, file_id] : groups) {
    slices.push_back({{"dataFilePath", nullptr}, {"deltaFilePaths", nullptr}, {"fileId", file_id},
                      {"partitionPath", partition}, {"bootstrapFilePath", nullptr}, {"version", 1}});
  }
  nlohmann::json plan = {{"inputGroups", {{{"slices", slices}, {"metrics", nullptr}, {"numOutputFileGroups", 1},
                                           {"extraMetadata", nullptr}, {"version", 1}}}},
                         {"strategy", nullptr}, {"extraMetadata", nullptr}, {"version", 1},
                         {"preserveHoodieMetadata", true}, {"missingSchedulePartitions", nullptr}};
  nlohmann::json request = {{"operationType", "CLUSTER"}, {"clusteringPlan", plan}, {"extraMetadata", nullptr}, {"version", 1}};
  auto schema = format::HoodieAvroSchema("HoodieRequestedReplaceMetadata");
  ASSERT_TRUE(schema.ok()) << schema.status();
  auto bytes = format::WriteAvroContainer(*schema, {request});
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  ASSERT_TRUE(storage.WriteString(std::string(layout::kTimelineDir) + "/" + time + ".clustering.requested", *bytes).ok());
}

TEST(Table, FileGroupsUnderPendingClusteringAreLeftAlone) {
  testing::TempDir dir("table_clustering");
  auto table = *Table::Create(dir.path(), testing::PeopleConfig(false));
  ASSERT_TRUE(table->Write(WriteOperation::kUpsert, PeopleReader({{1, "x", 1, ""}, {2, "y", 1, ""}})).ok());
  auto files = *table->Files();
  ASSERT_EQ(files.size(), 1u);
  auto storage = *Storage::Open(dir.path());
  const std::string group = std::string(BaseName(files[0])).substr(0, std::string(BaseName(files[0])).find('_'));
  const int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  ScheduleClustering(*storage, FormatInstantTime(now_ms), {{"", group}});
  // Reads are unchanged by a clustering that has not completed.
  EXPECT_EQ(ReadPeople(*table).size(), 2u);
  // An update of a record in the group is refused, retryably, and nothing of it stays.
  auto update = table->Write(WriteOperation::kUpsert, PeopleReader({{1, "changed", 2, ""}}));
  EXPECT_TRUE(IsError(update.status(), ErrorKind::kCommitConflict)) << update.status();
  EXPECT_NE(update.status().message().find("clustering"), std::string::npos) << update.status();
  EXPECT_EQ(ReadPeople(*table).at({"", 1}).name, "x");
  // So is a delete; an insert goes to a new file group instead of the small one.
  arrow::Int64Builder ids;
  ASSERT_TRUE(ids.Append(2).ok());
  auto id_schema = arrow::schema({arrow::field("id", arrow::int64(), false)});
  auto keys = arrow::RecordBatch::Make(id_schema, 1, {*ids.Finish()});
  auto del = table->Write(WriteOperation::kDelete, *arrow::RecordBatchReader::Make({keys}, id_schema));
  EXPECT_TRUE(IsError(del.status(), ErrorKind::kCommitConflict)) << (del.ok() ? std::to_string(del->records_deleted) : del.status().ToString());
  auto insert = table->Write(WriteOperation::kUpsert, PeopleReader({{3, "z", 1, ""}}));
  ASSERT_TRUE(insert.ok()) << insert.status();
  EXPECT_EQ(insert->file_groups_touched, 1);
  EXPECT_EQ(table->Files()->size(), 2u);
  EXPECT_EQ(ReadPeople(*table).size(), 3u);
  // The writes rolled back no part of the clustering: a table service's plan is not a failed
  // write, whatever its heartbeat says.
  int pending_clusterings = 0;
  for (const auto& i : *table->Timeline()) pending_clusterings += i.action == "clustering" && i.state == "requested";
  EXPECT_EQ(pending_clusterings, 1);
  // A damaged plan is named, and nothing is written.
  ASSERT_TRUE(storage->WriteString(std::string(layout::kTimelineDir) + "/" + FormatInstantTime(now_ms + 1) +
                                       ".clustering.requested",
                                   "Obj\x01junk").ok());
  auto damaged = table->Write(WriteOperation::kUpsert, PeopleReader({{4, "w", 1, ""}}));
  EXPECT_TRUE(IsError(damaged.status(), ErrorKind::kCorruptMetadata)) << damaged.status();
  EXPECT_EQ(ReadPeople(*table).size(), 3u);
}

}  // namespace
}  // namespace lakeshore
