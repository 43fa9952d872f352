// Clustering: every read (snapshot, time travel) is the same before and after, whatever stops it.
#include "services/clustering/clusterer.h"

#include <algorithm>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "lakeshore/storage/fault_injection_storage.h"
#include "lakeshore/table/table.h"
#include "table/file_naming.h"
#include "testing/status_test_util.h"
#include "testing/table_test_util.h"

namespace lakeshore {
namespace {
using testing::KeysReader;
using testing::PeopleReader;
using testing::ReadPeople;

int table_counter = 0;
/// A table of small file groups (no small-file packing: each insert makes new groups), with an
/// update and a delete on top, and the oracle of every completed write.
using SmallFiles = testing::RecordedTable;

SmallFiles MakeSmallFiles(TableType type, bool metadata_table = false) {
  SmallFiles h("clustering_" + std::to_string(table_counter++));
  auto config = testing::PeopleConfig();
  config.table_type = type;
  config.properties["write.small_file_limit_bytes"] = "0";
  if (metadata_table) {
    config.properties["hoodie.metadata.enable"] = "true";
    config.properties["hoodie.metadata.record.index.enable"] = "true";
  }
  auto table = *Table::Create(h.uri, config, h.Options());
  for (int i = 0; i < 3; ++i) {
    h.Record(*table, table->Write(WriteOperation::kInsert,
                                  PeopleReader({{10 * i + 1, "a", 9 - i, "x"}, {10 * i + 2, "b", i, "x"},
                                                {10 * i + 3, "c", i, "y"}})));
  }
  h.Record(*table, table->Write(WriteOperation::kUpsert, PeopleReader({{1, "a2", 20, "x"}})));
  h.Record(*table, table->Write(WriteOperation::kDelete, KeysReader({{23, "y"}})));
  return h;
}

std::set<std::string> BaseFiles(Storage& storage) {
  std::set<std::string> out;
  for (const auto& e : *storage.List("", /*recursive=*/true)) {
    if (e.is_dir || e.path.rfind(".hoodie", 0) == 0) continue;
    auto name = ParseDataFileName(BaseName(e.path));
    if (name && !name->is_log) out.insert(e.path);
  }
  return out;
}

class ClustererTest : public ::testing::TestWithParam<TableType> {};

TEST_P(ClustererTest, RewritesSmallGroupsSortedAndEveryReadStaysTheSame) {
  SmallFiles h = MakeSmallFiles(GetParam());
  auto table = h.Open();
  ClusteringOptions options;
  options.sort_columns = {"ts"};
  auto result = table->Cluster(options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->scheduled && result->completed);
  EXPECT_EQ(result->file_groups_replaced, 6);  // three inserts into two partitions
  EXPECT_EQ(result->file_groups_written, 2);   // one per partition
  EXPECT_EQ(result->records_written, 8);
  h.ExpectReadsUnchanged(*table);
  // Hudi's form: clustering.requested (the plan), then a replacecommit; the new files are
  // sorted by ts.
  auto timeline = *table->Timeline();
  EXPECT_EQ(timeline.back().action, "replacecommit");
  EXPECT_TRUE(h.storage->Exists(".hoodie/timeline/" + result->instant_time + ".clustering.requested").ValueOr(false));
  ReadOptions read;
  read.columns = {"ts", "part"};
  auto rows = table->Read(read);
  ASSERT_TRUE(rows.ok()) << rows.status();
  auto combined = (*rows)->CombineChunks();
  ASSERT_TRUE(combined.ok()) << combined.status();
  const auto& ts = static_cast<const arrow::Int64Array&>(*(*combined)->column(0)->chunk(0));
  const auto& part = static_cast<const arrow::StringArray&>(*(*combined)->column(1)->chunk(0));
  std::map<std::string, std::vector<int64_t>> ts_by_part;
  for (int64_t i = 0; i < ts.length(); ++i) ts_by_part[std::string(part.GetView(i))].push_back(ts.Value(i));
  for (const auto& [p, values] : ts_by_part) EXPECT_TRUE(std::is_sorted(values.begin(), values.end())) << p;
  // Nothing small is left in twos; a write goes on as usual.
  auto again = table->Cluster();
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_FALSE(again->scheduled) << again->reason;
  h.Record(*table, table->Write(WriteOperation::kUpsert, PeopleReader({{2, "b2", 30, "x"}})));
  h.ExpectReadsUnchanged(*h.Open());
}

TEST_P(ClustererTest, WritesToAPendingClusteringsGroupsAreRefusedAndInsertsGoElsewhere) {
  SmallFiles h = MakeSmallFiles(GetParam());
  auto table = h.Open();
  ClusteringOptions schedule;
  schedule.schedule_only = true;
  auto scheduled = table->Cluster(schedule);
  ASSERT_TRUE(scheduled.ok()) << scheduled.status();
  ASSERT_TRUE(scheduled->scheduled && !scheduled->completed);
  auto update = table->Write(WriteOperation::kUpsert, PeopleReader({{1, "a3", 40, "x"}}));
  EXPECT_TRUE(IsError(update.status(), ErrorKind::kCommitConflict)) << update.status();
  EXPECT_TRUE(table->Rollback(h.as_of.rbegin()->first).status().IsInvalid());
  h.Record(*table, table->Write(WriteOperation::kInsert, PeopleReader({{99, "new", 1, "x"}})));
  auto finished = h.Open()->Cluster();
  ASSERT_TRUE(finished.ok()) << finished.status();
  EXPECT_EQ(finished->instant_time, scheduled->instant_time);
  EXPECT_TRUE(finished->completed);
  h.ExpectReadsUnchanged(*table);
  h.Record(*table, table->Write(WriteOperation::kUpsert, PeopleReader({{1, "a3", 40, "x"}})));
  h.ExpectReadsUnchanged(*table);
}

TEST_P(ClustererTest, RollingBackACompletedClusteringGivesTheGroupsBackToWriters) {
  SmallFiles h = MakeSmallFiles(GetParam());
  auto table = h.Open();
  auto done = table->Cluster();
  ASSERT_TRUE(done.ok()) << done.status();
  ASSERT_TRUE(done->completed);
  ASSERT_TRUE(table->Rollback(done->instant_time).ok());
  for (const auto& i : *table->Timeline()) EXPECT_EQ(i.state, "completed") << i.time << " " << i.action;
  h.ExpectReadsUnchanged(*table);
  h.Record(*table, table->Write(WriteOperation::kUpsert, PeopleReader({{1, "a4", 50, "x"}})));
  h.ExpectReadsUnchanged(*table);
}

TEST_P(ClustererTest, EveryCrashPointLeavesReadsUnchangedAndTheNextClusteringFinishes) {
  // With a metadata table too: a crash after the clustering's metadata deltacommit completed
  // and before its replacecommit did left a clustering no later call could finish ("instant
  // already exists on the timeline"), its file groups closed to updates for good.
  for (bool metadata_table : {false, true}) {
  SCOPED_TRACE(metadata_table ? "with a metadata table" : "without a metadata table");
  int64_t calls = 0;
  {
    SmallFiles h = MakeSmallFiles(GetParam(), metadata_table);
    auto counter = *FaultInjectionStorage::Make(h.storage, 0, FaultMode::kCrash);
    ASSERT_OK(h.Open(counter)->Cluster().status());
    calls = counter->mutating_calls();
  }
  ASSERT_GT(calls, 4);
  for (int64_t k = 1; k <= calls; ++k) {
    SCOPED_TRACE("crash at mutating call " + std::to_string(k));
    SmallFiles h = MakeSmallFiles(GetParam(), metadata_table);
    const auto before = BaseFiles(*h.storage);
    auto crashed = h.Open(*FaultInjectionStorage::Make(h.storage, k, FaultMode::kCrash))->Cluster();
    h.clock->Advance(3600 * 1000);  // past the crashed process's lock lease and heartbeat
    auto restarted = h.Open();
    h.ExpectReadsUnchanged(*restarted);
    auto finished = restarted->Cluster();
    ASSERT_TRUE(finished.ok()) << finished.status();
    EXPECT_NE(crashed.ok(), finished->completed);
    const std::string instant = crashed.ok() ? crashed->instant_time : finished->instant_time;
    ASSERT_FALSE(instant.empty());
    h.ExpectReadsUnchanged(*restarted);
    // The crashed attempt's files are gone: the new base files are the completed clustering's.
    int64_t new_files = 0;
    for (const auto& f : BaseFiles(*h.storage)) {
      if (!before.count(f)) {
        EXPECT_NE(f.find(instant), std::string::npos) << f;
        ++new_files;
      }
    }
    EXPECT_EQ(new_files, 2);
  }
  }
}

INSTANTIATE_TEST_SUITE_P(TableTypes, ClustererTest,
                         ::testing::Values(TableType::kCopyOnWrite, TableType::kMergeOnRead),
                         [](const ::testing::TestParamInfo<TableType>& info) {
                           return std::string(TableTypeName(info.param));
                         });

TEST(Clusterer, AnUnknownSortColumnIsRefusedByName) {
  SmallFiles h = MakeSmallFiles(TableType::kCopyOnWrite);
  ClusteringOptions options;
  options.sort_columns = {"nope"};
  auto st = h.Open()->Cluster(options).status();
  EXPECT_TRUE(st.IsInvalid());
  EXPECT_NE(st.message().find("nope"), std::string::npos);
}

}  // namespace
}  // namespace lakeshore
