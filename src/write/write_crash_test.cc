// Crash tests of the write path: stop a write after each k-th mutating storage call, then
// check that readers see the last completed state, that the next write rolls the failed one
// back and succeeds, and that no data file is left that no completed commit references.
#include <atomic>
#include <iostream>
#include <set>

#include <gtest/gtest.h>

#include "lakeshore/storage/fault_injection_storage.h"
#include "lakeshore/table/table.h"
#include "table/hoodie_table_config.h"
#include "table/layout.h"
#include "testing/pass_through_storage.h"
#include "testing/table_test_util.h"
#include "timeline/instant_codec.h"
#include "timeline/markers.h"
#include "timeline/commit_metadata.h"
#include "timeline/instant_time.h"
#include "timeline/timeline.h"

namespace lakeshore {
namespace {
using testing::Person;
using testing::PeopleReader;
using testing::ReadPeople;
using Snapshot = std::map<std::pair<std::string, int64_t>, Person>;

constexpr int64_t kStartMs = 1767225600000;  // 2026-01-01
constexpr int64_t kLongAfterMs = 3600 * 1000;  // past every heartbeat and lock lease

std::atomic<int> table_counter{0};

struct Fixture : testing::ClockedStorage {
  Fixture() : ClockedStorage(kStartMs) {}
};

// A table with one committed upsert; returns it and its snapshot. A merge-on-read table packs
// no inserts into small files, so the second write's update becomes a log file.
Fixture MakeBaseline(Snapshot* baseline, TableType type = TableType::kCopyOnWrite) {
  Fixture f;
  f.uri = "mem://write_crash_" + std::to_string(table_counter++);
  f.inner = *Storage::Open(f.uri);
  auto config = testing::PeopleConfig();
  config.table_type = type;
  if (type == TableType::kMergeOnRead) config.properties["write.small_file_limit_bytes"] = "0";
  auto table = *Table::Create(f.uri, config, f.Options(f.inner));
  EXPECT_TRUE(table->Write(WriteOperation::kUpsert,
                           PeopleReader({{1, "a", 1, "x"}, {2, "b", 1, "x"}, {3, "c", 1, "y"}}))
                  .ok());
  *baseline = ReadPeople(*table);
  f.clock->Advance(10);
  return f;
}

// The write under test: updates in an existing group, inserts, a new partition; as an upsert
// or as an insert_overwrite (a replacecommit ending partition x's group).
std::shared_ptr<arrow::RecordBatchReader> SecondWrite() {
  return PeopleReader({{1, "a2", 2, "x"}, {4, "d", 1, "x"}, {5, "e", 1, "z"}});
}

// The table after the second write, from the baseline.
Snapshot AfterSecondWrite(Snapshot baseline, WriteOperation op) {
  if (op == WriteOperation::kInsertOverwrite) {
    for (auto it = baseline.begin(); it != baseline.end();) it = it->first.first == "x" ? baseline.erase(it) : ++it;
  }
  baseline[{"x", 1}] = {1, "a2", 2, "x"};
  baseline[{"x", 4}] = {4, "d", 1, "x"};
  baseline[{"z", 5}] = {5, "e", 1, "z"};
  return baseline;
}

// Every data file in storage is referenced by a completed commit.
void ExpectNoOrphanDataFiles(Storage& storage) {
  auto timeline = *Timeline::Load(storage);
  std::set<std::string> referenced;
  for (const auto& instant : timeline.CompletedByCompletionTime()) {
    auto meta = testing::ReadInstant(storage, instant);
    ASSERT_TRUE(meta.ok()) << meta.status();
    for (const auto& s : meta->write_stats) referenced.insert(s.path);
  }
  for (const auto& e : *storage.List("", true)) {
    if (e.path.rfind(".hoodie", 0) == 0 || e.is_dir) continue;
    if (BaseName(e.path) == HoodiePaths::kPartitionMetadataFile) continue;  // Hudi's, per partition
    EXPECT_TRUE(referenced.count(e.path)) << "orphan data file " << e.path;
  }
  EXPECT_TRUE(timeline.Pending().empty()) << "pending instants remain after recovery";
}

int64_t CountMutatingCalls(WriteOperation op = WriteOperation::kUpsert, TableType type = TableType::kCopyOnWrite) {
  Snapshot baseline;
  Fixture f = MakeBaseline(&baseline, type);
  auto faulty = *FaultInjectionStorage::Make(f.inner, 0, FaultMode::kCrash);
  auto table = *Table::Open(f.uri, f.Options(faulty));
  EXPECT_TRUE(table->Write(op, SecondWrite()).ok());
  return faulty->mutating_calls();
}

void RunCrashAt(int64_t k, FaultMode mode, WriteOperation op = WriteOperation::kUpsert,
                TableType type = TableType::kCopyOnWrite) {
  SCOPED_TRACE("k=" + std::to_string(k) + (mode == FaultMode::kCrash ? " crash" : " fail-once") + " " +
               WriteOperationName(op) + " " + TableTypeName(type));
  Snapshot baseline;
  Fixture f = MakeBaseline(&baseline, type);
  const Snapshot after = AfterSecondWrite(baseline, op);

  auto faulty = *FaultInjectionStorage::Make(f.inner, k, mode);
  auto writer = *Table::Open(f.uri, f.Options(faulty));
  auto result = writer->Write(op, SecondWrite());
  writer.reset();

  // A restarted process sees the last completed state: before or after, never a mix.
  auto reader = *Table::Open(f.uri, f.Options(f.inner));
  Snapshot seen = ReadPeople(*reader);
  bool committed = seen == after;
  EXPECT_TRUE(committed || seen == baseline);
  if (result.ok()) EXPECT_TRUE(committed) << "a write that returned OK must be visible";

  // A crash after the writer decided "commit" (its commit point, write/commit_decision.h) leaves
  // a committed write that the next writer completes (rolls forward); any other crash leaves a
  // failed write that the next writer rolls back.
  bool decided = false;
  for (const auto& e : *f.inner->List(layout::kDecisionDir, false)) {
    decided = decided || (*f.inner->ReadString(e.path)).rfind("commit ", 0) == 0;
  }
  // Later, the next writer recovers what failed and commits.
  f.clock->Advance(kLongAfterMs);
  auto next = reader->Write(WriteOperation::kUpsert, PeopleReader({{6, "f", 1, "y"}}));
  ASSERT_TRUE(next.ok()) << next.status();
  Snapshot expected = committed || decided ? after : baseline;
  expected[{"y", 6}] = {6, "f", 1, "y"};
  EXPECT_EQ(ReadPeople(*reader), expected);
  ExpectNoOrphanDataFiles(*f.inner);
}

TEST(WriteCrash, EveryCrashPointRecovers) {
  int64_t n = CountMutatingCalls();
  ASSERT_GT(n, 5);
  std::cout << "write under test makes " << n << " mutating storage calls\n";
  for (int64_t k = 1; k <= n + 1; ++k) RunCrashAt(k, FaultMode::kCrash);
}

TEST(WriteCrash, EveryFailurePointRecovers) {
  int64_t n = CountMutatingCalls();
  for (int64_t k = 1; k <= n + 1; ++k) RunCrashAt(k, FaultMode::kFailOnce);
}

TEST(WriteCrash, EveryCrashPointOfAnInsertOverwriteRecovers) {
  // The replacecommit's own files (its requested replace metadata, the replaced file ids in the
  // completed instant) recover as a commit's do: before or after, never a mix.
  int64_t n = CountMutatingCalls(WriteOperation::kInsertOverwrite);
  ASSERT_GT(n, 5);
  for (int64_t k = 1; k <= n + 1; ++k) RunCrashAt(k, FaultMode::kCrash, WriteOperation::kInsertOverwrite);
}

TEST(WriteCrash, EveryCrashAndFailurePointOfAMergeOnReadDeltaCommitRecovers) {
  // The deltacommit's log file (an update of group x) and new base files (inserts) are rolled
  // back, or rolled forward, as a commit's files are.
  int64_t n = CountMutatingCalls(WriteOperation::kUpsert, TableType::kMergeOnRead);
  ASSERT_GT(n, 5);
  for (int64_t k = 1; k <= n + 1; ++k) {
    RunCrashAt(k, FaultMode::kCrash, WriteOperation::kUpsert, TableType::kMergeOnRead);
    RunCrashAt(k, FaultMode::kFailOnce, WriteOperation::kUpsert, TableType::kMergeOnRead);
  }
}

// A write that crashed past its commit decision is completed (rolled forward) by the next
// writer. A rollback of the write before it, or an index build, run first used to ignore it:
// the rollback undid W, then the roll forward brought W's values back in the files the decided
// write had rewritten; the index missed the decided write's keys, and the next upsert stored
// them again.
TEST(WriteCrash, RollbackAndIndexBuildCompleteADecidedWriteFirst) {
  const int64_t n = CountMutatingCalls();
  int decided_cases = 0;
  for (int64_t k = 1; k <= n; ++k) {
    SCOPED_TRACE("k=" + std::to_string(k));
    for (const bool build_index : {false, true}) {
      Snapshot baseline;
      Fixture f = MakeBaseline(&baseline);
      const Snapshot after = AfterSecondWrite(baseline, WriteOperation::kUpsert);
      {
        auto faulty = *FaultInjectionStorage::Make(f.inner, k, FaultMode::kCrash);
        auto writer = *Table::Open(f.uri, f.Options(faulty));
        (void)writer->Write(WriteOperation::kUpsert, SecondWrite());
      }
      auto timeline = *Timeline::Load(*f.inner);
      bool decided = false;
      for (const auto& e : *f.inner->List(layout::kDecisionDir, false)) {
        decided = decided || (*f.inner->ReadString(e.path)).rfind("commit ", 0) == 0;
      }
      if (!decided || timeline.CompletedByCompletionTime().size() != 1) continue;
      ++decided_cases;
      const std::string first = timeline.CompletedByCompletionTime().front().time;
      f.clock->Advance(kLongAfterMs);  // the crashed writer's lock lease and heartbeat run out
      auto table = *Table::Open(f.uri, f.Options(f.inner));
      if (build_index) {
        const Status built = table->CreateIndex("record_index");
        ASSERT_TRUE(built.ok()) << built;
        auto found = table->Lookup(testing::KeysReader({{4, "x"}, {5, "z"}}));
        ASSERT_TRUE(found.ok()) << found.status();
        EXPECT_EQ((*found)->GetColumnByName("file_id")->null_count(), 0) << "the index misses the decided write";
      } else {
        auto rolled = table->Rollback(first);
        EXPECT_FALSE(rolled.ok()) << "the decided write completed first: it is the latest write";
      }
      EXPECT_EQ(ReadPeople(*table), after);
    }
  }
  EXPECT_GT(decided_cases, 0);
}

TEST(WriteCrash, LiveWriterIsNotRolledBack) {
  // A pending write whose heartbeat is fresh belongs to a live writer: another writer must not
  // roll it back.
  Snapshot baseline;
  Fixture f = MakeBaseline(&baseline);
  auto faulty = *FaultInjectionStorage::Make(f.inner, 0, FaultMode::kCrash);
  auto slow = *Table::Open(f.uri, f.Options(faulty));
  auto other = *Table::Open(f.uri, f.Options(f.inner));
  WriteOptions options;
  std::vector<std::string> rolled_back_by_other;
  bool fired = false;
  options.progress = [&](const Progress& p) {
    if (p.phase == "writing" && !fired) {
      fired = true;
      auto r = other->Write(WriteOperation::kUpsert, PeopleReader({{7, "g", 1, "w"}}));
      ASSERT_TRUE(r.ok()) << r.status();
      rolled_back_by_other = r->rolled_back_instants;
    }
  };
  auto r = slow->Write(WriteOperation::kUpsert, SecondWrite(), options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(rolled_back_by_other.empty());
  EXPECT_EQ(ReadPeople(*other).size(), baseline.size() + 3);
}

}  // namespace
}  // namespace lakeshore

namespace lakeshore {
namespace {

// A writer that stalls past its heartbeat is rolled back by another writer; when it resumes it
// must not commit (its files are gone), and the table stays consistent.
TEST(WriteRecovery, StalledWriterRolledBackByAnotherCannotCommit) {
  Snapshot baseline;
  Fixture f = MakeBaseline(&baseline);
  auto stalled = *Table::Open(f.uri, f.Options(f.inner));
  auto other = *Table::Open(f.uri, f.Options(f.inner));
  WriteOptions options;
  bool fired = false;
  std::vector<std::string> rolled_back;
  options.progress = [&](const Progress& p) {
    if (p.phase == "committing" && p.done == 0 && !fired) {
      fired = true;
      f.clock->Advance(kLongAfterMs);  // the stalled writer's heartbeat is now expired
      auto r = other->Write(WriteOperation::kUpsert, PeopleReader({{7, "g", 1, "w"}}));
      ASSERT_TRUE(r.ok()) << r.status();
      rolled_back = r->rolled_back_instants;
    }
  };
  auto r = stalled->Write(WriteOperation::kUpsert, SecondWrite(), options);
  EXPECT_TRUE(IsError(r.status(), ErrorKind::kCommitConflict)) << r.status();
  EXPECT_EQ(rolled_back.size(), 1u);
  Snapshot expected = baseline;
  expected[{"w", 7}] = {7, "g", 1, "w"};
  EXPECT_EQ(ReadPeople(*other), expected);
  ExpectNoOrphanDataFiles(*f.inner);
}

// A rollback that was started (and interrupted) for a write dooms it: the write must refuse to
// commit, and the next writer finishes the rollback.
TEST(WriteRecovery, PendingRollbackNamingAWriteBlocksItsCommit) {
  Snapshot baseline;
  Fixture f = MakeBaseline(&baseline);
  auto writer = *Table::Open(f.uri, f.Options(f.inner));
  WriteOptions options;
  bool fired = false;
  options.progress = [&](const Progress& p) {
    if (p.phase == "committing" && p.done == 0 && !fired) {
      fired = true;
      auto timeline = *Timeline::Load(*f.inner);
      auto self = timeline.Pending().back();
      CommitMetadata plan;
      plan.operation = "rollback";
      auto markers = ReadMarkers(*f.inner, self.time);
      ASSERT_TRUE(markers.ok());
      for (const auto& m : *markers) plan.planned_files.push_back(m.path);
      plan.rollback = RollbackRecord{Instant{self.time, self.action, InstantState::kRequested, ""}};
      Instant rollback{FormatInstantTime(f.clock->NowMs() + 5), actions::kRollback};
      auto bytes = InstantCodec{TimelineLayout::kV2, f.inner->ExternalPath("")}.Encode(rollback, plan);
      ASSERT_TRUE(bytes.ok()) << bytes.status();
      ASSERT_TRUE(timeline_ops::CreateRequested(*f.inner, testing::TableTimeline(), rollback, *bytes).ok());
    }
  };
  auto r = writer->Write(WriteOperation::kUpsert, SecondWrite(), options);
  EXPECT_TRUE(IsError(r.status(), ErrorKind::kCommitConflict)) << r.status();
  f.clock->Advance(kLongAfterMs);
  auto next = writer->Write(WriteOperation::kUpsert, PeopleReader({{8, "h", 1, "w"}}));
  ASSERT_TRUE(next.ok()) << next.status();
  Snapshot expected = baseline;
  expected[{"w", 8}] = {8, "h", 1, "w"};
  EXPECT_EQ(ReadPeople(*writer), expected);
  ExpectNoOrphanDataFiles(*f.inner);
}

}  // namespace
}  // namespace lakeshore

namespace lakeshore {
namespace {

/// Storage that runs `hook` once, just before the first put-if-absent whose path `when`
/// accepts: a writer "pausing" at exactly that point while others act.
class PauseAtPut : public testing::PassThroughStorage {
 public:
  PauseAtPut(std::shared_ptr<Storage> inner, std::function<bool(const std::string&)> when, std::function<void()> hook)
      : PassThroughStorage(std::move(inner)), when_(std::move(when)), hook_(std::move(hook)) {}
  Result<bool> PutIfAbsent(std::string_view p, std::shared_ptr<arrow::Buffer> d) override {
    if (!fired_ && when_(std::string(p))) {
      fired_ = true;
      hook_();
    }
    return inner_->PutIfAbsent(p, d);
  }

 private:
  std::function<bool(const std::string&)> when_;
  std::function<void()> hook_;
  bool fired_ = false;
};

// The acknowledged write that was lost: a writer pauses at its commit point (after its checks
// and its "commit" decision, before its completed instant file) longer than its lease and
// heartbeat; another writer recovers the table meanwhile. The paused write must end committed
// and readable (rolled forward), never rolled back under a success report.
TEST(WriteRecovery, AWriterPausedAtItsCommitPointIsRolledForwardNotLost) {
  Snapshot baseline;
  Fixture f = MakeBaseline(&baseline);
  auto other = *Table::Open(f.uri, f.Options(f.inner));
  std::vector<std::string> rolled_back;
  auto completed_file = [](const std::string& p) {
    return p.rfind(".hoodie/timeline/", 0) == 0 && p.find('_') != std::string::npos &&
           p.size() > 7 && p.compare(p.size() - 7, 7, ".commit") == 0;
  };
  auto paused_storage = std::make_shared<PauseAtPut>(f.inner, completed_file, [&] {
    // The completed instant file (`<t>_<completion>.commit`) is next: the writer has made its
    // checks and its decision.
    f.clock->Advance(kLongAfterMs);
    auto r = other->Write(WriteOperation::kUpsert, PeopleReader({{7, "g", 1, "w"}}));
    ASSERT_TRUE(r.ok()) << r.status();
    rolled_back = r->rolled_back_instants;
  });
  auto paused = *Table::Open(f.uri, f.Options(paused_storage));
  auto r = paused->Write(WriteOperation::kUpsert, SecondWrite());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(rolled_back.empty());
  Snapshot expected = baseline;
  expected[{"x", 1}] = {1, "a2", 2, "x"};
  expected[{"x", 4}] = {4, "d", 1, "x"};
  expected[{"z", 5}] = {5, "e", 1, "z"};
  expected[{"w", 7}] = {7, "g", 1, "w"};
  EXPECT_EQ(ReadPeople(*other), expected);
  ReadOptions as_of;
  as_of.as_of = r->instant_time;
  EXPECT_TRUE(other->Read(as_of).ok());
  ExpectNoOrphanDataFiles(*f.inner);
}

// The other order: the rollback decides first (the writer paused just before its decision);
// the writer then reports the conflict, and nothing of it is visible.
TEST(WriteRecovery, AWriterRolledBackBeforeItsDecisionReportsFailure) {
  Snapshot baseline;
  Fixture f = MakeBaseline(&baseline);
  auto other = *Table::Open(f.uri, f.Options(f.inner));
  std::vector<std::string> rolled_back;
  auto decision_file = [](const std::string& p) { return p.rfind(layout::kDecisionDir, 0) == 0; };
  auto paused_storage = std::make_shared<PauseAtPut>(f.inner, decision_file, [&] {
    f.clock->Advance(kLongAfterMs);
    auto r = other->Write(WriteOperation::kUpsert, PeopleReader({{7, "g", 1, "w"}}));
    ASSERT_TRUE(r.ok()) << r.status();
    rolled_back = r->rolled_back_instants;
  });
  auto paused = *Table::Open(f.uri, f.Options(paused_storage));
  auto r = paused->Write(WriteOperation::kUpsert, SecondWrite());
  EXPECT_TRUE(IsError(r.status(), ErrorKind::kCommitConflict)) << r.status();
  EXPECT_EQ(rolled_back.size(), 1u);
  Snapshot expected = baseline;
  expected[{"w", 7}] = {7, "g", 1, "w"};
  EXPECT_EQ(ReadPeople(*other), expected);
  ExpectNoOrphanDataFiles(*f.inner);
}

/// Storage on which a pending instant's inflight file vanishes right when it is read, as when its
/// writer aborts (a commit conflict) between another writer's listing and its read.
class VanishOnRead : public PauseAtPut {
 public:
  explicit VanishOnRead(std::shared_ptr<Storage> inner)
      : PauseAtPut(inner, [](const std::string&) { return false; }, [] {}), inner_(std::move(inner)) {}
  Result<std::shared_ptr<arrow::Buffer>> ReadFile(std::string_view p) override {
    const std::string path(p);
    if (path.rfind(".hoodie/timeline/", 0) == 0 && path.size() > 9 &&
        path.compare(path.size() - 9, 9, ".inflight") == 0) {
      ARROW_RETURN_NOT_OK(inner_->DeleteFiles({path}).status());
    }
    return inner_->ReadFile(p);
  }

 private:
  std::shared_ptr<Storage> inner_;
};

TEST(WriteRecovery, APendingInstantThatVanishesWhileBeingReadIsNotAnError) {
  Snapshot baseline;
  Fixture f = MakeBaseline(&baseline);
  // A writer that dies after its inflight file and markers (10 mutating calls in).
  auto crashing = *FaultInjectionStorage::Make(f.inner, 10, FaultMode::kCrash);
  auto dead = *Table::Open(f.uri, f.Options(crashing));
  EXPECT_FALSE(dead->Write(WriteOperation::kUpsert, SecondWrite()).ok());
  f.clock->Advance(kLongAfterMs);
  auto next = *Table::Open(f.uri, f.Options(std::make_shared<VanishOnRead>(f.inner)));
  auto r = next->Write(WriteOperation::kUpsert, PeopleReader({{7, "g", 1, "w"}}));
  ASSERT_TRUE(r.ok()) << r.status();
  Snapshot expected = baseline;
  expected[{"w", 7}] = {7, "g", 1, "w"};
  EXPECT_EQ(ReadPeople(*next), expected);
  ExpectNoOrphanDataFiles(*f.inner);
}

}  // namespace
}  // namespace lakeshore

namespace lakeshore {
namespace {

TEST(RollbackCrash, RollingBackTheLatestWriteIsAllOrNothingAtEveryCrashPoint) {
  // The write rolled back: the second write of the crash tests, on the baseline.
  auto make = [](Snapshot* baseline, Snapshot* written, std::string* instant) {
    Fixture f = MakeBaseline(baseline);
    auto table = *Table::Open(f.uri, f.Options(f.inner));
    auto r = table->Write(WriteOperation::kUpsert, SecondWrite());
    EXPECT_TRUE(r.ok()) << r.status();
    *instant = r->instant_time;
    *written = ReadPeople(*table);
    f.clock->Advance(10);
    return f;
  };
  int64_t calls = 0;
  {
    Snapshot baseline, written;
    std::string instant;
    Fixture f = make(&baseline, &written, &instant);
    auto counter = *FaultInjectionStorage::Make(f.inner, 0, FaultMode::kCrash);
    auto table = *Table::Open(f.uri, f.Options(counter));
    ASSERT_TRUE(table->Rollback(instant).ok());
    EXPECT_EQ(ReadPeople(*table), baseline);
    calls = counter->mutating_calls();
    ExpectNoOrphanDataFiles(*f.inner);
  }
  ASSERT_GT(calls, 3);
  for (int64_t k = 1; k <= calls; ++k) {
    SCOPED_TRACE("crash at mutating call " + std::to_string(k));
    Snapshot baseline, written;
    std::string instant;
    Fixture f = make(&baseline, &written, &instant);
    auto faulty = *FaultInjectionStorage::Make(f.inner, k, FaultMode::kCrash);
    (void)(*Table::Open(f.uri, f.Options(faulty)))->Rollback(instant);
    // A restarted process sees the write whole or not at all; the next writer finishes the job.
    auto reader = *Table::Open(f.uri, f.Options(f.inner));
    Snapshot seen = ReadPeople(*reader);
    EXPECT_TRUE(seen == baseline || seen == written);
    f.clock->Advance(kLongAfterMs);
    ASSERT_TRUE(reader->Write(WriteOperation::kUpsert, PeopleReader({{6, "f", 1, "y"}})).ok());
    Snapshot expected = seen;
    expected[{"y", 6}] = {6, "f", 1, "y"};
    EXPECT_EQ(ReadPeople(*reader), expected);
    ExpectNoOrphanDataFiles(*f.inner);
  }
}

TEST(Rollback, OnlyTheLatestWriteAndNotASavepointedOne) {
  Snapshot baseline;
  Fixture f = MakeBaseline(&baseline);
  auto table = *Table::Open(f.uri, f.Options(f.inner));
  const std::string first = (*table->Timeline())[0].time;
  auto second = table->Write(WriteOperation::kUpsert, SecondWrite());
  ASSERT_TRUE(second.ok());
  auto refused = table->Rollback(first);
  EXPECT_TRUE(refused.status().IsInvalid()) << refused.status();
  EXPECT_NE(refused.status().message().find("only the latest"), std::string::npos);
  ASSERT_TRUE(table->CreateSavepoint(second->instant_time).ok());
  EXPECT_TRUE(table->Rollback(second->instant_time).status().IsInvalid());
  ASSERT_TRUE(table->DeleteSavepoint(second->instant_time).ok());
  ASSERT_TRUE(table->Rollback(second->instant_time).ok());
  EXPECT_EQ(ReadPeople(*table), baseline);
  // Then the first is the latest.
  ASSERT_TRUE(table->Rollback(first).ok());
  EXPECT_TRUE(ReadPeople(*table).empty());
  EXPECT_TRUE(table->Rollback("20000101000000000").status().IsInvalid());
}

}  // namespace
}  // namespace lakeshore

namespace lakeshore {
namespace {

// A table with a savepoint after the baseline and three later writes (an upsert, an
// insert_overwrite, and a failed write left pending), and what it read at the savepoint.
struct RestoreScenario {
  Fixture f;
  Snapshot at_savepoint;
  Snapshot latest;
  std::string savepoint;
};

RestoreScenario MakeRestoreScenario() {
  RestoreScenario s;
  s.f = MakeBaseline(&s.at_savepoint);
  auto table = *Table::Open(s.f.uri, s.f.Options(s.f.inner));
  s.savepoint = (*table->Timeline())[0].time;
  EXPECT_TRUE(table->CreateSavepoint(s.savepoint).ok());
  EXPECT_TRUE(table->Write(WriteOperation::kUpsert, SecondWrite()).ok());
  EXPECT_TRUE(table->Write(WriteOperation::kInsertOverwrite, PeopleReader({{9, "i", 1, "x"}})).ok());
  // A writer that crashes at its 4th mutating call leaves a pending instant behind.
  auto crashing = *FaultInjectionStorage::Make(s.f.inner, 4, FaultMode::kCrash);
  (void)(*Table::Open(s.f.uri, s.f.Options(crashing)))->Write(WriteOperation::kUpsert, PeopleReader({{7, "g", 1, "y"}}));
  s.latest = ReadPeople(*table);
  s.f.clock->Advance(kLongAfterMs);  // the crashed writer's heartbeat expires
  return s;
}

TEST(Restore, RollsBackEveryLaterWriteNewestFirst) {
  RestoreScenario s = MakeRestoreScenario();
  auto table = *Table::Open(s.f.uri, s.f.Options(s.f.inner));
  EXPECT_NE(s.latest, s.at_savepoint);
  auto restore = table->Restore(s.savepoint);
  ASSERT_TRUE(restore.ok()) << restore.status();
  EXPECT_EQ(ReadPeople(*table), s.at_savepoint);
  ExpectNoOrphanDataFiles(*s.f.inner);
  int restores = 0, rollbacks = 0;
  for (const auto& i : *table->Timeline()) {
    restores += i.action == "restore" && i.state == "completed";
    rollbacks += i.action == "rollback" && i.state == "completed";
  }
  EXPECT_EQ(restores, 1);
  EXPECT_EQ(rollbacks, 3);
  EXPECT_TRUE(table->Restore("20000101000000000").status().IsInvalid());
  // The table goes on from there.
  ASSERT_TRUE(table->Write(WriteOperation::kUpsert, PeopleReader({{6, "f", 1, "y"}})).ok());
  EXPECT_EQ(ReadPeople(*table).size(), s.at_savepoint.size() + 1);
}

TEST(RestoreCrash, EveryCrashPointEndsRestoredOnceRecovered) {
  int64_t calls = 0;
  {
    RestoreScenario s = MakeRestoreScenario();
    auto counter = *FaultInjectionStorage::Make(s.f.inner, 0, FaultMode::kCrash);
    ASSERT_TRUE((*Table::Open(s.f.uri, s.f.Options(counter)))->Restore(s.savepoint).ok());
    calls = counter->mutating_calls();
  }
  ASSERT_GT(calls, 5);
  for (int64_t k = 1; k <= calls; ++k) {
    SCOPED_TRACE("crash at mutating call " + std::to_string(k));
    RestoreScenario s = MakeRestoreScenario();
    auto faulty = *FaultInjectionStorage::Make(s.f.inner, k, FaultMode::kCrash);
    (void)(*Table::Open(s.f.uri, s.f.Options(faulty)))->Restore(s.savepoint);
    bool requested = false;
    for (const auto& e : *s.f.inner->List(".hoodie/timeline", false)) {
      requested = requested || BaseName(e.path).find(".restore.requested") != std::string::npos;
    }
    // Readers see a table as of some instant; the next writer finishes what the restore began.
    auto reader = *Table::Open(s.f.uri, s.f.Options(s.f.inner));
    (void)ReadPeople(*reader);
    s.f.clock->Advance(kLongAfterMs);
    ASSERT_TRUE(reader->Write(WriteOperation::kUpsert, PeopleReader({{6, "f", 1, "y"}})).ok());
    Snapshot expected = requested ? s.at_savepoint : s.latest;
    expected[{"y", 6}] = {6, "f", 1, "y"};
    EXPECT_EQ(ReadPeople(*reader), expected);
    ExpectNoOrphanDataFiles(*s.f.inner);
  }
}

}  // namespace
}  // namespace lakeshore
