// VACUUM of Hudi tables written through the table API.
#include <filesystem>

#include <gtest/gtest.h>

#include "lakeshore/storage/fault_injection_storage.h"
#include "lakeshore/table/table.h"
#include "lakeshore/vacuum.h"
#include "services/vacuum/hudi_vacuum_record.h"
#include "table/layout.h"
#include "testing/table_test_util.h"
#include "timeline/instant_codec.h"
#include "timeline/instant_time.h"
#include "timeline/markers.h"
#include "testing/pass_through_storage.h"
#include "timeline/timeline.h"

namespace lakeshore {
namespace {

constexpr int64_t kDayMs = 24LL * 3600 * 1000;

/// A completed instant file with `metadata`, in Hudi's encoding.
void WriteCompleted(Storage& storage, const Instant& instant, const CommitMetadata& metadata) {
  auto bytes = InstantCodec{TimelineLayout::kV2, storage.ExternalPath("")}.Encode(instant, metadata);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  ASSERT_TRUE(storage.WriteString(testing::TableTimeline().PathOf(instant), *bytes).ok());
}

/// A pending commit (requested and inflight) planning `files`, with its markers.
void WritePending(Storage& storage, const std::string& time, const std::vector<std::string>& files) {
  CommitMetadata plan;
  plan.operation = "upsert";
  plan.planned_files = files;
  Instant instant{time, actions::kCommit, InstantState::kRequested};
  ASSERT_TRUE(storage.WriteString(testing::TableTimeline().PathOf(instant), "").ok());
  instant.state = InstantState::kInflight;
  auto bytes = InstantCodec{TimelineLayout::kV2, storage.ExternalPath("")}.Encode(instant, plan);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  ASSERT_TRUE(storage.WriteString(testing::TableTimeline().PathOf(instant), *bytes).ok());
  std::vector<Marker> markers;
  for (const auto& f : files) markers.push_back({f, MarkerType::kCreate});
  ASSERT_TRUE(WriteMarkers(storage, time, markers).ok());
}

struct HudiScenario {
  explicit HudiScenario(const std::string& name) : dir(name) {
    table = *Table::Create(dir.path(), testing::PeopleConfig());
    storage = *Storage::Open(dir.path());
    clock = std::make_shared<ManualClock>(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count() +
        10 * kDayMs);  // ten days after every file the test writes
  }
  void Upsert(const std::vector<testing::Person>& rows) {
    auto r = table->Write(WriteOperation::kUpsert, testing::PeopleReader(rows));
    ASSERT_TRUE(r.ok()) << r.status();
  }
  Result<VacuumReport> Vacuum(VacuumOptions o = {}) {
    o.clock = clock;
    return lakeshore::Vacuum(dir.path(), o);
  }
  bool Exists(const std::string& p) const { return std::filesystem::exists(dir.path() + "/" + p); }
  const TimelineLocation& Timeline() const { return testing::TableTimeline(); }
  std::vector<std::string> Files() { return *table->Files(); }

  testing::TempDir dir;
  std::shared_ptr<Table> table;
  std::shared_ptr<Storage> storage;
  std::shared_ptr<ManualClock> clock;
};

TEST(HudiVacuum, DeletesOnlyUntrackedOldFilesAndRecordsAnInstant) {
  HudiScenario s("ls_vacuum_full");
  s.Upsert({{1, "a", 1, "x"}, {2, "b", 1, "y"}});
  s.Upsert({{1, "a2", 2, "x"}});  // a new slice in x; the old one stays (time travel)
  ASSERT_TRUE(s.storage->WriteString("part=x/orphan.parquet", "junk").ok());
  ASSERT_TRUE(s.storage->WriteString("part=z/stray.parquet", "junk2").ok());
  ASSERT_TRUE(s.storage->WriteString(".hoodie/.aux/lakeshore/sidecar.json", "{}").ok());
  auto before = testing::ReadPeople(*s.table);
  std::vector<std::string> all_slices;
  for (const auto& e : *s.storage->List("part=x", true)) all_slices.push_back(e.path);

  VacuumOptions dry;
  dry.dry_run = true;
  auto d = s.Vacuum(dry);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->format, "hudi");
  ASSERT_EQ(d->candidates.size(), 2u);
  EXPECT_EQ(d->candidates[0].path, "part=x/orphan.parquet");
  EXPECT_EQ(d->candidates[1].path, "part=z/stray.parquet");

  auto r = s.Vacuum();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->files_deleted, 2);
  EXPECT_EQ(r->dirs_deleted, 1);  // part=z
  EXPECT_FALSE(s.Exists("part=x/orphan.parquet"));
  EXPECT_FALSE(s.Exists("part=z"));
  EXPECT_TRUE(s.Exists(".hoodie/.aux/lakeshore/sidecar.json"));
  for (const auto& p : all_slices) {
    if (p != "part=x/orphan.parquet") EXPECT_TRUE(s.Exists(p)) << p;  // older slices too
  }
  EXPECT_EQ(testing::ReadPeople(*s.table), before);
  // The vacuum instant is on vacuum's own timeline, never on Hudi's.
  auto vacuums = *Timeline::Load(*s.storage, TimelineLocation{layout::kVacuumTimelineDir, TimelineLayout::kV2});
  ASSERT_EQ(vacuums.instants().size(), 1u);
  EXPECT_EQ(vacuums.instants().back().action, "vacuum");
  EXPECT_TRUE(vacuums.instants().back().is_completed());
  for (const auto& i : (*Timeline::Load(*s.storage)).instants()) EXPECT_NE(i.action, "vacuum");
}

TEST(HudiVacuum, YoungFilesAndPendingWritersAreSafe) {
  HudiScenario s("ls_vacuum_young");
  s.Upsert({{1, "a", 1, "x"}});
  s.clock->Set(s.clock->NowMs() - 10 * kDayMs);  // now: every file is young
  ASSERT_TRUE(s.storage->WriteString("part=x/young.parquet", "junk").ok());
  auto r = s.Vacuum();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->files_deleted, 0);
  EXPECT_TRUE(s.Exists("part=x/young.parquet"));
  // An in-flight writer's planned file is live however old it is.
  HudiScenario p("ls_vacuum_pending");
  p.Upsert({{1, "a", 1, "x"}});
  // Two in-flight writers that started a day ago (their heartbeats are the writers' business).
  const std::string t1 = FormatInstantTime(p.clock->NowMs() - kDayMs);
  const std::string t2 = FormatInstantTime(p.clock->NowMs() - kDayMs + 1);
  const std::string planned = "part=x/f1-0_0-1-1_" + t1 + ".parquet";
  WritePending(*p.storage, t1, {planned});
  ASSERT_TRUE(p.storage->WriteString(planned, "in progress").ok());
  // Known only by its marker (a Hudi writer's inflight file names no paths).
  const std::string marked = "part=x/f2-0_0-1-1_" + t2 + ".parquet";
  ASSERT_TRUE(WriteMarkers(*p.storage, t2, {{marked, MarkerType::kCreate}}).ok());
  ASSERT_TRUE(p.storage->WriteString(p.Timeline().PathOf(Instant{t2, "commit", InstantState::kRequested}), "").ok());
  ASSERT_TRUE(p.storage->WriteString(marked, "in progress").ok());
  auto r2 = p.Vacuum();
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_TRUE(p.Exists(planned));
  EXPECT_TRUE(p.Exists(marked));
}

TEST(HudiVacuum, RetentionCheckAndOptimisticSkip) {
  HudiScenario s("ls_vacuum_optimistic");
  s.Upsert({{1, "a", 1, "x"}});
  VacuumOptions short_retention;
  short_retention.retain_hours = 1;
  EXPECT_TRUE(IsError(s.Vacuum(short_retention).status(), ErrorKind::kRetentionViolation));
  VacuumOptions o;
  o.optimistic = true;
  auto first = s.Vacuum(o);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_FALSE(first->skipped);
  auto second = s.Vacuum(o);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->skipped) << second->skip_reason;
  EXPECT_EQ(second->files_listed, 0);
  s.Upsert({{2, "b", 1, "x"}});  // a clean write: nothing can have become deletable
  auto third = s.Vacuum(o);
  ASSERT_TRUE(third.ok());
  EXPECT_TRUE(third->skipped) << third->skip_reason;
  // A crashed writer rolled back by the next one: run.
  WritePending(*s.storage, "20000101000000000", {"part=x/f9-0_0-1-1_20000101000000000.parquet"});
  auto rolled = s.table->RollbackFailedWrites();
  ASSERT_TRUE(rolled.ok()) << rolled.status();
  ASSERT_EQ(rolled->size(), 1u);
  auto fourth = s.Vacuum(o);
  ASSERT_TRUE(fourth.ok());
  EXPECT_FALSE(fourth->skipped);
  EXPECT_NE(fourth->skip_reason.find("rollback"), std::string::npos) << fourth->skip_reason;
}

TEST(HudiVacuum, LiteFindsLeftoverPlannedFiles) {
  HudiScenario s("ls_vacuum_lite");
  s.Upsert({{1, "a", 1, "x"}});
  // A completed rollback named a file that a zombie task of the rolled-back write wrote after
  // the rollback had deleted it.
  const std::string leftover = "part=x/f9-0_0-1-1_20000101000000000.parquet";
  ASSERT_TRUE(s.storage->WriteString(leftover, "junk").ok());
  CommitMetadata done;
  done.operation = "rollback";
  done.planned_files = {leftover};
  done.rollback = RollbackRecord{Instant{"20000101000000000", actions::kCommit, InstantState::kCompleted, ""}};
  WriteCompleted(*s.storage, Instant{"20000101000000001", actions::kRollback, InstantState::kCompleted, "20000101000000002"}, done);
  ASSERT_TRUE(s.storage->WriteString("part=x/untracked.parquet", "junk").ok());
  VacuumOptions lite;
  lite.mode = VacuumMode::kLite;
  auto r = s.Vacuum(lite);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->files_listed, 0);
  ASSERT_EQ(r->candidates.size(), 1u);
  EXPECT_EQ(r->candidates[0].path, leftover);
  EXPECT_FALSE(s.Exists(leftover));
  EXPECT_TRUE(s.Exists("part=x/untracked.parquet"));  // lite never lists
}

TEST(HudiVacuum, CorruptTimelineDeletesNothing) {
  HudiScenario s("ls_vacuum_corrupt");
  s.Upsert({{1, "a", 1, "x"}});
  ASSERT_TRUE(s.storage->WriteString("part=x/orphan.parquet", "junk").ok());
  ASSERT_TRUE(s.storage->WriteString(".hoodie/timeline/20000101000000000_20000101000000001.commit", "{\"operation\":").ok());
  auto r = s.Vacuum();
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsError(r.status(), ErrorKind::kCorruptMetadata)) << r.status();
  EXPECT_TRUE(s.Exists("part=x/orphan.parquet"));
  WriteCompleted(*s.storage, Instant{"20000101000000000", actions::kCommit, InstantState::kCompleted, "20000101000000001"},
                 CommitMetadata{});
  // A damaged archived timeline: its manifest is named, and nothing is deleted (files only an
  // archived commit names would look untracked without it).
  ASSERT_TRUE(s.storage->WriteString(".hoodie/timeline/history/_version_", "1").ok());
  ASSERT_TRUE(s.storage->WriteString(".hoodie/timeline/history/manifest_1", "{\"files\":[{\"fileName\":").ok());
  auto archive = s.Vacuum();
  EXPECT_TRUE(IsError(archive.status(), ErrorKind::kCorruptMetadata)) << archive.status();
  EXPECT_NE(archive.status().message().find("manifest_1"), std::string::npos) << archive.status();
  EXPECT_TRUE(s.Exists("part=x/orphan.parquet"));
  // A manifest naming a data file that is not there: the same.
  ASSERT_TRUE(s.storage->WriteString(".hoodie/timeline/history/manifest_1",
                                     "{\"files\":[{\"fileName\":\"20000101000000000_20000101000000000_0.parquet\",\"fileLen\":1}]}").ok());
  EXPECT_TRUE(IsError(s.Vacuum().status(), ErrorKind::kCorruptMetadata));
  EXPECT_TRUE(s.Exists("part=x/orphan.parquet"));
  ASSERT_TRUE(s.storage->DeleteFiles({".hoodie/timeline/history/_version_", ".hoodie/timeline/history/manifest_1"}).ok());
  // A damaged vacuum record (vacuum's own timeline): named, and nothing deleted.
  ASSERT_TRUE(s.storage->WriteString(std::string(layout::kVacuumTimelineDir) + "/20000101000000002_20000101000000003.vacuum",
                                     "{\"mode\":\"full\",\"cutoff_ms\":\"soon\"}").ok());
  auto damaged = s.Vacuum();
  EXPECT_TRUE(IsError(damaged.status(), ErrorKind::kCorruptMetadata)) << damaged.status();
  EXPECT_NE(damaged.status().message().find("20000101000000002"), std::string::npos) << damaged.status();
  EXPECT_TRUE(s.Exists("part=x/orphan.parquet"));
}

}  // namespace
}  // namespace lakeshore

namespace lakeshore {
namespace {

TEST(HudiVacuum, CrashAtEveryMutationThenRerunConverges) {
  auto build = [](HudiScenario& s) {
    s.Upsert({{1, "a", 1, "x"}, {2, "b", 1, "y"}});
    for (int i = 0; i < 5; ++i) {
      ASSERT_TRUE(s.storage->WriteString("part=x/orphan" + std::to_string(i) + ".parquet", "junk").ok());
    }
    ASSERT_TRUE(s.storage->WriteString("part=q/lonely.parquet", "junk").ok());
  };
  int64_t n = 0;
  {
    HudiScenario s("ls_crash_count");
    build(s);
    auto counting = *FaultInjectionStorage::Make(s.storage, 0, FaultMode::kCrash);
    VacuumOptions o;
    o.clock = s.clock;
    o.delete_batch_size = 2;
    ASSERT_TRUE(Vacuum(counting, o).ok());
    n = counting->mutating_calls();
  }
  ASSERT_GE(n, 5);  // lock, requested, inflight, release, deletes, folders, lock, completed, release
  for (int64_t k = 1; k <= n; ++k) {
    HudiScenario s("ls_crash" + std::to_string(k));
    build(s);
    auto before = testing::ReadPeople(*s.table);
    VacuumOptions o;
    o.clock = s.clock;
    o.delete_batch_size = 2;
    auto crashing = *FaultInjectionStorage::Make(s.storage, k, FaultMode::kCrash);
    EXPECT_FALSE(Vacuum(crashing, o).ok()) << k;
    // The crashed process may have held the table lock: it is free again once its lease ran out.
    s.clock->Advance(10 * 60 * 1000);
    TableOpenOptions same_clock;
    same_clock.clock = s.clock;
    auto reopened = *Table::Open(s.dir.path(), same_clock);
    EXPECT_EQ(testing::ReadPeople(*reopened), before) << k;
    auto rerun = s.Vacuum(o);
    ASSERT_TRUE(rerun.ok()) << k << ": " << rerun.status();
    for (int i = 0; i < 5; ++i) EXPECT_FALSE(s.Exists("part=x/orphan" + std::to_string(i) + ".parquet")) << k;
    EXPECT_FALSE(s.Exists("part=q")) << k;
    EXPECT_EQ(testing::ReadPeople(*reopened), before) << k;
    // A writer after the interrupted vacuum still works.
    auto w = reopened->Write(WriteOperation::kUpsert, testing::PeopleReader({{3, "c", 1, "x"}}));
    EXPECT_TRUE(w.ok()) << k << ": " << w.status();
  }
}

}  // namespace
}  // namespace lakeshore

namespace lakeshore {
namespace {

// Vacuum's own timeline kept every run (three files each), and each skipped optimistic run
// listed them all: it keeps its newest ten completed instants. A crash at any point of the trim
// leaves completed instants only, and the next run finishes it.
TEST(HudiVacuum, ItsOwnTimelineKeepsTheNewestRunsAndACrashedTrimConverges) {
  const TimelineLocation vacuum_timeline{layout::kVacuumTimelineDir, TimelineLayout::kV2};
  auto runs = [](HudiScenario& s, int count) {
    for (int i = 0; i < count; ++i) {
      s.clock->Advance(60 * 1000);
      auto r = s.Vacuum();
      ASSERT_TRUE(r.ok()) << r.status();
    }
  };
  HudiScenario s("ls_vacuum_trim");
  s.Upsert({{1, "a", 1, "x"}});
  runs(s, 10);
  auto vacuums = *Timeline::Load(*s.storage, vacuum_timeline);
  ASSERT_EQ(vacuums.CompletedByCompletionTime().size(), 10u);
  const std::string sixth_run = vacuums.CompletedByCompletionTime()[5].time;
  // The eleventh run trims the oldest; every mutating call of that run may crash.
  int64_t n = 0;
  {
    HudiScenario probe("ls_vacuum_trim_count");
    probe.Upsert({{1, "a", 1, "x"}});
    runs(probe, 10);
    auto count = *FaultInjectionStorage::Make(probe.storage, 0, FaultMode::kCrash);
    VacuumOptions o;
    o.clock = probe.clock;
    ASSERT_TRUE(Vacuum(count, o).ok());
    n = count->mutating_calls();
  }
  for (int64_t k = 1; k <= n + 1; ++k) {
    SCOPED_TRACE("k=" + std::to_string(k));
    HudiScenario c("ls_vacuum_trim_crash" + std::to_string(k));
    c.Upsert({{1, "a", 1, "x"}});
    runs(c, 10);
    auto crashing = *FaultInjectionStorage::Make(c.storage, k, FaultMode::kCrash);
    VacuumOptions o;
    o.clock = c.clock;
    (void)Vacuum(crashing, o);
    c.clock->Advance(10 * 60 * 1000);  // a crashed holder's lock lease runs out
    auto after_crash = *Timeline::Load(*c.storage, vacuum_timeline);
    for (const auto& i : after_crash.instants()) {
      // Only the crashed run's own instant may be pending: a trim never leaves one.
      if (!i.is_completed()) EXPECT_GT(i.time, after_crash.CompletedByCompletionTime().back().time);
    }
    runs(c, 1);
    auto settled = *Timeline::Load(*c.storage, vacuum_timeline);
    EXPECT_EQ(settled.CompletedByCompletionTime().size(), 10u);
  }
  runs(s, 5);  // fifteen runs: the newest ten are kept, from the sixth on
  vacuums = *Timeline::Load(*s.storage, vacuum_timeline);
  EXPECT_EQ(vacuums.CompletedByCompletionTime().size(), 10u);
  EXPECT_EQ(vacuums.instants().size(), 10u);
  EXPECT_EQ(vacuums.CompletedByCompletionTime().front().time, sixth_run);
  EXPECT_EQ(s.storage->List(layout::kVacuumTimelineDir, false)->size(), 30u);
}

TEST(HudiVacuum, TablePropertySetsRetentionAndItsMinimum) {
  testing::TempDir dir("ls_vacuum_retention_property");
  auto config = testing::PeopleConfig();
  config.properties["vacuum.retain_hours"] = "24";
  auto table = *Table::Create(dir.path(), config);
  auto storage = *Storage::Open(dir.path());
  int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch()).count();
  ASSERT_TRUE(storage->WriteString("part=x/two_days_old.parquet", "junk").ok());
  ASSERT_TRUE(storage->SetModificationTimeForTesting("part=x/two_days_old.parquet", now - 2 * kDayMs).ok());
  ASSERT_TRUE(storage->WriteString("part=x/fresh.parquet", "junk").ok());
  auto clock = std::make_shared<ManualClock>(now);

  VacuumOptions dry;
  dry.dry_run = true;
  dry.clock = clock;
  auto report = lakeshore::Vacuum(dir.path(), dry);  // the table's 24 h is the default
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->candidates.size(), 1u);
  EXPECT_EQ(report->candidates[0].path, "part=x/two_days_old.parquet");

  dry.retain_hours = 12;  // shorter than the table allows
  auto refused = lakeshore::Vacuum(dir.path(), dry);
  EXPECT_TRUE(IsError(refused.status(), ErrorKind::kRetentionViolation)) << refused.status();
  EXPECT_TRUE(*storage->Exists("part=x/two_days_old.parquet"));

  config.properties["vacuum.retain_hours"] = "-1";
  EXPECT_FALSE(Table::Create(dir.path() + "_bad", config).ok());
}

}  // namespace
}  // namespace lakeshore

namespace lakeshore {
namespace {

TEST(HudiVacuum, InstantTimeFollowsTheTimelineEvenWhenItsClockLags) {
  testing::TempDir dir("ls_vacuum_clock_lag");
  int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch()).count();
  TableOpenOptions ahead;
  ahead.clock = std::make_shared<ManualClock>(now + 365 * kDayMs);  // a writer whose clock runs ahead
  auto table = *Table::Create(dir.path(), testing::PeopleConfig(), ahead);
  ASSERT_TRUE(table->Write(WriteOperation::kUpsert, testing::PeopleReader({{1, "a", 1, "x"}})).ok());
  VacuumOptions o;
  o.clock = std::make_shared<ManualClock>(now);
  auto report = lakeshore::Vacuum(dir.path(), o);
  ASSERT_TRUE(report.ok()) << report.status();
  auto timeline = *table->Timeline();
  ASSERT_EQ(timeline.size(), 1u);
  auto storage = *Storage::Open(dir.path());
  auto vacuums = *Timeline::Load(*storage, TimelineLocation{layout::kVacuumTimelineDir, TimelineLayout::kV2});
  ASSERT_EQ(vacuums.instants().size(), 1u);
  EXPECT_GT(vacuums.instants()[0].time, timeline[0].completion_time);
  EXPECT_TRUE(table->Write(WriteOperation::kUpsert, testing::PeopleReader({{2, "b", 1, "x"}})).ok());
}

}  // namespace
}  // namespace lakeshore

namespace lakeshore {
namespace {

/// The name our storage stages `name` under (a file's, or with `folder` a folder's), with
/// `digits` as its "<pid>.<n>.<r>".
std::string Staged(const std::string& name, const std::string& digits = "1.2.3", bool folder = false) {
  return "." + name + std::string(folder ? kStagedFolderMarker : kStagedFileMarker) + digits;
}

TEST(StagedWriteName, RecognizesOnlyOurStagedWrites) {
  EXPECT_TRUE(IsStagedWriteName(Staged("f.parquet", "123.4.5678")));
  EXPECT_TRUE(IsStagedWriteName(Staged("part=x", "99.0.1", /*folder=*/true)));
  EXPECT_FALSE(IsStagedWriteName(Staged("f.parquet", "123.4.5678").substr(1)));  // not hidden
  EXPECT_FALSE(IsStagedWriteName(".part-0.snappy.parquet.crc"));  // another tool's hidden file
  EXPECT_FALSE(IsStagedWriteName(Staged("f", "12.x.3")));
  EXPECT_FALSE(IsStagedWriteName(Staged("f", "1.2")));
  EXPECT_FALSE(IsStagedWriteName(Staged("f", "1.2.3.")));
  EXPECT_FALSE(IsStagedWriteName(std::string(kStagedFileMarker) + "1.2.3"));  // no name before it
  EXPECT_FALSE(IsStagedWriteName(Staged("")));  // nor an empty one (found by outside testing)
  // Without Lakeshore's word, a name is a user's (outside testing: `.x.tmp.1.2.3` was reaped).
  EXPECT_FALSE(IsStagedWriteName(".f.parquet.tmp.123.4.5678"));
  EXPECT_FALSE(IsStagedWriteName(".part=x.tmp.dir.99.0.1"));
}

TEST(HudiVacuum, ReapsStagedWritesLeftByACrashOncePastRetention) {
  testing::TempDir dir("ls_vacuum_staged");
  auto table = *Table::Create(dir.path(), testing::PeopleConfig());
  ASSERT_TRUE(table->Write(WriteOperation::kUpsert, testing::PeopleReader({{1, "a", 1, "x"}})).ok());
  auto storage = *Storage::Open(dir.path());
  int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch()).count();
  const std::string old_temp = "part=x/" + Staged("f.parquet", "123.4.5678");
  const std::string young_temp = "part=x/" + Staged("g.parquet", "123.5.5678");
  const std::string staged_folder = "part=x/" + Staged("part=q", "1.2.3", /*folder=*/true);
  const std::string staged = staged_folder + "/" + Staged("h.parquet", "1.2.4");
  const std::string instant_temp = ".hoodie/timeline/" + Staged("20260101000000000.commit.inflight", "7.8.9");
  // A rewrite of hoodie.properties, staged in `.hoodie/` itself (found by outside testing: it
  // was never reaped).
  const std::string properties_temp = ".hoodie/" + Staged("hoodie.properties", "3.2.1");
  // The metadata table's own: a data file, an instant of its timeline, a partition folder
  // being created (and its file), all left by a killed writer; and one still being written.
  const std::string mdt_file = ".hoodie/metadata/files/" + Staged("files-0000-0_0-0-0_20260101000000000.hfile");
  const std::string mdt_instant = ".hoodie/metadata/.hoodie/timeline/" + Staged("20260101000000000.deltacommit", "4.5.6");
  const std::string mdt_staged_folder = ".hoodie/metadata/" + Staged("record_index", "7.8.9", /*folder=*/true);
  const std::string mdt_folder_file = mdt_staged_folder + "/.hoodie_partition_metadata";
  const std::string mdt_young = ".hoodie/metadata/files/" + Staged("files-0001-0_0-0-0_20260101000000000.hfile", "1.2.4");
  // Not a staged write: a file of the metadata table named otherwise is never touched, and a
  // user's hidden file named as staged writes were before they carried Lakeshore's word.
  const std::string mdt_other = ".hoodie/metadata/files/.some-tool.tmp.old";
  const std::string user_file = "part=x/.export.tmp.1.2.3";
  for (const auto& p : {old_temp, young_temp, staged, instant_temp, properties_temp, mdt_file, mdt_instant,
                        mdt_folder_file, mdt_young, mdt_other, user_file}) {
    ASSERT_TRUE(storage->WriteString(p, "partial").ok());
  }
  for (const auto& p :
       {old_temp, staged, instant_temp, properties_temp, mdt_file, mdt_instant, mdt_folder_file, mdt_other, user_file}) {
    ASSERT_TRUE(storage->SetModificationTimeForTesting(p, now - 8 * kDayMs).ok());
  }
  VacuumOptions o;
  o.clock = std::make_shared<ManualClock>(now);
  auto report = lakeshore::Vacuum(dir.path(), o);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->files_deleted, 7);
  EXPECT_FALSE(*storage->Exists(instant_temp));
  EXPECT_FALSE(*storage->Exists(properties_temp));
  EXPECT_TRUE(*storage->Exists(".hoodie/hoodie.properties"));
  EXPECT_FALSE(*storage->Exists(old_temp));
  EXPECT_FALSE(*storage->Exists(staged));
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/" + staged_folder));
  EXPECT_FALSE(*storage->Exists(mdt_file));
  EXPECT_FALSE(*storage->Exists(mdt_instant));
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/" + mdt_staged_folder));
  EXPECT_TRUE(*storage->Exists(young_temp));  // may belong to a write in progress
  EXPECT_TRUE(*storage->Exists(mdt_young));
  EXPECT_TRUE(*storage->Exists(mdt_other));
  EXPECT_TRUE(*storage->Exists(user_file));
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/.hoodie/metadata/files"));
  EXPECT_EQ(testing::ReadPeople(*table).size(), 1u);
}

}  // namespace
}  // namespace lakeshore

namespace lakeshore {
namespace {

TEST(HudiVacuum, OptimisticSkipReadsOnlyWhatHappenedSinceTheLastVacuum) {
  HudiScenario s("ls_vacuum_optimistic_cost");
  s.Upsert({{1, "a", 1, "x"}});
  s.Upsert({{2, "b", 1, "y"}});
  ASSERT_TRUE(s.Vacuum().ok());
  // Damage the instant files written long before the last vacuum's cutoff: a skip that read
  // them would fail; a skip whose cost follows the new work never opens them.
  auto timeline = *Timeline::Load(*s.storage);
  for (const auto& i : timeline.instants()) {
    if (i.action == "commit") ASSERT_TRUE(s.storage->WriteString(testing::TableTimeline().PathOf(i), "{trunc").ok());
  }
  VacuumOptions optimistic;
  optimistic.optimistic = true;
  auto skipped = s.Vacuum(optimistic);
  ASSERT_TRUE(skipped.ok()) << skipped.status();
  EXPECT_TRUE(skipped->skipped) << skipped->skip_reason;
  EXPECT_EQ(skipped->files_listed, 0);
  // A run that must decide from the whole timeline reports the damage and deletes nothing.
  auto full = s.Vacuum();
  EXPECT_TRUE(IsError(full.status(), ErrorKind::kCorruptMetadata)) << full.status();
}

TEST(HudiVacuum, OptimisticRunsOnceAFileTooYoungForTheLastFullRunHasAged) {
  // A stray the last full run kept for its youth: no instant will say it aged, so optimistic
  // runs skipped it until the force-full bound.
  HudiScenario s("ls_vacuum_young_optimistic");
  s.Upsert({{1, "a", 1, "x"}});
  const std::string stray = "part=x/stray.parquet";
  ASSERT_TRUE(s.storage->WriteString(stray, "junk").ok());
  ASSERT_TRUE(s.storage->SetModificationTimeForTesting(stray, s.clock->NowMs()).ok());
  VacuumOptions o;
  o.optimistic = true;
  auto first = s.Vacuum(o);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_FALSE(first->skipped);
  EXPECT_TRUE(s.Exists(stray));
  s.clock->Set(s.clock->NowMs() + kDayMs);
  auto young = s.Vacuum(o);
  ASSERT_TRUE(young.ok()) << young.status();
  EXPECT_TRUE(young->skipped);  // still younger than the retention
  s.clock->Set(s.clock->NowMs() + 7 * kDayMs);
  auto aged = s.Vacuum(o);
  ASSERT_TRUE(aged.ok()) << aged.status();
  EXPECT_FALSE(aged->skipped) << aged->skip_reason;
  EXPECT_FALSE(s.Exists(stray));
  auto after = s.Vacuum(o);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_TRUE(after->skipped);
}

TEST(HudiVacuum, AWriteCompletingWhileTheTimelineIsReadKeepsItsFiles) {
  // A clustering or a compaction that completes between the vacuum's listing of the timeline
  // and its read of the markers: it was pending when listed (its completed file unseen), its
  // markers are gone by the read, and its inflight file names no files (Hudi's do not). Its new
  // files were old enough to go, and the table lost them.
  HudiScenario s("ls_vacuum_completing");
  s.Upsert({{1, "a", 1, "x"}});
  const std::string t = FormatInstantTime(s.clock->NowMs() - kDayMs);
  const std::string written = "part=x/f9-0_0-1-1_" + t + ".parquet";
  ASSERT_TRUE(WriteMarkers(*s.storage, t, {{written, MarkerType::kCreate}}).ok());
  ASSERT_TRUE(s.storage->WriteString(s.Timeline().PathOf(Instant{t, "commit", InstantState::kRequested}), "").ok());
  ASSERT_TRUE(s.storage->WriteString(written, "written").ok());

  /// Completes the write the first time the vacuum looks for its markers.
  class CompletesAtMarkerRead : public testing::PassThroughStorage {
   public:
    CompletesAtMarkerRead(std::shared_ptr<Storage> inner, std::string time, std::string file)
        : PassThroughStorage(std::move(inner)), time_(std::move(time)), file_(std::move(file)) {}
    Result<std::optional<FileEntry>> GetFileInfo(std::string_view p) override {
      if (!done_ && p.rfind(MarkerFolder(time_), 0) == 0) {
        done_ = true;
        CommitMetadata metadata;
        metadata.operation = "upsert";
        WriteStat stat;
        stat.partition = "part=x";
        stat.file_id = "f9-0";
        stat.path = file_;
        stat.num_records = 1;
        metadata.write_stats.push_back(stat);
        WriteCompleted(*inner_, Instant{time_, "commit", InstantState::kCompleted, time_}, metadata);
        EXPECT_TRUE(DeleteMarkers(*inner_, time_).ok());
      }
      return inner_->GetFileInfo(p);
    }

   private:
    std::string time_, file_;
    bool done_ = false;
  };
  auto racing = std::make_shared<CompletesAtMarkerRead>(s.storage, t, written);
  VacuumOptions o;
  o.clock = s.clock;
  auto r = lakeshore::Vacuum(racing, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(s.Exists(written));
  for (const auto& c : r->candidates) EXPECT_NE(c.path, written);
}

}  // namespace
}  // namespace lakeshore

namespace lakeshore::vacuum {
namespace {

TEST(HudiVacuumRecord, RoundTripsAndRefusesMalformedRecords) {
  HudiVacuumRecord r;
  r.mode = "full";
  r.cutoff_ms = 1767225600000;
  r.data_through = "20260101000000000";
  r.last_full_ms = 1767312000000;
  r.lite_through = "20251231000000000";
  r.files_deleted = 3;
  r.bytes_deleted = 4096;
  r.dirs_deleted = 1;
  auto back = HudiVacuumRecord::FromJson(r.ToJson(), "v");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->ToJson(), r.ToJson());
  EXPECT_EQ(back->last_full_ms, r.last_full_ms);
  for (const char* bad : {"", "[]", "{\"mode\":\"full\"}", "{\"mode\":\"sideways\",\"cutoff_ms\":1}",
                          "{\"mode\":\"lite\",\"cutoff_ms\":\"1\"}", "{\"mode\":\"lite\",\"cutoff_ms\":1,\"last_full_ms\":1.5}",
                          "{\"mode\":\"lite\",\"cutoff_ms\":1,\"data_through\":7}", "{\"mode\":"}) {
    auto parsed = HudiVacuumRecord::FromJson(bad, "the-instant");
    EXPECT_TRUE(IsError(parsed.status(), ErrorKind::kCorruptMetadata)) << bad;
    if (!parsed.ok()) EXPECT_NE(parsed.status().message().find("the-instant"), std::string::npos);
  }
}

}  // namespace
}  // namespace lakeshore::vacuum
