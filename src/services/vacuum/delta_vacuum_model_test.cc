// Model-based test of Delta VACUUM: random histories of appends, removes, deletion vector
// updates, change data, orphans, checkpoints, clock jumps and vacuums (full, lite, optimistic,
// dry). A ground-truth model says which files the table needs; after every vacuum:
//  1. nothing the table needs is missing (every mode);
//  2. every file the log names that is deletable is gone (full, lite and optimistic, skipped
//     or not: a skip must never leave log-tracked garbage behind);
//  3. after a full run that was not skipped, no old untracked file is left.
#include <map>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "testing/delta_scenario.h"

namespace lakeshore {
namespace {

using nlohmann::json;
using testing::DeltaScenario;
using testing::DvJson;
using testing::kDayMs;
using testing::kHourMs;
using testing::Z85Uuid;

constexpr int64_t kRetentionMs = 7 * kDayMs;

/// What the model knows about one file on storage.
struct ModelFile {
  int64_t mtime = 0;
  bool log_named = false;  ///< some commit named it (data, deletion vector or change data)
};

/// A logical file of the table: data path plus its current deletion vector file (if any).
struct LogicalFile {
  std::string dv_file;     ///< "" without a DV
  std::string dv_payload;  ///< the Z85 payload naming it
};

struct Tombstone {
  std::string path;
  std::string dv_file;
  int64_t deleted_at = 0;
};

class Model {
 public:
  /// `with_removes` false: only appends, change data, orphans, clock jumps and vacuums, the
  /// histories where an optimistic skip is most tempting.
  Model(uint32_t seed, bool with_removes)
      : rng_(seed), s_("model" + std::to_string(seed)), with_removes_(with_removes) {
    s_.Create({"p"}, json::object(),
              {{"minReaderVersion", 3}, {"minWriterVersion", 7}, {"readerFeatures", {"deletionVectors"}},
               {"writerFeatures", {"deletionVectors", "changeDataFeed"}}});
  }

  void Step() {
    int op = Pick(100);
    if (!with_removes_ && op >= 30 && op < 55) op = 56;  // change data instead
    if (op < 30) Append();
    else if (op < 45) RemoveOne();
    else if (op < 55) UpdateDv();
    else if (op < 62) ChangeData();
    else if (op < 70) Orphan();
    else if (op < 74) s_.Checkpoint();
    else if (op < 88) s_.Advance(Pick(96) * kHourMs);
    else Vacuum();
  }

  void Vacuum() {
    VacuumOptions o;
    int kind = Pick(4);
    o.mode = kind == 1 ? VacuumMode::kLite : VacuumMode::kFull;
    o.optimistic = kind == 2;
    o.dry_run = kind == 3;
    auto before = Existing();
    auto r = s_.Vacuum(o);
    ASSERT_TRUE(r.ok()) << r.status();
    const int64_t cutoff = s_.now() - kRetentionMs;
    std::set<std::string> needed = Needed(cutoff);
    for (const auto& [path, f] : files_) {
      bool exists = s_.Exists(path);
      if (needed.count(path)) {
        ASSERT_TRUE(exists) << "vacuum (" << kind << ") deleted needed file " << path;
        continue;
      }
      if (o.dry_run) {
        ASSERT_EQ(exists, before.count(path) > 0) << "a dry run changed " << path;
        continue;
      }
      bool old = f.mtime < cutoff;
      if (old && f.log_named) ASSERT_FALSE(exists) << "vacuum (" << kind << ", skipped=" << r->skipped << ": "
                                                   << r->skip_reason << ") left log-tracked garbage " << path;
      if (old && !f.log_named && o.mode == VacuumMode::kFull && !r->skipped) {
        ASSERT_FALSE(exists) << "full vacuum left old orphan " << path;
      }
      if (!old) ASSERT_EQ(exists, before.count(path) > 0) << "vacuum deleted young file " << path;
    }
    for (auto it = files_.begin(); it != files_.end();) {
      it = s_.Exists(it->first) ? std::next(it) : files_.erase(it);
    }
  }

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  std::string Part() { return "p=" + std::to_string(Pick(3)); }
  std::string NewName(const std::string& prefix) { return prefix + std::to_string(counter_++) + ".parquet"; }

  void Put(const std::string& path, bool log_named) {
    s_.Put(path);
    files_[path] = {s_.now(), log_named};
  }

  json AddAction(const std::string& path, const LogicalFile& lf) {
    json add = {{"path", path}, {"size", 10}, {"modificationTime", s_.now()}, {"dataChange", true}};
    if (!lf.dv_file.empty()) add["deletionVector"] = DvJson("u", lf.dv_payload);
    return {{"add", add}};
  }
  json RemoveAction(const std::string& path, const LogicalFile& lf) {
    json remove = {{"path", path}, {"deletionTimestamp", s_.now()}, {"size", 10}, {"dataChange", true}};
    if (!lf.dv_file.empty()) remove["deletionVector"] = DvJson("u", lf.dv_payload);
    return {{"remove", remove}};
  }

  void Append() {
    std::string path = Part() + "/" + NewName("data-");
    Put(path, true);
    active_[path] = {};
    s_.Commit({AddAction(path, active_[path])}, "WRITE");
  }

  const std::string* RandomActive() {
    if (active_.empty()) return nullptr;
    auto it = active_.begin();
    std::advance(it, Pick(static_cast<int>(active_.size())));
    return &it->first;
  }

  void RemoveOne() {
    const std::string* p = RandomActive();
    if (!p) return;
    std::string path = *p;
    LogicalFile lf = active_[path];
    s_.Commit({RemoveAction(path, lf)}, Pick(2) ? "DELETE" : "OPTIMIZE");
    tombstones_.push_back({path, lf.dv_file, s_.now()});
    active_.erase(path);
  }

  void UpdateDv() {
    const std::string* p = RandomActive();
    if (!p) return;
    std::string path = *p;
    LogicalFile old = active_[path];
    char uuid[37];
    std::snprintf(uuid, sizeof(uuid), "%08x-0000-4000-8000-%012x", counter_++, 7u);
    LogicalFile next{"deletion_vector_" + std::string(uuid) + ".bin", Z85Uuid(uuid)};
    Put(next.dv_file, true);
    s_.Commit({RemoveAction(path, old), AddAction(path, next)}, "DELETE");
    tombstones_.push_back({path, old.dv_file, s_.now()});
    active_[path] = next;
  }

  void ChangeData() {
    std::string path = "_change_data/" + NewName("cdc-");
    Put(path, true);
    s_.Commit({{{"cdc", {{"path", path}, {"size", 10}, {"dataChange", false}}}}}, "MERGE");
  }

  void Orphan() { Put(Part() + "/" + NewName("orphan-"), false); }

  std::set<std::string> Needed(int64_t cutoff) const {
    std::set<std::string> needed;
    for (const auto& [path, lf] : active_) {
      needed.insert(path);
      if (!lf.dv_file.empty()) needed.insert(lf.dv_file);
    }
    for (const auto& t : tombstones_) {
      if (t.deleted_at < cutoff) continue;
      needed.insert(t.path);
      if (!t.dv_file.empty()) needed.insert(t.dv_file);
    }
    return needed;
  }

  std::set<std::string> Existing() const {
    std::set<std::string> out;
    for (const auto& [path, f] : files_) {
      if (s_.Exists(path)) out.insert(path);
    }
    return out;
  }

  std::mt19937 rng_;
  DeltaScenario s_;
  bool with_removes_;
  uint32_t counter_ = 0;
  std::map<std::string, ModelFile> files_;
  std::map<std::string, LogicalFile> active_;
  std::vector<Tombstone> tombstones_;
};

TEST(DeltaVacuumModel, RandomHistoriesNeverLoseNeededFilesNorKeepTrackedGarbage) {
  for (uint32_t seed = 1; seed <= 16; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Model model(seed, /*with_removes=*/seed <= 10);
    for (int step = 0; step < 60; ++step) {
      model.Step();
      if (::testing::Test::HasFatalFailure()) return;
    }
    model.Vacuum();
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace lakeshore
