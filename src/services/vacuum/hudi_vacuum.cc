#include "services/vacuum/hudi_vacuum.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <set>
#include <unordered_set>

#include "actions/instant_lifecycle.h"
#include "common/duration.h"
#include "common/parse_number.h"
#include "lakeshore/table/table_config.h"
#include "lakeshore/table/table_options.h"
#include "io/archived_timeline.h"
#include "io/metadata_files.h"
#include "services/vacuum/file_deleter.h"
#include "services/vacuum/hudi_vacuum_record.h"
#include "services/vacuum/retention.h"
#include "services/vacuum/vacuum_report.h"
#include "services/vacuum/table_listing.h"
#include "table/file_naming.h"
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

/// Everything the timeline says a table needs.
struct TimelineState {
  Timeline timeline;
  std::vector<CompletedCommit> commits;
  PathSet live;
  /// The last completed vacuum, if any, and its record (the watermark).
  std::optional<Instant> last_vacuum;
  HudiVacuumRecord last_record;
  /// Instants listed but gone when read (an archival moved them): what they did is unknown here.
  int64_t vanished = 0;
  /// The decoded instants: a second look at the timeline reads only what completed since.
  std::shared_ptr<CommitMetadataCache> commit_cache = std::make_shared<CommitMetadataCache>();
};

/// Vacuum's own timeline: its watermarks, as JSON instants in a folder Hudi never reads (Hudi's
/// timeline has no vacuum action).
const TimelineLocation kVacuumTimeline{layout::kVacuumTimelineDir, TimelineLayout::kV2};

/// The table's data timeline (layout 2's archived timeline is read with the commits:
/// LoadTimelineState).
Result<Timeline> LoadActiveTimeline(Storage& table, const HoodieTableConfig& config) {
  return Timeline::Load(table, TimelineLocation{config.timeline_folder,
                                                static_cast<TimelineLayout>(config.timeline_layout_version)});
}

/// Layout 1's archived timeline (`archived/`, log files of Avro records; version-6 tables) is
/// not read. Hudi's readers never need it either: a data file whose instant is older than the
/// active timeline counts as committed (HoodieDefaultTimeline.containsOrBeforeTimelineStarts),
/// so vacuum keeps every such file: the commits that name them may be archived. Files of
/// newer instants are judged by the active timeline alone.
struct ArchivedHorizon {
  bool archived = false;     ///< `archived/` holds instants
  std::string first_active;  ///< the first active write instant; "" when none is active
  /// True when a data file of `instant` may belong to an archived commit.
  bool Covers(const std::string& instant) const { return archived && (first_active.empty() || instant < first_active); }
};

Result<ArchivedHorizon> LoadArchivedHorizon(Storage& table, const HoodieTableConfig& config, const Timeline& timeline) {
  ArchivedHorizon horizon;
  if (config.timeline_layout_version >= 2) return horizon;  // read with the commits
  ARROW_ASSIGN_OR_RAISE(auto archived, table.List(config.archive_folder, /*recursive=*/true));
  for (const auto& e : archived) horizon.archived = horizon.archived || !e.is_dir;
  for (const auto& i : timeline.instants()) {
    if (!actions::WritesData(i.action)) continue;
    if (horizon.first_active.empty() || i.time < horizon.first_active) horizon.first_active = i.time;
  }
  return horizon;
}

/// `candidates` without the data files `horizon` covers.
std::vector<VacuumCandidate> WithoutArchivedFiles(std::vector<VacuumCandidate> candidates, const ArchivedHorizon& horizon) {
  if (!horizon.archived) return candidates;
  std::erase_if(candidates, [&](const VacuumCandidate& c) {
    auto name = ParseDataFileName(BaseName(c.path));
    return name && horizon.Covers(name->instant_time);
  });
  return candidates;
}

/// The last completed vacuum instant and its record, from vacuum's own timeline (one listing
/// of that small folder and one read).
Status LoadLastVacuum(Storage& table, TimelineState* s) {
  ARROW_ASSIGN_OR_RAISE(auto timeline, Timeline::Load(table, kVacuumTimeline));
  std::vector<Instant> vacuums = timeline.CompletedByCompletionTime();
  if (vacuums.empty()) return Status::OK();
  const Instant& last = vacuums.back();
  ARROW_ASSIGN_OR_RAISE(auto text, timeline_ops::ReadContent(table, kVacuumTimeline, last));
  ARROW_ASSIGN_OR_RAISE(s->last_record, HudiVacuumRecord::FromJson(text, kVacuumTimeline.PathOf(last)));
  s->last_vacuum = last;
  return Status::OK();
}

/// Vacuum's own timeline keeps its newest completed instants, this many: a run reads only the
/// last one, and an older one is never read again. Untrimmed, the folder grew by three files a
/// run, and every skipped optimistic run listed them all.
constexpr size_t kVacuumInstantsKept = 10;

/// Deletes the files of the completed vacuum instants older than the newest
/// kVacuumInstantsKept: their requested and inflight files first, then their completed ones, so
/// that a crash between leaves a completed instant, never a pending one. Pending instants (a
/// vacuum that crashed) are left alone. Call under the table lock.
Status TrimVacuumTimeline(Storage& table) {
  ARROW_ASSIGN_OR_RAISE(auto timeline, Timeline::Load(table, kVacuumTimeline));
  const std::vector<Instant> done = timeline.CompletedByCompletionTime();
  if (done.size() <= kVacuumInstantsKept) return Status::OK();
  std::vector<std::string> plans, completions;
  for (size_t i = 0; i + kVacuumInstantsKept < done.size(); ++i) {
    for (const InstantState state : {InstantState::kRequested, InstantState::kInflight}) {
      Instant earlier = done[i];
      earlier.state = state;
      plans.push_back(kVacuumTimeline.PathOf(earlier));
    }
    completions.push_back(kVacuumTimeline.PathOf(done[i]));
  }
  ARROW_RETURN_NOT_OK(table.DeleteFiles(plans).status());
  return table.DeleteFiles(completions).status();
}

/// `commits` in completion order.
std::vector<CompletedCommit> InCompletionOrder(std::vector<CompletedCommit> commits) {
  std::stable_sort(commits.begin(), commits.end(), [](const CompletedCommit& x, const CompletedCommit& y) {
    return x.instant.completion_time < y.instant.completion_time;
  });
  return commits;
}

/// Everything the timelines say the table needs (reads every completed instant's metadata, the
/// archived ones of layout 2 included: a file only an archived commit names is in use too).
Result<TimelineState> LoadTimelineState(Storage& table, Engine& engine, Timeline timeline,
                                        const HoodieTableConfig& config) {
  TimelineState s;
  s.timeline = std::move(timeline);
  if (config.timeline_layout_version >= 2) {
    // An archival moving instants while they are read: they are taken from the archive.
    ArchivedCommits archive;
    const InstantCodec codec{s.timeline.location().layout, table.ExternalPath("")};
    ARROW_ASSIGN_OR_RAISE(s.commits, LoadCommitsWithArchive(table, engine, s.timeline, *s.commit_cache, archive,
                                                            config.archive_folder, codec));
  } else {
    ARROW_ASSIGN_OR_RAISE(s.commits, s.commit_cache->LoadCompleted(table, engine, s.timeline));
  }
  ARROW_RETURN_NOT_OK(LoadLastVacuum(table, &s));
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
  }
  // What in-flight writers plan (their inflight files and markers), and what pending
  // rollbacks are about to delete anyway.
  const TimelineLocation& at = s.timeline.location();
  const InstantCodec codec{at.layout, table.ExternalPath("")};
  for (const auto& pending : s.timeline.Pending()) {
    ARROW_ASSIGN_OR_RAISE(auto markers, ReadMarkers(table, pending.time));
    for (const auto& m : markers) s.live.insert(m.path);
    // Gone: completed or rolled back between the listing and this read, re-listed by the next run.
    ARROW_ASSIGN_OR_RAISE(auto text, timeline_ops::ReadContentIfPresent(table, at, pending));
    if (!text || text->empty()) continue;
    ARROW_ASSIGN_OR_RAISE(auto plan, codec.Decode(pending, *text, table.root_uri() + "/" + at.PathOf(pending)));
    for (const auto& f : plan.planned_files) s.live.insert(f);
  }
  return s;
}

/// The metadata of `instants` (completed instants of the timeline at `at`), read side by side.
/// One whose file is gone since the listing (an archival moved it) is left out and counted in
/// `vanished`.
Result<std::vector<CompletedCommit>> LoadCommitsOf(Storage& table, Engine& engine, const TimelineLocation& at,
                                                   const std::vector<Instant>& instants, int64_t* vanished) {
  const InstantCodec codec{at.layout, table.ExternalPath("")};
  ARROW_ASSIGN_OR_RAISE(
      auto metadata, engine.Map<std::optional<CommitMetadata>>(
                         static_cast<int64_t>(instants.size()), [&](int64_t k) -> Result<std::optional<CommitMetadata>> {
                           const Instant& i = instants[static_cast<size_t>(k)];
                           ARROW_ASSIGN_OR_RAISE(auto text, timeline_ops::ReadContentIfPresent(table, at, i));
                           if (!text) return std::optional<CommitMetadata>();
                           ARROW_ASSIGN_OR_RAISE(auto decoded, codec.Decode(i, *text, at.PathOf(i)));
                           return std::optional<CommitMetadata>(std::move(decoded));
                         }));
  std::vector<CompletedCommit> out;
  out.reserve(instants.size());
  *vanished = 0;
  for (size_t k = 0; k < instants.size(); ++k) {
    if (!metadata[k]) {
      ++*vanished;
      continue;
    }
    out.push_back({instants[k], std::move(*metadata[k])});
  }
  return out;
}

/// What an optimistic decision needs, and no more: the last completed vacuum and the instants
/// completed since its cutoff or since it. Older instant files are not read, so a skip costs
/// what happened since the last vacuum, not the size of the timeline. `live` stays empty.
Result<TimelineState> LoadRecentState(Storage& table, Engine& engine, const Timeline& timeline) {
  TimelineState s;
  s.timeline = timeline;
  ARROW_RETURN_NOT_OK(LoadLastVacuum(table, &s));
  // No watermark, or no data position in it: the decision is to run.
  if (!s.last_vacuum || s.last_record.data_through.empty()) return s;
  // New to this run: completed after the last run read the timeline, or young enough that the
  // last run's cutoff protected what they left (the same rule as WhyRun).
  const std::string& data_through = s.last_record.data_through;
  const int64_t cutoff = s.last_record.cutoff_ms;
  std::vector<Instant> recent;
  for (const auto& i : s.timeline.CompletedByCompletionTime()) {
    auto ms = ParseInstantTime(i.completion_time);
    if (i.completion_time > data_through || (ms.ok() && *ms >= cutoff)) recent.push_back(i);
  }
  ARROW_ASSIGN_OR_RAISE(s.commits, LoadCommitsOf(table, engine, s.timeline.location(), recent, &s.vanished));
  s.commits = InCompletionOrder(std::move(s.commits));
  return s;
}

/// Every file named by the instants `latest` holds completed and `state` did not: writes and
/// services pending when the vacuum listed the timeline that completed since. Their markers may
/// have been deleted before the vacuum read them, and Hudi's clustering and compaction inflight
/// files name no files, so nothing else kept what they wrote. Cost: those instants' files (the
/// state's cache holds the others).
Result<std::set<std::string>> FilesCompletedSince(Storage& table, Engine& engine, const TimelineState& state,
                                                  const Timeline& latest) {
  std::set<std::string> done_before;
  for (const auto& i : state.timeline.instants()) {
    if (i.is_completed()) done_before.insert(i.time);
  }
  ARROW_ASSIGN_OR_RAISE(auto commits, state.commit_cache->LoadCompleted(table, engine, latest));
  std::set<std::string> files;
  for (const auto& c : commits) {
    if (done_before.count(c.instant.time)) continue;
    for (const auto& stat : c.metadata.write_stats) {
      if (!stat.path.empty()) files.insert(stat.path);
    }
    files.insert(c.metadata.planned_files.begin(), c.metadata.planned_files.end());
  }
  return files;
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
std::string WhyRun(const TimelineState& s, int64_t now_ms, int64_t cutoff_ms, std::optional<int64_t> force_full_after_ms) {
  if (!s.last_vacuum) return "no completed vacuum instant on the timeline";
  const HudiVacuumRecord& v = s.last_record;
  if (force_full_after_ms && (!v.last_full_ms || now_ms - *v.last_full_ms > *force_full_after_ms)) {
    return "the last full vacuum is older than the force-full bound";
  }
  if (v.data_through.empty()) return "the last vacuum instant records no position on the timeline";
  if (s.vanished > 0) return "an archival moved instants completed since the last vacuum while they were read";
  if (v.oldest_young_untracked_ms && *v.oldest_young_untracked_ms < cutoff_ms) {
    return "a file the last full vacuum kept for being younger than its cutoff is older than the cutoff now";
  }
  for (const auto& c : s.commits) {
    bool recent = CompletionMs(c) >= v.cutoff_ms || c.instant.completion_time > v.data_through;
    if (!recent) continue;
    // A savepoint names files without writing any, and an index build writes only into the
    // metadata table, which vacuum never lists: neither leaves anything to delete.
    if (c.instant.action == actions::kSavepoint || c.instant.action == actions::kIndexing) continue;
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

/// Staged writes a crash left in the folders Lakeshore writes under `.hoodie/`, older than the
/// cutoff: a put of an instant, a heartbeat or a lock object that never got published, a
/// rewrite of `hoodie.properties` (staged in `.hoodie/` itself), and in the metadata table (its
/// timeline, its partitions' files and folders) the files of a writer killed mid-write. Only
/// those folders are listed (`.hoodie/` itself without its subfolders), never the rest of
/// `.hoodie/`: they are small (the metadata table's files are a few per partition and
/// instant), and nothing but staged writes there is ours to delete. A staged folder's files
/// are taken; the folder goes once empty.
Result<std::vector<VacuumCandidate>> StagedWritesInMetadata(Storage& table, const HoodieTableConfig& config,
                                                           int64_t cutoff_ms) {
  std::vector<VacuumCandidate> out;
  std::vector<std::string> folders = {config.timeline_folder, std::string(layout::kLakeshoreDir),
                                      std::string(layout::kHeartbeatDir), std::string(kMetadataFolder)};
  if (config.timeline_folder != layout::kMetaDir) folders.emplace_back(layout::kMetaDir);  // version 6 lists it already
  for (const std::string& folder : folders) {
    bool recursive = folder == layout::kLakeshoreDir || folder == kMetadataFolder;
    ARROW_ASSIGN_OR_RAISE(auto entries, table.List(folder, recursive));
    for (const auto& e : entries) {
      if (e.is_dir || e.is_link || e.mtime_ms >= cutoff_ms) continue;
      const std::string_view relative = std::string_view(e.path).substr(std::min(e.path.size(), folder.size() + 1));
      if (IsInStagedWrite(relative)) out.push_back({e.path, e.size});
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
  ARROW_ASSIGN_OR_RAISE(auto horizon, LoadArchivedHorizon(*table, hoodie, timeline));

  if (options.optimistic) {
    ARROW_ASSIGN_OR_RAISE(auto bound, ForceFullAfterMs(options));
    ARROW_ASSIGN_OR_RAISE(auto recent, LoadRecentState(*table, *options.engine, timeline));
    std::string why = WhyRun(recent, now_ms, cutoff_ms, bound);
    if (why.empty()) {
      report.skipped = true;
      report.skip_reason = "no instant since the last vacuum (" + recent.last_vacuum->time +
                           ") can have left a file to delete";
      report.time_to_identify_ms = ElapsedMs(started);
      return report;
    }
    report.skip_reason = why;
  }
  const TimelineLocation data_timeline = timeline.location();
  ARROW_ASSIGN_OR_RAISE(auto state, LoadTimelineState(*table, *options.engine, std::move(timeline), hoodie));

  // Log files are judged from table version 8 (Hudi 1.x), where each is one instant's and a
  // rollback deletes them. Before, Hudi appended instants to one log file and a rollback appends
  // a command block, leaving the file to its slice: those are left alone, as they were.
  VisibilityRule rule{hoodie.partition_fields, false, /*hudi_log_files=*/hoodie.table_version >= 8,
                      /*staged_writes=*/true};
  std::vector<VacuumCandidate> candidates;
  std::vector<std::string> old_empty_folders;
  // A lite run lists nothing: the files the last full run kept for their youth are still owed.
  std::optional<int64_t> oldest_young =
      state.last_vacuum ? state.last_record.oldest_young_untracked_ms : std::nullopt;
  if (options.mode == VacuumMode::kFull) {
    ARROW_ASSIGN_OR_RAISE(auto scan, ScanForUntracked(*table, options, rule, state.live, cutoff_ms));
    report.files_listed = scan.files_listed;
    candidates = std::move(scan.candidates);
    old_empty_folders = std::move(scan.old_empty_folders);
    oldest_young = scan.oldest_young_untracked_ms;
    ARROW_ASSIGN_OR_RAISE(auto staged, StagedWritesInMetadata(*table, hoodie, cutoff_ms));
    report.files_listed += static_cast<int64_t>(staged.size());
    for (auto& c : staged) candidates.push_back(std::move(c));
  } else {
    // Lite: the files completed instants name but no slice uses, once they are old enough.
    const std::string after = state.last_record.lite_through;
    std::set<std::string> seen;
    for (const auto& c : state.commits) {
      if (c.instant.completion_time <= after || CompletionMs(c) >= cutoff_ms) continue;
      for (const auto& f : NamedLeftovers(c)) {
        if (!state.live.count(f) && !rule.IsHidden(f) && seen.insert(f).second) candidates.push_back({f, 0});
      }
    }
  }
  candidates = WithoutArchivedFiles(std::move(candidates), horizon);
  SortByPath(candidates);
  report.candidates = std::move(candidates);
  report.time_to_identify_ms = ElapsedMs(started);
  if (options.dry_run) return report;

  // The vacuum instant: requested → inflight → (delete) → completed. Its times are chosen
  // under the table lock, like every writer's, so they never collide with another instant.
  LockSettings lock_settings;
  ARROW_ASSIGN_OR_RAISE(lock_settings.lease_ms, table_options::kLockLeaseMs.Get(properties));
  ARROW_ASSIGN_OR_RAISE(lock_settings.wait_timeout_ms, table_options::kLockWaitTimeoutMs.Get(properties));
  TableLock lock(table, options.clock, lock_settings);
  ARROW_RETURN_NOT_OK(options.stop.Poll());  // stopped before anything is recorded or deleted
  HudiVacuumRecord plan;
  plan.mode = report.mode;
  plan.cutoff_ms = cutoff_ms;
  plan.data_through = state.timeline.LastTime();
  std::optional<InstantLifecycle> instant;
  {
    ARROW_ASSIGN_OR_RAISE(auto guard, lock.Acquire("vacuum"));
    ARROW_ASSIGN_OR_RAISE(auto latest, Timeline::Load(*table, data_timeline));
    // Under the lock, no instant completes until the deletes are planned; one that was pending
    // when the timeline was read keeps its files (writes started since wrote files younger than
    // the cutoff).
    ARROW_ASSIGN_OR_RAISE(auto completed_since, FilesCompletedSince(*table, *options.engine, state, latest));
    std::erase_if(report.candidates, [&](const VacuumCandidate& c) { return completed_since.count(c.path) > 0; });
    ARROW_ASSIGN_OR_RAISE(auto latest_vacuums, Timeline::Load(*table, kVacuumTimeline));
    ARROW_ASSIGN_OR_RAISE(
        auto planned, InstantLifecycle::Plan(
                          table, kVacuumTimeline, actions::kVacuum, LatestTime({&latest, &latest_vacuums}),
                          [&](const Instant&) -> Result<std::string> { return plan.ToJson(); }, *options.clock, *guard));
    instant.emplace(std::move(planned));
    ARROW_RETURN_NOT_OK(instant->StartInflight(plan.ToJson()));
    ARROW_RETURN_NOT_OK(guard->Release());
  }
  const auto delete_started = std::chrono::steady_clock::now();
  ARROW_ASSIGN_OR_RAISE(auto deleted, DeleteFilesInBatches(*table, *options.delete_engine, report.candidates,
                                                           options.delete_batch_size, options.progress,
                                                           options.stop));
  ARROW_ASSIGN_OR_RAISE(int64_t dirs, DeleteEmptyDirs(*table, *options.delete_engine,
                                                      FoldersToTry(report.candidates, old_empty_folders)));
  report.time_to_delete_ms = ElapsedMs(delete_started);
  report.files_deleted = deleted.files_deleted;
  report.files_refused = deleted.refused;
  report.bytes_deleted = deleted.bytes_deleted;
  report.dirs_deleted = dirs;

  HudiVacuumRecord done = plan;
  done.files_deleted = report.files_deleted;
  done.bytes_deleted = report.bytes_deleted;
  done.dirs_deleted = report.dirs_deleted;
  done.last_full_ms = state.last_vacuum ? state.last_record.last_full_ms : std::nullopt;
  if (options.mode == VacuumMode::kFull) done.last_full_ms = now_ms;
  done.oldest_young_untracked_ms = oldest_young;
  for (const auto& c : state.commits) {
    if (CompletionMs(c) < cutoff_ms) done.lite_through = std::max(done.lite_through, c.instant.completion_time);
  }
  ARROW_ASSIGN_OR_RAISE(auto guard, lock.Acquire("vacuum"));
  ARROW_ASSIGN_OR_RAISE(auto after_delete, Timeline::Load(*table, data_timeline));
  ARROW_ASSIGN_OR_RAISE(auto vacuums_after, Timeline::Load(*table, kVacuumTimeline));
  ARROW_RETURN_NOT_OK(
      instant->Complete(LatestTime({&after_delete, &vacuums_after}), done.ToJson(), *options.clock, *guard).status());
  ARROW_RETURN_NOT_OK(TrimVacuumTimeline(*table));
  ARROW_RETURN_NOT_OK(guard->Release());
  return report;
}

}  // namespace lakeshore::vacuum
