// Compaction: every read (snapshot, time travel) is the same before and after, whatever stops it.
#include "services/compaction/compactor.h"

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
using MorHistory = testing::RecordedTable;

MorHistory MakeMorHistory(bool metadata_table = false) {
  MorHistory h("compaction_" + std::to_string(table_counter++));
  auto config = testing::PeopleConfig();
  config.table_type = TableType::kMergeOnRead;
  if (metadata_table) config.properties["hoodie.metadata.enable"] = "true";
  auto table = *Table::Create(h.uri, config, h.Options());
  h.Record(*table, table->Write(WriteOperation::kInsert,
                                PeopleReader({{1, "a", 1, "x"}, {2, "b", 1, "x"}, {3, "c", 1, "y"}, {4, "d", 1, "y"}})));
  h.Record(*table, table->Write(WriteOperation::kUpsert, PeopleReader({{1, "a2", 2, "x"}, {3, "c2", 0, "y"}})));
  h.Record(*table, table->Write(WriteOperation::kDelete, KeysReader({{2, "x"}})));
  h.Record(*table, table->Write(WriteOperation::kUpsert, PeopleReader({{4, "d2", 5, "y"}, {1, "a3", 3, "x"}})));
  return h;
}

/// The data files (base and log) under the table's partition folders.
std::set<std::string> DataFiles(Storage& storage) {
  std::set<std::string> out;
  for (const auto& e : *storage.List("", /*recursive=*/true)) {
    if (e.is_dir || e.path.rfind(".hoodie", 0) == 0) continue;
    if (ParseDataFileName(BaseName(e.path))) out.insert(e.path);
  }
  return out;
}

TEST(Compactor, MergesEverySliceWithLogsIntoANewBaseAndEveryReadStaysTheSame) {
  MorHistory h = MakeMorHistory();
  auto table = h.Open();
  ReadOptions optimized;
  optimized.read_optimized = true;
  EXPECT_NE(ReadPeople(*table, optimized), ReadPeople(*table));  // the logs hold news
  auto result = table->Compact();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->scheduled && result->completed);
  EXPECT_EQ(result->file_groups, 2);
  EXPECT_EQ(result->log_files, 5);  // x: 3 deltacommits, y: 2
  EXPECT_EQ(result->records_written, 3);
  h.ExpectReadsUnchanged(*table);
  EXPECT_EQ(ReadPeople(*table, optimized), ReadPeople(*table));  // the bases caught up
  // Hudi's form: compaction.requested (the plan), compaction.inflight, then a commit.
  auto timeline = *table->Timeline();
  const auto& last = timeline.back();
  EXPECT_EQ(last.action, "commit");
  EXPECT_EQ(last.time, result->instant_time);
  EXPECT_TRUE(h.storage->Exists(".hoodie/timeline/" + last.time + ".compaction.requested").ValueOr(false));
  // Nothing is left to compact; a reopened table reads the same.
  auto again = table->Compact();
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_FALSE(again->scheduled);
  EXPECT_EQ(again->reason, "no file slice has log files");
  h.ExpectReadsUnchanged(*h.Open());
}

TEST(Compactor, TriggersOnDeltaCommitsOrLogBytes) {
  MorHistory h = MakeMorHistory();
  auto table = h.Open();
  CompactionOptions not_yet;
  not_yet.min_delta_commits = 5;  // four deltacommits so far
  auto skipped = table->Compact(not_yet);
  ASSERT_TRUE(skipped.ok()) << skipped.status();
  EXPECT_FALSE(skipped->scheduled);
  EXPECT_NE(skipped->reason.find("4 deltacommits"), std::string::npos) << skipped->reason;
  CompactionOptions by_bytes;
  by_bytes.min_log_bytes = 1;
  auto done = table->Compact(by_bytes);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_TRUE(done->completed);
  h.ExpectReadsUnchanged(*table);
}

TEST(Compactor, WritersKeepWritingWhileACompactionIsPendingAndNeverConflictWithIt) {
  MorHistory h = MakeMorHistory();
  auto table = h.Open();
  CompactionOptions schedule;
  schedule.schedule_only = true;
  auto scheduled = table->Compact(schedule);
  ASSERT_TRUE(scheduled.ok()) << scheduled.status();
  ASSERT_TRUE(scheduled->scheduled && !scheduled->completed);
  // A write after the plan: its log file is written beside the slice being compacted.
  h.Record(*table, table->Write(WriteOperation::kUpsert, PeopleReader({{1, "a4", 9, "x"}, {3, "c3", 9, "y"}})));
  // A rollback would delete files the plan reads: refused while it is pending.
  auto rollback = table->Rollback(h.as_of.rbegin()->first);
  EXPECT_TRUE(rollback.status().IsInvalid()) << rollback.status();
  h.ExpectReadsUnchanged(*table);
  // Another Table finishes the pending compaction; the write's log joins the new slice.
  auto other = h.Open();
  auto finished = other->Compact();
  ASSERT_TRUE(finished.ok()) << finished.status();
  EXPECT_EQ(finished->instant_time, scheduled->instant_time);
  EXPECT_TRUE(finished->completed && !finished->scheduled);
  h.ExpectReadsUnchanged(*table);
  // And a write after it, on the new slice.
  h.Record(*table, table->Write(WriteOperation::kUpsert, PeopleReader({{4, "d3", 9, "y"}})));
  h.ExpectReadsUnchanged(*other);
}

TEST(Compactor, RollingBackACompletedCompactionLeavesNothingPending) {
  MorHistory h = MakeMorHistory();
  auto table = h.Open();
  auto done = table->Compact();
  ASSERT_TRUE(done.ok()) << done.status();
  auto rollback = table->Rollback(done->instant_time);
  ASSERT_TRUE(rollback.ok()) << rollback.status();
  for (const auto& i : *table->Timeline()) EXPECT_EQ(i.state, "completed") << i.time << " " << i.action;
  EXPECT_FALSE(h.storage->Exists(".hoodie/timeline/" + done->instant_time + ".compaction.requested").ValueOr(true));
  h.ExpectReadsUnchanged(*table);
  // The slices have their log files again: the next compaction is a new one.
  auto again = table->Compact();
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->scheduled && again->completed);
  EXPECT_NE(again->instant_time, done->instant_time);
  h.ExpectReadsUnchanged(*table);
}

TEST(Compactor, ACopyOnWriteTableHasNothingToCompact) {
  testing::TempDir dir("compact_cow");
  auto table = *Table::Create(dir.path(), testing::PeopleConfig());
  EXPECT_TRUE(table->Compact().status().IsInvalid());
}

TEST(Compactor, EveryCrashPointLeavesReadsUnchangedAndTheNextCompactionFinishes) {
  // With a metadata table too: a crash between the compaction's metadata deltacommit and its
  // commit left a compaction no later call could finish.
  for (bool metadata_table : {false, true}) {
  SCOPED_TRACE(metadata_table ? "with a metadata table" : "without a metadata table");
  int64_t calls = 0;
  {
    MorHistory h = MakeMorHistory(metadata_table);
    auto counter = *FaultInjectionStorage::Make(h.storage, 0, FaultMode::kCrash);
    ASSERT_OK(h.Open(counter)->Compact().status());
    calls = counter->mutating_calls();
  }
  ASSERT_GT(calls, 4);
  for (int64_t k = 1; k <= calls; ++k) {
    SCOPED_TRACE("crash at mutating call " + std::to_string(k));
    MorHistory h = MakeMorHistory(metadata_table);
    auto faulty = *FaultInjectionStorage::Make(h.storage, k, FaultMode::kCrash);
    auto table = h.Open(faulty);
    ASSERT_NE(table, nullptr);
    // A crash after the commit point (while cleaning up) still returns the completed compaction.
    auto crashed = table->Compact();
    // A restarted process, once the crashed one's lock and heartbeat have expired, reads every
    // instant as before; its compaction finishes the crashed one and leaves no stray file.
    h.clock->Advance(3600 * 1000);
    auto restarted = h.Open();
    h.ExpectReadsUnchanged(*restarted);
    auto finished = restarted->Compact();
    ASSERT_TRUE(finished.ok()) << finished.status();
    EXPECT_NE(crashed.ok(), finished->completed);
    const std::string instant = crashed.ok() ? crashed->instant_time : finished->instant_time;
    ASSERT_FALSE(instant.empty());
    h.ExpectReadsUnchanged(*restarted);
    auto again = restarted->Compact();
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_FALSE(again->scheduled) << "everything was compacted";
    // A crashed attempt's files are gone: one base file per compacted slice at its time.
    int64_t bases_of_compaction = 0;
    for (const auto& f : DataFiles(*h.storage)) bases_of_compaction += f.find(instant) != std::string::npos;
    EXPECT_EQ(bases_of_compaction, 2) << "one new base file per compacted slice, no leftovers";
  }
  }
}

}  // namespace
}  // namespace lakeshore
