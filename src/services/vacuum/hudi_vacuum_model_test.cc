// Model-based test of VACUUM on Hudi tables Lakeshore writes: random histories of writes, deletes, crashed
// writes, stray files, clock jumps and vacuums (every mode) against a ground-truth oracle.
// Nothing a completed instant or a pending write needs may ever be missing; every untracked
// file is gone once it is past retention and a full vacuum ran.
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "lakeshore/storage/fault_injection_storage.h"
#include "lakeshore/table/table.h"
#include "lakeshore/vacuum.h"
#include "testing/table_test_util.h"
#include "timeline/commit_metadata.h"
#include "timeline/timeline.h"

namespace lakeshore {
namespace {
using testing::Person;
using Snapshot = std::map<std::pair<std::string, int64_t>, Person>;

constexpr int64_t kHourMs = 3600LL * 1000;

// Every data file a completed instant wrote and, with `include_pending`, every file a pending
// instant planned (which may or may not have been written before its writer crashed).
std::set<std::string> NeededFiles(Storage& storage, bool include_pending = true) {
  std::set<std::string> needed;
  auto timeline = *Timeline::Load(storage);
  for (const auto& instant : timeline.instants()) {
    if (!instant.is_completed() && instant.action == actions::kRollback) continue;
    auto decoded = testing::ReadInstant(storage, instant);
    if (!decoded.ok()) continue;
    const CommitMetadata& meta = *decoded;
    if (instant.is_completed()) {
      for (const auto& s : meta.write_stats)
        if (!s.path.empty()) needed.insert(s.path);
    } else if (include_pending) {
      needed.insert(meta.planned_files.begin(), meta.planned_files.end());
    }
  }
  return needed;
}

std::set<std::string> DataFiles(Storage& storage) {
  std::set<std::string> out;
  for (const auto& e : *storage.List("", true))
    if (!e.is_dir && e.path.rfind(".hoodie", 0) != 0 && BaseName(e.path) != ".hoodie_partition_metadata") {
      out.insert(e.path);
    }
  return out;
}

// One vacuum in a random mode; every needed file that existed before still exists after.
void VacuumAndCheck(const std::string& uri, const std::shared_ptr<ManualClock>& clock, Storage& storage,
                    std::mt19937& rng) {
  VacuumOptions o;
  o.clock = clock;
  o.mode = rng() % 3 == 0 ? VacuumMode::kLite : VacuumMode::kFull;
  o.optimistic = rng() % 2 == 0;
  o.dry_run = rng() % 4 == 0;
  std::vector<std::string> needed_and_present;
  for (const auto& f : NeededFiles(storage))
    if (*storage.Exists(f)) needed_and_present.push_back(f);
  auto report = Vacuum(uri, o);
  ASSERT_TRUE(report.ok()) << report.status();
  for (const auto& f : needed_and_present) EXPECT_TRUE(*storage.Exists(f)) << "vacuum deleted needed file " << f;
}

void RunHistory(uint32_t seed) {
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  auto clock = std::make_shared<ManualClock>(1767225600000);  // 2026-01-01
  std::string uri = "mem://ls_vacuum_model_" + std::to_string(seed);
  StorageOptions storage_options;
  storage_options.clock = clock;
  auto storage = *Storage::Open(uri, storage_options);
  TableOpenOptions open;
  open.clock = clock;
  open.storage_override = storage;
  auto table = *Table::Create(uri, testing::PeopleConfig(), open);
  Snapshot oracle;
  const char* parts[] = {"a", "b", "c"};
  int strays = 0;

  for (int step = 0; step < 30; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    clock->Advance(static_cast<int64_t>(rng() % 72) * kHourMs);  // up to 3 days
    switch (rng() % 6) {
      case 0:
      case 1: {  // upsert
        std::vector<Person> batch;
        for (int k = 0; k < 4; ++k)
          batch.push_back({static_cast<int64_t>(rng() % 20), "v" + std::to_string(step), step, parts[rng() % 3]});
        ASSERT_TRUE(table->Write(WriteOperation::kUpsert, testing::PeopleReader(batch)).ok());
        for (const auto& p : batch) oracle[{p.part, p.id}] = p;  // ts = step grows: the last wins
        break;
      }
      case 2: {  // delete
        std::vector<std::pair<int64_t, std::string>> keys = {{static_cast<int64_t>(rng() % 20), parts[rng() % 3]}};
        ASSERT_TRUE(table->Write(WriteOperation::kDelete, testing::KeysReader(keys)).ok());
        oracle.erase({keys[0].second, keys[0].first});
        break;
      }
      case 3: {  // a write that crashes part way: nothing of it may become visible
        auto faulty = *FaultInjectionStorage::Make(storage, 1 + rng() % 10, FaultMode::kCrash);
        TableOpenOptions crashing = open;
        crashing.storage_override = faulty;
        auto writer = *Table::Open(uri, crashing);
        auto r = writer->Write(WriteOperation::kUpsert,
                               testing::PeopleReader({{static_cast<int64_t>(100 + step), "crash", step, "a"}}));
        if (r.ok()) oracle[{"a", 100 + step}] = {100 + step, "crash", step, "a"};
        clock->Advance(2 * kHourMs);  // its lock lease and heartbeat run out
        if (rng() % 2 == 0) {
          // No writer comes for longer than the retention: the failed write is still pending
          // (not rolled back) when a vacuum runs; its files must survive until the rollback.
          clock->Advance(8 * 24 * kHourMs);
          ASSERT_NO_FATAL_FAILURE(VacuumAndCheck(uri, clock, *storage, rng));
        }
        break;
      }
      case 4: {  // an untracked stray file
        ASSERT_TRUE(storage->WriteString(std::string("part=") + parts[rng() % 3] + "/stray" + std::to_string(strays++) +
                                             ".parquet", "junk").ok());
        break;
      }
      default:
        ASSERT_NO_FATAL_FAILURE(VacuumAndCheck(uri, clock, *storage, rng));
        break;
    }
    ASSERT_EQ(testing::ReadPeople(*table), oracle);
    for (const auto& f : NeededFiles(*storage, /*include_pending=*/false)) {
      EXPECT_TRUE(*storage->Exists(f)) << "a committed file is missing: " << f;
    }
    // Time travel to every completed write still works (its files are all there).
    for (const auto& i : *table->Timeline()) {
      if (i.state != "completed" || i.action != "commit") continue;
      ReadOptions as_of;
      as_of.as_of = i.time;
      ASSERT_TRUE(table->Read(as_of).ok()) << "as of " << i.time;
    }
  }

  // Bounded cleanup: past retention, after a write (which rolls back failed writes) and one full
  // vacuum, no untracked data file is left.
  clock->Advance(8 * 24 * kHourMs);
  ASSERT_TRUE(table->Write(WriteOperation::kUpsert, testing::PeopleReader({{999, "last", 999, "c"}})).ok());
  oracle[{"c", 999}] = {999, "last", 999, "c"};
  VacuumOptions full;
  full.clock = clock;
  ASSERT_TRUE(Vacuum(uri, full).ok());
  auto needed = NeededFiles(*storage);
  for (const auto& f : DataFiles(*storage)) EXPECT_TRUE(needed.count(f)) << "untracked file survived: " << f;
  ASSERT_EQ(testing::ReadPeople(*table), oracle);
}

TEST(HudiVacuumModel, RandomHistoriesKeepNeededFilesAndReapTheRest) {
  for (uint32_t seed = 1; seed <= 12; ++seed) RunHistory(seed);
}

}  // namespace
}  // namespace lakeshore
