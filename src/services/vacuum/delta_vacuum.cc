#include "services/vacuum/delta_vacuum.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "common/parse_number.h"
#include "delta/commit_writer.h"
#include "delta/action_reader.h"
#include "delta/paths.h"
#include "services/vacuum/file_deleter.h"
#include "services/vacuum/optimistic_check.h"
#include "services/vacuum/retention.h"
#include "services/vacuum/vacuum_report.h"
#include "services/vacuum/table_listing.h"
#include "services/vacuum/vacuum_watermark.h"

namespace lakeshore::vacuum {
namespace {

using delta::DeltaLog;
using delta::DeltaSnapshot;


/// Adds `path` (a decoded log path) to `out` if it lies inside the table; an error if that
/// cannot be told with certainty.
Status AddIfInside(const std::string& path, const delta::TablePathResolver& paths,
                   PathSet& out) {
  auto rel = paths.Relativize(path);
  if (rel.ok()) {
    out.insert(std::move(*rel));
    return Status::OK();
  }
  return IsError(rel.status(), ErrorKind::kPathOutsideTable) ? Status::OK() : rel.status();
}

/// The file a deletion vector of data file `owner` names, if any; one outside the table is
/// none. An undecodable descriptor → kCorruptMetadata naming `owner` and `where` (the log, or
/// the commit file, the action came from).
Result<std::optional<std::string>> DeletionVectorFile(const delta::DeletionVectorDescriptor& dv,
                                                      const std::string& owner, const std::string& where,
                                                      const delta::TablePathResolver& paths) {
  auto path = delta::DeletionVectorPath(dv, paths);
  if (path.ok()) return path;
  if (IsError(path.status(), ErrorKind::kPathOutsideTable)) return std::optional<std::string>();
  return CorruptMetadata(where + ": the deletion vector of data file '" + owner + "': " + path.status().message());
}

Status AddDvIfInside(const std::optional<delta::DeletionVectorDescriptor>& dv, const std::string& owner,
                     const std::string& where, const delta::TablePathResolver& paths, PathSet& out) {
  if (!dv) return Status::OK();
  ARROW_ASSIGN_OR_RAISE(auto path, DeletionVectorFile(*dv, owner, where, paths));
  if (path) out.insert(std::move(*path));
  return Status::OK();
}

/// The newest commit before `below_version` whose file timestamp is older than `cutoff_ms`.
std::optional<int64_t> LatestCommitBeforeByFileTime(const DeltaLog& log, int64_t cutoff_ms, int64_t below_version) {
  std::optional<int64_t> latest;
  for (const auto& [version, ts] : log.CommitTimestamps()) {
    if (version < below_version && ts < cutoff_ms) latest = version;
  }
  return latest;
}

/// The newest commit whose timestamp is older than `cutoff_ms` (Spark's
/// latestCommitVersionOutsideOfRetentionWindow, by getActiveCommitAtTime's clock), if any.
/// With in-commit timestamps on, the commits from `delta.inCommitTimestampEnablementVersion`
/// on are dated by their commitInfo.inCommitTimestamp (monotonic, so a binary search reads
/// O(log n) commits), and only the older ones by file modification time: after a copy or a
/// restore every file's mtime is "now", which must not move the lite window. A commit without
/// an in-commit timestamp where one is required → kCorruptMetadata naming it.
Result<std::optional<int64_t>> LatestCommitBefore(const DeltaLog& log, const DeltaSnapshot& snapshot,
                                                  int64_t cutoff_ms) {
  if (!snapshot.InCommitTimestampsEnabled()) return LatestCommitBeforeByFileTime(log, cutoff_ms, INT64_MAX);
  int64_t enablement = 0;
  const auto& config = snapshot.metadata.configuration;
  if (auto it = config.find("delta.inCommitTimestampEnablementVersion"); it != config.end()) {
    auto parsed = ParseInt64(it->second);
    if (!parsed || *parsed < 0) {
      return CorruptMetadata("table property delta.inCommitTimestampEnablementVersion is not a version: '" +
                             it->second + "'");
    }
    enablement = *parsed;
  }
  std::vector<int64_t> dated;  // commits dated by their in-commit timestamp, ascending
  for (const auto& c : log.commits()) {
    if (c.version >= enablement) dated.push_back(c.version);
  }
  size_t lo = 0, hi = dated.size();  // dated[< lo] are older than the cutoff, dated[>= hi] not
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    ARROW_ASSIGN_OR_RAISE(auto commit, log.ReadCommit(dated[mid]));
    if (!commit.commit_info || !commit.commit_info->in_commit_timestamp) {
      return CorruptMetadata("Delta commit '" + DeltaLog::CommitPath(dated[mid]) +
                             "' has no commitInfo.inCommitTimestamp, but the table has in-commit timestamps on");
    }
    if (*commit.commit_info->in_commit_timestamp < cutoff_ms) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0) return std::optional<int64_t>(dated[lo - 1]);
  return LatestCommitBeforeByFileTime(log, cutoff_ms, enablement);
}

/// Lite mode: the files of removes (and their deletion vectors) and change data files of the
/// commits after the last watermark up to `until`, that are now deletable.
Result<std::vector<VacuumCandidate>> LiteCandidates(
    const DeltaLog& log, const std::optional<VacuumWatermark>& watermark,
    std::optional<int64_t> until, const PathSet& live, int64_t cutoff_ms,
    const VisibilityRule& rule) {
  std::vector<VacuumCandidate> out;
  if (!until) return out;  // no commit is older than the cutoff yet
  int64_t earliest = log.commits().empty() ? 0 : log.commits().front().version;
  std::optional<int64_t> previous =
      watermark ? watermark->latest_commit_version_outside_retention : std::nullopt;
  if (!previous && earliest != 0) {
    return Status::Invalid("lite vacuum needs the log from version 0 or a previous vacuum's "
                           "watermark; commits before ", earliest, " were cleaned up: run a full vacuum");
  }
  int64_t start = previous ? *previous + 1 : 0;
  std::vector<int64_t> versions;
  for (int64_t v = start; v <= *until; ++v) {
    if (log.FindCommit(v) == nullptr) {
      return Status::Invalid("lite vacuum needs commit ", v, " (after the last vacuum's watermark), "
                             "which was cleaned up: run a full vacuum");
    }
    versions.push_back(v);
  }
  ARROW_ASSIGN_OR_RAISE(auto commits, log.ReadCommits(versions));
  const delta::TablePathResolver paths(log.storage()->root_uri());
  PathSet seen;
  // A path that is elsewhere, or cannot be related to the table, is not deleted.
  auto consider = [&](const std::string& path, int64_t size, int64_t mtime) {
    auto rel = paths.Relativize(path);
    if (!rel.ok() || rule.IsHidden(*rel) || live.count(*rel) || mtime >= cutoff_ms) return;
    if (seen.insert(*rel)) out.push_back({*rel, size});
  };
  for (size_t k = 0; k < commits.size(); ++k) {
    const auto& actions = commits[k];
    for (const auto& r : actions.removes) {
      int64_t ts = r.deletion_timestamp.value_or(0);
      consider(r.path, r.size.value_or(0), ts);
      if (r.deletion_vector) {
        ARROW_ASSIGN_OR_RAISE(auto dv, DeletionVectorFile(*r.deletion_vector, r.path,
                                                          DeltaLog::CommitPath(versions[k]), paths));
        if (dv) consider(*dv, r.deletion_vector->size_in_bytes, ts);
      }
    }
    for (const auto& c : actions.cdc) consider(c.path, c.size, 0);
  }
  return out;
}

Result<int64_t> RetentionMs(const DeltaSnapshot& snapshot, const VacuumOptions& options) {
  ARROW_ASSIGN_OR_RAISE(int64_t table_retention, snapshot.TombstoneRetentionMs());
  return ResolveRetentionMs(table_retention, "delta.deletedFileRetentionDuration", options);
}

delta::OperationRecord VacuumRecord(const char* operation, int64_t now_ms, int64_t read_version,
                                    const DeltaSnapshot& snapshot) {
  delta::OperationRecord r;
  r.operation = operation;
  r.timestamp_ms = now_ms;
  r.read_version = read_version;
  r.in_commit_timestamps = snapshot.InCommitTimestampsEnabled();
  return r;
}

/// The paths (and their deletion vectors) the commits after `read_version` and before
/// `before_version` add, inside the table: what other writers made live while a vacuum that
/// read `read_version` was planning (a RESTORE adds removed files back).
Result<PathSet> AddedBetween(const DeltaLog& log, int64_t read_version, int64_t before_version) {
  PathSet added;
  const delta::TablePathResolver paths(log.storage()->root_uri());
  for (int64_t v = read_version + 1; v < before_version; ++v) {
    ARROW_ASSIGN_OR_RAISE(auto actions, delta::ReadActionFile(*log.storage(), DeltaLog::CommitPath(v)));
    for (const auto& f : actions.adds) {
      ARROW_RETURN_NOT_OK(AddIfInside(f.path, paths, added));
      ARROW_RETURN_NOT_OK(AddDvIfInside(f.deletion_vector, f.path, DeltaLog::CommitPath(v), paths, added));
    }
  }
  return added;
}

/// Writes VACUUM START, deletes `report.candidates` and then the folders left empty, writes
/// VACUUM END (status FAILED, best effort, if deleting failed) and fills the report's counts.
Status DeleteAndRecord(const DeltaLog& log, const DeltaSnapshot& snapshot, const VacuumOptions& options,
                       int64_t retention_ms, const std::vector<std::string>& old_empty_folders,
                       VacuumReport& report) {
  Storage& table = *log.storage();
  const auto& candidates = report.candidates;  // less what commits made meanwhile add back
  int64_t total_bytes = 0;
  for (const auto& c : candidates) total_bytes += c.size;
  ARROW_ASSIGN_OR_RAISE(int64_t table_retention_ms, snapshot.TombstoneRetentionMs());
  ARROW_RETURN_NOT_OK(options.stop.Poll());  // stopped before anything is recorded or deleted
  auto start_record = VacuumRecord("VACUUM START", options.clock->NowMs(), snapshot.version, snapshot);
  start_record.parameters["retentionCheckEnabled"] = options.enforce_retention ? "true" : "false";
  start_record.parameters["defaultRetentionMillis"] = std::to_string(table_retention_ms);
  if (options.retain_hours) start_record.parameters["specifiedRetentionMillis"] = std::to_string(retention_ms);
  start_record.metrics["numFilesToDelete"] = std::to_string(candidates.size());
  start_record.metrics["sizeOfDataToDelete"] = std::to_string(total_bytes);
  ARROW_ASSIGN_OR_RAISE(int64_t start_version, delta::AppendOperationRecord(log, start_record));
  // Writers that committed while this run planned (VACUUM START went after them) may have made
  // a candidate live again: a RESTORE adds removed files back. Those are kept. (A commit made
  // while the deletes run is not seen, as in Spark's VACUUM.)
  if (start_version > snapshot.version + 1) {
    ARROW_ASSIGN_OR_RAISE(auto added, AddedBetween(log, snapshot.version, start_version));
    std::erase_if(report.candidates, [&](const VacuumCandidate& c) { return added.count(c.path) > 0; });
  }

  const auto delete_started = std::chrono::steady_clock::now();
  auto deleted = DeleteFilesInBatches(table, *options.delete_engine, candidates, options.delete_batch_size, options.progress,
                                      options.stop);
  Result<int64_t> dirs = deleted.ok()
                             ? DeleteEmptyDirs(table, *options.delete_engine, FoldersToTry(candidates, old_empty_folders))
                             : Result<int64_t>(deleted.status());
  auto end_record = VacuumRecord("VACUUM END", options.clock->NowMs(), start_version, snapshot);
  if (!dirs.ok()) {
    end_record.parameters["status"] = "FAILED";
    (void)delta::AppendOperationRecord(log, end_record);  // best effort; the error below matters
    return dirs.status();
  }
  report.time_to_delete_ms = ElapsedMs(delete_started);
  report.files_deleted = deleted->files_deleted;
  report.files_refused = deleted->refused;
  report.bytes_deleted = deleted->bytes_deleted;
  report.dirs_deleted = *dirs;
  end_record.parameters["status"] = "COMPLETED";
  end_record.metrics["numDeletedFiles"] = std::to_string(report.files_deleted);
  end_record.metrics["numVacuumedDirectories"] = std::to_string(report.dirs_deleted);
  return delta::AppendOperationRecord(log, end_record).status();
}

}  // namespace

Result<PathSet> DeltaLiveSet(const DeltaSnapshot& snapshot,
                                                     int64_t cutoff_ms,
                                                     const std::string& root_uri) {
  PathSet live;
  live.reserve(snapshot.active_files.size());
  const delta::TablePathResolver paths(root_uri);
  // The snapshot merges the checkpoint and the commits since: its actions name the log.
  const std::string where = "the Delta log of " + root_uri + " (_delta_log, version " +
                            std::to_string(snapshot.version) + ")";
  for (const auto& f : snapshot.active_files) {
    ARROW_RETURN_NOT_OK(AddIfInside(f.path, paths, live));
    ARROW_RETURN_NOT_OK(AddDvIfInside(f.deletion_vector, f.path, where, paths, live));
  }
  for (const auto& t : snapshot.tombstones) {
    if (t.deletion_timestamp.value_or(0) < cutoff_ms) continue;  // expired
    ARROW_RETURN_NOT_OK(AddIfInside(t.path, paths, live));
    ARROW_RETURN_NOT_OK(AddDvIfInside(t.deletion_vector, t.path, where, paths, live));
  }
  return live;
}

Result<VacuumReport> VacuumDeltaTable(std::shared_ptr<Storage> table, const VacuumOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  const int64_t now_ms = options.clock->NowMs();
  VacuumReport report = StartReport("delta", options);

  // 1. Understand the whole log before anything else; any doubt stops here.
  ARROW_ASSIGN_OR_RAISE(auto log, DeltaLog::Open(table, options.engine));
  // An optimistic run first reads the log without the live files (a checkpoint's bulk); only
  // if it cannot skip does it read them.
  ARROW_ASSIGN_OR_RAISE(auto snapshot, log->LoadSnapshot(/*with_active_files=*/!options.optimistic));
  ARROW_RETURN_NOT_OK(delta::CheckProtocolSupported(snapshot.protocol, snapshot.protocol_source));
  ARROW_ASSIGN_OR_RAISE(int64_t retention_ms, RetentionMs(snapshot, options));
  const int64_t cutoff_ms = now_ms - retention_ms;
  ARROW_ASSIGN_OR_RAISE(auto watermark, ReadVacuumWatermark(*table));

  // 2. Optimistic: decide from the log alone.
  if (options.optimistic) {
    ARROW_ASSIGN_OR_RAISE(auto bound, ForceFullAfterMs(options));
    ARROW_ASSIGN_OR_RAISE(auto decision, DecideOptimistic(*log, snapshot, watermark, now_ms, cutoff_ms, bound));
    report.skip_reason = decision.reason;
    if (decision.skip) {
      report.skipped = true;
      report.time_to_identify_ms = ElapsedMs(started);
      return report;
    }
    ARROW_ASSIGN_OR_RAISE(snapshot, log->LoadSnapshot(/*with_active_files=*/true));
  }

  // 3. Candidates: visible, untracked, older than the cutoff.
  ARROW_ASSIGN_OR_RAISE(auto live, DeltaLiveSet(snapshot, cutoff_ms, table->root_uri()));
  VisibilityRule rule{snapshot.metadata.partition_columns, false};
  auto formats = snapshot.metadata.configuration.find("delta.universalFormat.enabledFormats");
  rule.hide_metadata = formats != snapshot.metadata.configuration.end() &&
                       formats->second.find("iceberg") != std::string::npos;
  std::optional<int64_t> watermark_version;
  if (options.mode == VacuumMode::kLite || !options.dry_run) {
    ARROW_ASSIGN_OR_RAISE(watermark_version, LatestCommitBefore(*log, snapshot, cutoff_ms));
  }
  std::vector<VacuumCandidate> candidates;
  std::vector<std::string> old_empty_folders;
  // A lite run lists nothing: the files the last full run kept for their youth are still owed.
  std::optional<int64_t> oldest_young = watermark ? watermark->oldest_young_untracked_ms : std::nullopt;
  if (options.mode == VacuumMode::kFull) {
    ARROW_ASSIGN_OR_RAISE(auto scan, ScanForUntracked(*table, options, rule, live, cutoff_ms));
    report.files_listed = scan.files_listed;
    candidates = std::move(scan.candidates);
    old_empty_folders = std::move(scan.old_empty_folders);
    oldest_young = scan.oldest_young_untracked_ms;
  } else {
    ARROW_ASSIGN_OR_RAISE(candidates, LiteCandidates(*log, watermark, watermark_version, live, cutoff_ms, rule));
  }
  SortByPath(candidates);
  report.candidates = std::move(candidates);
  report.time_to_identify_ms = ElapsedMs(started);
  if (options.dry_run) return report;

  // 4. Record, delete, record, persist the watermark.
  ARROW_RETURN_NOT_OK(DeleteAndRecord(*log, snapshot, options, retention_ms, old_empty_folders, report));
  VacuumWatermark next;
  next.latest_commit_version_outside_retention = watermark_version;
  next.snapshot_version = snapshot.version;
  next.cutoff_ms = cutoff_ms;
  next.vacuum_time_ms = now_ms;
  if (options.mode == VacuumMode::kFull) {
    next.last_full_vacuum_ms = now_ms;
  } else if (watermark) {
    next.last_full_vacuum_ms = watermark->last_full_vacuum_ms;
  }
  next.oldest_young_untracked_ms = oldest_young;
  ARROW_RETURN_NOT_OK(WriteVacuumWatermark(*table, next));
  return report;
}

}  // namespace lakeshore::vacuum
