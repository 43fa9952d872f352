// Archival: reads before and after agree at every instant, whatever stops the archival.
#include "services/archive/timeline_archiver.h"

#include <map>
#include <mutex>
#include <set>

#include <gtest/gtest.h>

#include "io/archived_timeline.h"
#include "lakeshore/storage/fault_injection_storage.h"
#include "lakeshore/table/table.h"
#include "lakeshore/vacuum.h"
#include "testing/pass_through_storage.h"
#include "testing/status_test_util.h"
#include "testing/table_test_util.h"
#include "timeline/instant_time.h"

namespace lakeshore {
namespace {
using testing::Person;
using testing::PeopleReader;
using testing::ReadPeople;
using Snapshot = std::map<std::pair<std::string, int64_t>, Person>;

constexpr int64_t kStartMs = 1767225600000;
constexpr const char* kHistory = ".hoodie/timeline/history";
int table_counter = 0;

struct History {
  std::string uri;
  std::shared_ptr<Storage> storage;
  std::shared_ptr<ManualClock> clock = std::make_shared<ManualClock>(kStartMs);
  std::vector<std::string> instants;         ///< completed write instants, oldest first
  std::map<std::string, Snapshot> as_of;     ///< the table as of each of them

  TableOpenOptions Options(std::shared_ptr<Storage> over = nullptr) const {
    TableOpenOptions o;
    o.clock = clock;
    o.storage_override = over ? over : storage;
    return o;
  }
  std::shared_ptr<Table> Open(std::shared_ptr<Storage> over = nullptr) const { return *Table::Open(uri, Options(over)); }
};

/// A table with `n` completed upserts (each updates one key and inserts one), and the oracle.
History MakeHistory(int n) {
  History h;
  h.uri = "mem://archive_" + std::to_string(table_counter++);
  h.storage = *Storage::Open(h.uri);
  TableConfig config = testing::PeopleConfig();
  config.properties["hoodie.archive.automatic"] = "false";  // these tests archive by Table::Archive
  auto table = *Table::Create(h.uri, config, h.Options());
  for (int i = 0; i < n; ++i) {
    h.clock->Advance(1000);
    auto r = table->Write(WriteOperation::kUpsert,
                          PeopleReader({{i % 5, "v" + std::to_string(i), i, i % 2 ? "x" : "y"}, {100 + i, "n", 0, "z"}}));
    EXPECT_TRUE(r.ok()) << r.status();
    h.instants.push_back(r->instant_time);
    h.as_of[r->instant_time] = ReadPeople(*table);
  }
  h.clock->Advance(1000);
  return h;
}

/// Every instant reads as it did before any archival, and the whole history is there once.
void ExpectHistoryIntact(const History& h, Table& table) {
  for (const auto& [instant, expected] : h.as_of) {
    ReadOptions at;
    at.as_of = instant;
    EXPECT_EQ(ReadPeople(table, at), expected) << "as_of " << instant;
  }
  EXPECT_EQ(ReadPeople(table), h.as_of.at(h.instants.back()));
  auto archived = *ReadArchivedTimeline(*h.storage, kHistory, *Engine::Default());
  std::set<std::string> all;
  for (const auto& a : archived) all.insert(a.instant.time);
  for (const auto& i : *table.Timeline()) {
    if (i.state == "completed") all.insert(i.time);
  }
  for (const auto& i : h.instants) EXPECT_TRUE(all.count(i)) << "instant " << i << " is lost";
}

TEST(TimelineArchiver, MovesTheOldestBeyondTheBoundsAndKeepsEveryReadIntact) {
  History h = MakeHistory(35);
  auto table = h.Open();
  ASSERT_OK_AND_ASSIGN(auto result, table->Archive());
  ASSERT_EQ(result.archived_instants.size(), 15u);  // 35 > 30: keep the newest 20
  EXPECT_EQ(result.archived_instants.front(), h.instants.front());
  EXPECT_EQ(result.archived_instants.back(), h.instants[14]);
  EXPECT_EQ(result.manifest_version, 1);
  int active = 0;
  for (const auto& i : *table->Timeline()) active += i.state == "completed";
  EXPECT_EQ(active, 20);
  EXPECT_EQ(*h.storage->ReadString(std::string(kHistory) + "/_version_"), "1");
  ExpectHistoryIntact(h, *table);
  // Incremental reads across the archive boundary.
  auto changes = table->ReadIncremental(h.instants[10], h.instants[20]);
  ASSERT_TRUE(changes.ok()) << changes.status();
  EXPECT_GT((*changes)->num_rows(), 0);
  // Within the bounds now: nothing more moves; the table is still written and read.
  ASSERT_OK_AND_ASSIGN(auto again, table->Archive());
  EXPECT_TRUE(again.archived_instants.empty());
  ASSERT_TRUE(table->Write(WriteOperation::kUpsert, PeopleReader({{1, "after", 99, "y"}})).ok());
  EXPECT_EQ(ReadPeople(*table).at({"y", 1}).name, "after");
  // Bad bounds are refused before anything happens.
  ArchiveOptions bad;
  bad.keep_min_commits = 5;
  bad.keep_max_commits = 5;
  EXPECT_TRUE(table->Archive(bad).status().IsInvalid());
}

TEST(TimelineArchiver, AfterAnArchivalOnlyItsNewFileIsDecodedAgain) {
  // The archived commits are decoded per file and kept: the whole archive was decoded again
  // after every archival (the write after an automatic one cost ten times the others). Shown by
  // damaging the first file once it is decoded: the cache, which does not read it again, loads;
  // a fresh one, which does, fails.
  History h = MakeHistory(35);
  auto table = h.Open();
  ASSERT_OK_AND_ASSIGN(auto first, table->Archive());
  ASSERT_EQ(first.archived_instants.size(), 15u);
  const InstantCodec codec{TimelineLayout::kV2, h.storage->ExternalPath("")};
  ArchivedCommits cache;
  ASSERT_OK_AND_ASSIGN(auto before, cache.Load(*h.storage, kHistory, *Engine::Default(), codec));
  ASSERT_EQ(before.size(), 15u);
  for (int i = 0; i < 11; ++i) {
    h.clock->Advance(1000);
    ASSERT_TRUE(table->Write(WriteOperation::kUpsert, PeopleReader({{200 + i, "n", 0, "z"}})).ok());
  }
  ASSERT_OK_AND_ASSIGN(auto second, table->Archive());
  ASSERT_EQ(second.archived_instants.size(), 11u);
  const std::string old_file = std::string(kHistory) + "/" + first.archived_instants.front() + "_" +
                               first.archived_instants.back() + "_0.parquet";
  ASSERT_OK_AND_ASSIGN(auto bytes, h.storage->ReadString(old_file));
  std::string damaged(bytes.size(), 'x');  // the same length, no longer Parquet
  ASSERT_OK(h.storage->DeleteFiles({old_file}).status());
  ASSERT_OK_AND_ASSIGN(bool put, h.storage->PutIfAbsentString(old_file, damaged));
  ASSERT_TRUE(put);
  ASSERT_OK_AND_ASSIGN(auto after, cache.Load(*h.storage, kHistory, *Engine::Default(), codec));
  EXPECT_EQ(after.size(), 26u);
  for (size_t i = 1; i < after.size(); ++i) {
    EXPECT_LE(after[i - 1].instant.completion_time, after[i].instant.completion_time);
  }
  ArchivedCommits fresh;
  EXPECT_TRUE(IsError(fresh.Load(*h.storage, kHistory, *Engine::Default(), codec).status(), ErrorKind::kCorruptMetadata));
}

/// Another process's archivals landing between a reader's listing of the timeline and its
/// reads: at the first read of an active completed instant file after each of the first two
/// listings of the timeline, the table is archived by a Table of its own (on the undisturbed
/// storage), to fewer instants each time, so files the reader listed are gone when read, and
/// again after it lists once more.
class ArchivesAfterTheReaderLists : public testing::PassThroughStorage {
 public:
  explicit ArchivesAfterTheReaderLists(const History& h) : PassThroughStorage(h.storage), history_(h) {}
  Result<std::vector<FileEntry>> List(std::string_view path, bool recursive) override {
    if (path == ".hoodie/timeline") {
      std::lock_guard<std::mutex> lock(mu_);
      listed_ = true;
    }
    return PassThroughStorage::List(path, recursive);
  }
  Result<std::shared_ptr<arrow::Buffer>> ReadFile(std::string_view path) override {
    const bool instant = path.rfind(".hoodie/timeline/", 0) == 0 && path.find("/history/") == std::string_view::npos &&
                         path.size() > 7 && path.substr(path.size() - 7) == ".commit";
    if (instant) {
      std::lock_guard<std::mutex> lock(mu_);
      if (listed_ && archivals_ < 2) {
        listed_ = false;
        ArchiveOptions bounds;
        bounds.keep_min_commits = archivals_ == 0 ? 25 : 15;
        bounds.keep_max_commits = *bounds.keep_min_commits + 1;
        ++archivals_;
        auto result = history_.Open()->Archive(bounds);
        if (!result.ok()) return result.status();
        moved_ += result->archived_instants.size();
      }
    }
    return PassThroughStorage::ReadFile(path);
  }
  size_t moved() {
    std::lock_guard<std::mutex> lock(mu_);
    return moved_;
  }

 private:
  const History& history_;
  std::mutex mu_;
  bool listed_ = false;
  int archivals_ = 0;
  size_t moved_ = 0;
};

TEST(TimelineArchiver, ReadersAndVacuumBesideAnArchivalFindTheMovedInstantsArchived) {
  // Reads and vacuum failed with "cannot open ....commit: No such file" when an archival moved
  // instants they had listed: the reader listed once more and could meet the next archival's
  // deletes; vacuum did not list again at all.
  History h = MakeHistory(30);
  auto disturbed = std::make_shared<ArchivesAfterTheReaderLists>(h);
  ASSERT_OK_AND_ASSIGN(auto reader, Table::Open(h.uri, h.Options(disturbed)));
  EXPECT_GE(disturbed->moved(), 5u);  // the second archival lands only if the reader lists again
  ExpectHistoryIntact(h, *reader);

  History again = MakeHistory(30);
  auto beside_vacuum = std::make_shared<ArchivesAfterTheReaderLists>(again);
  VacuumOptions dry;
  dry.dry_run = true;
  dry.clock = again.clock;
  ASSERT_OK_AND_ASSIGN(auto report, Vacuum(beside_vacuum, dry));
  EXPECT_GT(beside_vacuum->moved(), 0u);
  EXPECT_TRUE(report.candidates.empty());
  ExpectHistoryIntact(again, *again.Open());
}

TEST(TimelineArchiver, StopsAtPendingInstantsAndSavepointsAndTellsItsCallback) {
  History h = MakeHistory(12);
  // A pending clustering scheduled after the 6th write, and a savepoint of the 4th.
  ASSERT_OK(h.storage->WriteString(".hoodie/timeline/" + FormatInstantTime(*ParseInstantTime(h.instants[5]) + 1) +
                                       ".clustering.requested", ""));
  ASSERT_OK(h.storage->WriteString(
      ".hoodie/timeline/" + h.instants[3] + "_" + FormatInstantTime(*ParseInstantTime(h.instants[11]) + 5) + ".savepoint", ""));
  auto table = h.Open();
  std::vector<std::string> told;
  ArchiveOptions o;
  o.keep_min_commits = 1;
  o.keep_max_commits = 2;
  o.on_archived = [&](const std::vector<std::string>& instants) {
    told = instants;
    return Status::OK();
  };
  ASSERT_OK_AND_ASSIGN(auto result, table->Archive(o));
  EXPECT_EQ(result.archived_instants, (std::vector<std::string>{h.instants[0], h.instants[1], h.instants[2]}));
  EXPECT_EQ(told, result.archived_instants);
  ExpectHistoryIntact(h, *table);
}

TEST(TimelineArchiver, LayersCompactAndOldManifestsGo) {
  History h = MakeHistory(3);
  auto table = h.Open();
  ArchiveOptions o;
  o.keep_min_commits = 1;
  o.keep_max_commits = 2;
  // Each run archives once three commits are active: one level-0 file per two writes.
  for (int i = 0; i < 24; ++i) {
    h.clock->Advance(1000);
    auto w = table->Write(WriteOperation::kUpsert, PeopleReader({{200 + i, "c", 0, "x"}}));
    ASSERT_TRUE(w.ok()) << w.status();
    h.instants.push_back(w->instant_time);
    h.as_of[w->instant_time] = ReadPeople(*table);
    ASSERT_OK(table->Archive(o).status());
  }
  auto version = *LatestArchivedVersion(*h.storage, kHistory);
  auto files = *ReadArchivedManifest(*h.storage, kHistory, version);
  int layer1 = 0;
  for (const auto& f : files) layer1 += ArchivedFileLayer(f.name) == 1;
  EXPECT_EQ(layer1, 1) << "ten level-0 files merge into one of level 1";
  EXPECT_LT(files.size(), 10u);
  int manifests = 0;
  for (const auto& e : *h.storage->List(kHistory, false)) manifests += BaseName(e.path).rfind("manifest_", 0) == 0;
  EXPECT_LE(manifests, 3);
  ExpectHistoryIntact(h, *table);
}

TEST(TimelineArchiver, EveryCrashPointLeavesTheHistoryReadableAndTheNextRunFinishes) {
  // How many mutating calls one archival makes.
  int64_t calls = 0;
  {
    History h = MakeHistory(34);
    auto counter = *FaultInjectionStorage::Make(h.storage, 0, FaultMode::kCrash);
    ASSERT_OK(h.Open(counter)->Archive().status());
    calls = counter->mutating_calls();
  }
  ASSERT_GT(calls, 3);
  for (int64_t k = 1; k <= calls; ++k) {
    SCOPED_TRACE("crash at mutating call " + std::to_string(k));
    History h = MakeHistory(34);
    auto faulty = *FaultInjectionStorage::Make(h.storage, k, FaultMode::kCrash);
    (void)h.Open(faulty)->Archive();
    // A restarted process reads every instant as before, then the next archival finishes.
    h.clock->Advance(3600 * 1000);  // past the crashed holder's lock lease
    auto table = h.Open();
    ExpectHistoryIntact(h, *table);
    ASSERT_OK(table->Archive().status());
    ExpectHistoryIntact(h, *table);
    auto archived = *ReadArchivedTimeline(*h.storage, kHistory, *Engine::Default());
    std::set<std::string> in_archive;
    for (const auto& a : archived) in_archive.insert(a.instant.time);
    EXPECT_EQ(in_archive.size(), 14u);
    for (const auto& i : *table->Timeline()) EXPECT_FALSE(in_archive.count(i.time)) << i.time << " is in both";
  }
}

}  // namespace
}  // namespace lakeshore
