#include "services/vacuum/hudi_vacuum.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <unordered_set>

#include "common/duration.h"
#include "common/parse_number.h"
#include "lakeshore/table/table_config.h"
#include "lakeshore/table/table_options.h"
#include "services/vacuum/file_deleter.h"
#include "services/vacuum/retention.h"
#include "services/vacuum/vacuum_report.h"
#include "services/vacuum/table_listing.h"
#include "table/file_system_view.h"
#include "table/layout.h"
#include "timeline/commit_metadata_cache.h"
#include "table/hoodie_table_config.h"
#include "timeline/instant_codec.h"
#include "timeline/instant_time.h"
#include "timeline/markers.h"
#include "timeline/timeline.h"
#include "write/table_lock.h"

namespace lakeshore::vacuum {
namespace {

// Keys of the completed vacuum instant's `extra`: the watermark of the next run.
constexpr const char* kCutoffMs = "vacuum.cutoff_ms";
constexpr const char* kLastFullMs = "vacuum.last_full_ms";
constexpr const char* kFilesDeleted = "vacuum.files_deleted";
constexpr const char* kBytesDeleted = "vacuum.bytes_deleted";
constexpr const char* kDirsDeleted = "vacuum.dirs_deleted";
constexpr const char* kMode = "vacuum.mode";
/// The newest completion time lite mode has covered (instants older than the cutoff).
constexpr const char* kLiteThrough = "vacuum.lite_through";
/// The data timeline's last time when the vacuum read it: instants completing later are new to
/// the next run. (Vacuum's own timeline is separate and its clock may differ from writers'.)
constexpr const char* kDataThrough = "vacuum.data_through";


std::optional<int64_t> ExtraInt(const CommitMetadata& m, const char* key) {
  auto it = m.extra.find(key);
  if (it == m.extra.end()) return std::nullopt;
  return ParseInt64(it->second);
}

/// Everything the timeline says a table needs.
struct TimelineState {
  Timeline timeline;
  std::vector<CompletedCommit> commits;
  std::unordered_set<std::string> live;
  /// The last completed vacuum, if any.
  const CompletedCommit* last_vacuum = nullptr;
};

/// Vacuum's own timeline: its watermarks, as JSON instants in a folder Hudi never reads (Hudi's
/// timeline has no vacuum action).
const TimelineLocation kVacuumTimeline{layout::kVacuumTimelineDir, TimelineLayout::kV2, /*hoodie_contents=*/false};

/// The table's data timeline; refuses a table with an archived timeline.
Result<Timeline> LoadActiveTimeline(Storage& table, const HoodieTableConfig& config) {
  ARROW_ASSIGN_OR_RAISE(auto archived, table.List(config.archive_folder, /*recursive=*/true));
  for (const auto& e : archived) {
    if (e.is_dir) continue;
    return UnsupportedFeature("the table has an archived timeline ('" + e.path +
                              "'), which this vacuum does not read yet; refusing to vacuum");
  }
  return Timeline::Load(table, TimelineLocation{config.timeline_folder,
                                                static_cast<TimelineLayout>(config.timeline_layout_version),
                                                /*hoodie_contents=*/true});
}

/// The completed vacuum instants, with their watermarks, in completion order.
Result<std::vector<CompletedCommit>> LoadVacuums(Storage& table, Engine& engine) {
  ARROW_ASSIGN_OR_RAISE(auto timeline, Timeline::Load(table, kVacuumTimeline));
  CommitMetadataCache cache;
  return cache.LoadCompleted(table, engine, timeline);
}

/// `a` and `b` merged in completion order.
std::vector<CompletedCommit> Merged(std::vector<CompletedCommit> a, std::vector<CompletedCommit> b) {
  for (auto& c : b) a.push_back(std::move(c));
  std::stable_sort(a.begin(), a.end(), [](const CompletedCommit& x, const CompletedCommit& y) {
    return x.instant.completion_time < y.instant.completion_time;
  });
  return a;
}

/// Everything the timeline says the table needs (reads every completed instant's metadata).
Result<TimelineState> LoadTimelineState(Storage& table, Engine& engine, Timeline timeline) {
  TimelineState s;
  s.timeline = std::move(timeline);
  CommitMetadataCache cache;
  ARROW_ASSIGN_OR_RAISE(auto data, cache.LoadCompleted(table, engine, s.timeline));
  ARROW_ASSIGN_OR_RAISE(auto vacuums, LoadVacuums(table, engine));
  s.commits = Merged(std::move(data), std::move(vacuums));
  FileSystemView view = FileSystemView::Build(s.commits, "", s.timeline.location().layout);
  for (const FileGroup* group : view.AllFileGroups()) {
    for (const auto& slice : group->slices) {
      if (slice.base_file) s.live.insert(slice.base_file->path);
      for (const auto& log : slice.log_files) {
        s.live.insert(log.find('/') == std::string::npos ? JoinPath(group->partition, log) : log);
      }
    }
  }
  for (const auto& c : s.commits) {
    for (const auto& stat : c.metadata.write_stats) {
      if (!stat.path.empty()) s.live.insert(stat.path);
    }
    if (c.instant.action == actions::kVacuum) s.last_vacuum = &c;
  }
  // What in-flight writers plan (their inflight files and markers), and what pending
  // rollbacks are about to delete anyway.
  const TimelineLocation& at = s.timeline.location();
  const InstantCodec codec{at.layout, table.ExternalPath("")};
  for (const auto& pending : s.timeline.Pending()) {
    ARROW_ASSIGN_OR_RAISE(auto markers, ReadMarkers(table, pending.time));
    for (const auto& m : markers) s.live.insert(m.path);
    auto text = timeline_ops::ReadContent(table, at, pending);
    if (!text.ok()) {
      // Completed or rolled back between the listing and this read: re-listed by the next run.
      ARROW_ASSIGN_OR_RAISE(bool exists, table.Exists(at.PathOf(pending)));
      if (!exists) continue;
      return text.status();
    }
    if (text->empty()) continue;
    ARROW_ASSIGN_OR_RAISE(auto plan, codec.Decode(pending, *text, table.root_uri() + "/" + at.PathOf(pending)));
    for (const auto& f : plan.planned_files) s.live.insert(f);
  }
  return s;
}

/// What an optimistic decision needs, and no more: the last completed vacuum and the instants
/// completed since its cutoff or since it. Older instant files are not read, so a skip costs
/// what happened since the last vacuum, not the size of the timeline. `live` stays empty.
Result<TimelineState> LoadRecentState(Storage& table, Engine& engine, const Timeline& timeline) {
  TimelineState s;
  s.timeline = timeline;
  ARROW_ASSIGN_OR_RAISE(Timeline vacuum_timeline, Timeline::Load(table, kVacuumTimeline));
  std::vector<Instant> vacuums = vacuum_timeline.CompletedByCompletionTime();
  if (vacuums.empty()) return s;  // no watermark: the decision is to run
  const Instant& vacuum = vacuums.back();
  ARROW_ASSIGN_OR_RAISE(auto text, timeline_ops::ReadContent(table, kVacuumTimeline, vacuum));
  ARROW_ASSIGN_OR_RAISE(auto watermark, CommitMetadata::FromJson(text, kVacuumTimeline.PathOf(vacuum)));
  auto through = watermark.extra.find(kDataThrough);
  if (through == watermark.extra.end()) return s;  // no data position: the decision is to run
  // New to this run: completed after the last run read the timeline, or young enough that the
  // last run's cutoff protected what they left (the same rule as WhyRun).
  const std::string& data_through = through->second;
  const std::optional<int64_t> cutoff = ExtraInt(watermark, kCutoffMs);
  std::vector<Instant> recent;
  for (const auto& i : s.timeline.CompletedByCompletionTime()) {
    auto ms = ParseInstantTime(i.completion_time);
    if (i.completion_time > data_through || !cutoff || (ms.ok() && *ms >= *cutoff)) recent.push_back(i);
  }
  const TimelineLocation& at = s.timeline.location();
  const InstantCodec codec{at.layout, table.ExternalPath("")};
  ARROW_ASSIGN_OR_RAISE(auto metadata, engine.Map<CommitMetadata>(
                                           static_cast<int64_t>(recent.size()), [&](int64_t k) -> Result<CommitMetadata> {
                                             const Instant& i = recent[static_cast<size_t>(k)];
                                             ARROW_ASSIGN_OR_RAISE(auto t, timeline_ops::ReadContent(table, at, i));
                                             return codec.Decode(i, t, at.PathOf(i));
                                           }));
  for (size_t k = 0; k < recent.size(); ++k) s.commits.push_back({recent[k], std::move(metadata[k])});
  s.commits.push_back({vacuum, std::move(watermark)});
  s.commits = Merged(std::move(s.commits), {});
  for (const auto& c : s.commits)
    if (c.instant.action == actions::kVacuum) s.last_vacuum = &c;
  return s;
}

/// Files a completed instant planned but no slice uses (leftovers of retried tasks), or that a
/// rollback deleted (already gone unless the rollback was interrupted).
std::vector<std::string> NamedLeftovers(const CompletedCommit& c) {
  std::set<std::string> written;
  for (const auto& stat : c.metadata.write_stats) written.insert(stat.path);
  std::vector<std::string> out;
  for (const auto& f : c.metadata.planned_files) {
    if (c.instant.action == actions::kRollback || !written.count(f)) out.push_back(f);
  }
  return out;
}

int64_t CompletionMs(const CompletedCommit& c) {
  auto ms = ParseInstantTime(c.instant.completion_time);
  return ms.ok() ? *ms : 0;
}

/// Optimistic decision from the timeline: what can have become deletable since the last
/// vacuum? Only instants completed at or after its cutoff (or after it) can matter; of those,
/// a data write whose planned files all became slices makes nothing deletable (no cleaner runs
/// in this build, so replaced slices stay live); anything else might.
std::string WhyRun(const TimelineState& s, int64_t now_ms, std::optional<int64_t> force_full_after_ms) {
  if (s.last_vacuum == nullptr) return "no completed vacuum instant on the timeline";
  const CommitMetadata& v = s.last_vacuum->metadata;
  auto cutoff = ExtraInt(v, kCutoffMs);
  if (!cutoff) return "the last vacuum instant records no cutoff";
  auto last_full = ExtraInt(v, kLastFullMs);
  if (force_full_after_ms && (!last_full || now_ms - *last_full > *force_full_after_ms)) {
    return "the last full vacuum is older than the force-full bound";
  }
  auto through = v.extra.find(kDataThrough);
  if (through == v.extra.end()) return "the last vacuum instant records no position on the timeline";
  for (const auto& c : s.commits) {
    if (&c == s.last_vacuum || c.instant.action == actions::kVacuum) continue;
    bool recent = CompletionMs(c) >= *cutoff || c.instant.completion_time > through->second;
    if (!recent) continue;
    if (c.instant.action != actions::kCommit && c.instant.action != actions::kDeltaCommit) {
      // replacecommit, rollback, clean, ...: each can leave files no slice uses.
      return c.instant.action + " " + c.instant.time + " completed since the last vacuum";
    }
    if (!NamedLeftovers(c).empty()) {
      return c.instant.action + " " + c.instant.time + " left planned files no slice uses";
    }
  }
  return "";
}

/// Staged writes a crash left in the folders Lakeshore writes under `.hoodie/` (a put of an
/// instant, a heartbeat or a lock object that never got published), older than the cutoff.
/// Only those folders are listed, never the rest of `.hoodie/` (the metadata table included):
/// they are small, and nothing else there is ours to delete.
Result<std::vector<VacuumCandidate>> StagedWritesInMetadata(Storage& table, const HoodieTableConfig& config,
                                                           int64_t cutoff_ms) {
  std::vector<VacuumCandidate> out;
  for (const std::string folder : {config.timeline_folder, std::string(layout::kLakeshoreDir),
                                   std::string(layout::kHeartbeatDir)}) {
    bool recursive = folder == layout::kLakeshoreDir;
    ARROW_ASSIGN_OR_RAISE(auto entries, table.List(folder, recursive));
    for (const auto& e : entries) {
      if (!e.is_dir && e.mtime_ms < cutoff_ms && IsStagedWriteName(BaseName(e.path))) {
        out.push_back({e.path, e.size});
      }
    }
  }
  return out;
}

}  // namespace

Result<VacuumReport> VacuumHudiTable(std::shared_ptr<Storage> table, const VacuumOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  const int64_t now_ms = options.clock->NowMs();
  VacuumReport report = StartReport("hudi", options);

  ARROW_ASSIGN_OR_RAISE(auto hoodie, HoodieTableConfig::Load(*table));
  const Properties properties = hoodie.TableOptions();
  // The table's `vacuum.retain_hours` (default 168) is the default and the enforced minimum.
  ARROW_ASSIGN_OR_RAISE(double table_hours, table_options::kVacuumRetainHours.Get(properties));
  ARROW_ASSIGN_OR_RAISE(const int64_t table_retention_ms, HoursToMs("vacuum.retain_hours", table_hours));
  ARROW_ASSIGN_OR_RAISE(const int64_t retention_ms,
                        ResolveRetentionMs(table_retention_ms, "vacuum.retain_hours", options));
  const int64_t cutoff_ms = now_ms - retention_ms;
  ARROW_ASSIGN_OR_RAISE(auto timeline, LoadActiveTimeline(*table, hoodie));

  if (options.optimistic) {
    ARROW_ASSIGN_OR_RAISE(auto bound, ForceFullAfterMs(options));
    ARROW_ASSIGN_OR_RAISE(auto recent, LoadRecentState(*table, *options.engine, timeline));
    std::string why = WhyRun(recent, now_ms, bound);
    if (why.empty()) {
      report.skipped = true;
      report.skip_reason = "no instant since the last vacuum (" + recent.last_vacuum->instant.time +
                           ") can have left a file to delete";
      report.time_to_identify_ms = ElapsedMs(started);
      return report;
    }
    report.skip_reason = why;
  }
  const TimelineLocation data_timeline = timeline.location();
  ARROW_ASSIGN_OR_RAISE(auto state, LoadTimelineState(*table, *options.engine, std::move(timeline)));

  VisibilityRule rule{hoodie.partition_fields, false};
  std::vector<VacuumCandidate> candidates;
  std::vector<std::string> old_empty_folders;
  if (options.mode == VacuumMode::kFull) {
    ARROW_ASSIGN_OR_RAISE(auto scan, ScanForUntracked(*table, options, rule, state.live, cutoff_ms));
    report.files_listed = scan.files_listed;
    candidates = std::move(scan.candidates);
    old_empty_folders = std::move(scan.old_empty_folders);
    ARROW_ASSIGN_OR_RAISE(auto staged, StagedWritesInMetadata(*table, hoodie, cutoff_ms));
    report.files_listed += static_cast<int64_t>(staged.size());
    for (auto& c : staged) candidates.push_back(std::move(c));
  } else {
    // Lite: the files completed instants name but no slice uses, once they are old enough.
    std::string after;
    if (state.last_vacuum) {
      auto it = state.last_vacuum->metadata.extra.find(kLiteThrough);
      if (it != state.last_vacuum->metadata.extra.end()) after = it->second;
    }
    std::set<std::string> seen;
    for (const auto& c : state.commits) {
      if (c.instant.completion_time <= after || CompletionMs(c) >= cutoff_ms) continue;
      for (const auto& f : NamedLeftovers(c)) {
        if (!state.live.count(f) && !rule.IsHidden(f) && seen.insert(f).second) candidates.push_back({f, 0});
      }
    }
  }
  std::sort(candidates.begin(), candidates.end(),
            [](const VacuumCandidate& a, const VacuumCandidate& b) { return a.path < b.path; });
  report.candidates = candidates;
  report.time_to_identify_ms = ElapsedMs(started);
  if (options.dry_run) return report;

  // The vacuum instant: requested → inflight → (delete) → completed. Its times are chosen
  // under the table lock, like every writer's, so they never collide with another instant.
  LockSettings lock_settings;
  ARROW_ASSIGN_OR_RAISE(lock_settings.lease_ms, table_options::kLockLeaseMs.Get(properties));
  ARROW_ASSIGN_OR_RAISE(lock_settings.wait_timeout_ms, table_options::kLockWaitTimeoutMs.Get(properties));
  TableLock lock(table, options.clock, lock_settings);
  CommitMetadata plan;
  plan.operation = "vacuum";
  plan.extra[kMode] = report.mode;
  plan.extra[kCutoffMs] = std::to_string(cutoff_ms);
  plan.extra[kDataThrough] = state.timeline.LastTime();
  Instant instant;
  {
    ARROW_ASSIGN_OR_RAISE(auto guard, lock.Acquire("vacuum"));
    ARROW_ASSIGN_OR_RAISE(auto latest, Timeline::Load(*table, data_timeline));
    ARROW_ASSIGN_OR_RAISE(auto latest_vacuums, Timeline::Load(*table, kVacuumTimeline));
    ARROW_ASSIGN_OR_RAISE(std::string time, NextInstantTime(options.clock->NowMs(),
                                                             std::max(latest.LastTime(), latest_vacuums.LastTime())));
    instant = Instant{time, actions::kVacuum};
    ARROW_RETURN_NOT_OK(timeline_ops::CreateRequested(*table, kVacuumTimeline, instant, plan.ToJson()));
    ARROW_RETURN_NOT_OK(timeline_ops::TransitionToInflight(*table, kVacuumTimeline, instant, plan.ToJson()));
    ARROW_RETURN_NOT_OK(guard->Release());
  }
  const auto delete_started = std::chrono::steady_clock::now();
  ARROW_ASSIGN_OR_RAISE(auto deleted, DeleteFilesInBatches(*table, *options.engine, candidates,
                                                           options.delete_batch_size, options.progress));
  std::vector<std::string> folders = old_empty_folders;
  for (const auto& c : candidates) {
    for (std::string dir = ParentPath(c.path); !dir.empty(); dir = ParentPath(dir)) folders.push_back(dir);
  }
  ARROW_ASSIGN_OR_RAISE(int64_t dirs, DeleteEmptyDirs(*table, *options.engine, std::move(folders)));
  report.time_to_delete_ms = ElapsedMs(delete_started);
  report.files_deleted = deleted.files_deleted;
  report.files_refused = deleted.refused;
  report.bytes_deleted = deleted.bytes_deleted;
  report.dirs_deleted = dirs;

  CommitMetadata done = plan;
  done.extra[kFilesDeleted] = std::to_string(report.files_deleted);
  done.extra[kBytesDeleted] = std::to_string(report.bytes_deleted);
  done.extra[kDirsDeleted] = std::to_string(report.dirs_deleted);
  std::optional<int64_t> last_full =
      state.last_vacuum ? ExtraInt(state.last_vacuum->metadata, kLastFullMs) : std::nullopt;
  if (options.mode == VacuumMode::kFull) last_full = now_ms;
  if (last_full) done.extra[kLastFullMs] = std::to_string(*last_full);
  std::string lite_through;
  for (const auto& c : state.commits) {
    if (CompletionMs(c) < cutoff_ms) lite_through = std::max(lite_through, c.instant.completion_time);
  }
  done.extra[kLiteThrough] = lite_through;
  ARROW_ASSIGN_OR_RAISE(auto guard, lock.Acquire("vacuum"));
  ARROW_ASSIGN_OR_RAISE(auto after_delete, Timeline::Load(*table, data_timeline));
  ARROW_ASSIGN_OR_RAISE(auto vacuums_after, Timeline::Load(*table, kVacuumTimeline));
  ARROW_ASSIGN_OR_RAISE(std::string completion, NextInstantTime(options.clock->NowMs(),
                                                                 std::max(after_delete.LastTime(), vacuums_after.LastTime())));
  ARROW_RETURN_NOT_OK(timeline_ops::Complete(*table, kVacuumTimeline, instant, completion, done.ToJson()).status());
  ARROW_RETURN_NOT_OK(guard->Release());
  return report;
}

}  // namespace lakeshore::vacuum
