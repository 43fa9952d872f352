// What the table services that rewrite slices (compaction, clustering) share: finding a pending
// instant of theirs to resume, clearing a crashed attempt's files, reporting progress from
// engine threads, and completing under the table lock.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <vector>
#include <optional>
#include <string>

#include "actions/instant_lifecycle.h"
#include "io/base_file.h"
#include "read/file_slice_reader.h"
#include "actions/table_context.h"
#include "lakeshore/table/table.h"

namespace lakeshore {

/// A pending service instant found on the timeline, with its requested plan.
struct PendingService {
  InstantLifecycle lifecycle;
  CommitMetadata plan;
};

/// The oldest pending instant of `action` on `timeline` whose requested plan is still there
/// (one completed since the listing is skipped). One whose heartbeat is alive is being run by
/// another process: nullopt, with its time in `*running`. Call under the table lock.
Result<std::optional<PendingService>> FindPendingService(TableContext& ctx, const Timeline& timeline,
                                                         const std::string& action, std::string* running);

/// What RunTableService did around the service's own work.
struct ServiceRun {
  std::string instant_time;  ///< the instant run or scheduled ("" when nothing was due)
  bool scheduled = false;    ///< this run planned it
  std::string reason;        ///< why nothing ran, when nothing did
  std::vector<std::string> rolled_back_instants;
};

/// The one shape of a slice-rewriting service run (compaction, clustering), Hudi's: under the
/// table lock, failed writes are rolled back; a pending instant of `action` is resumed (one
/// whose heartbeat is alive is left to its process, `reason` says so), or else `make_plan`
/// makes a plan from the timeline (`has_work` false: nothing is due, `make_plan` sets
/// `reason`) and the requested instant is created with it. Unless `schedule_only` and just
/// planned, a heartbeat starts under the lock, the lock is released, and `execute` runs with
/// the lifecycle and the plan (it completes the instant, CompleteService).
Status RunTableService(TableContext& ctx, const std::string& action, bool schedule_only,
                       const std::function<Result<CommitMetadata>(const Timeline&, std::string* reason)>& make_plan,
                       const std::function<bool(const CommitMetadata&)>& has_work,
                       const std::function<Status(InstantLifecycle&, const CommitMetadata&)>& execute, ServiceRun* run);

/// `run`'s fields in a service's result (CompactionResult, ClusteringResult), with the time
/// since `start`.
template <typename ServiceResult>
void FillFromRun(const ServiceRun& run, std::chrono::steady_clock::time_point start, ServiceResult* result) {
  result->instant_time = run.instant_time;
  result->scheduled = run.scheduled;
  result->reason = run.reason;
  result->rolled_back_instants = run.rolled_back_instants;
  result->duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
}

/// The start of a service instant's execution: a previous attempt's files go
/// (ClearPreviousAttempt), CREATE markers name `new_files`, the inflight file is created; then
/// the timeline is read again. Returns how the plan's slices are read now (SliceSpecFor).
Result<SliceReadSpec> StartServiceExecution(TableContext& ctx, InstantLifecycle& lifecycle, const CommitMetadata& plan,
                                            const std::vector<std::string>& new_files);

/// A planned slice read merged (its base file and exactly its planned log files) under `spec`.
/// A planned base file that is gone → kCorruptMetadata naming it.
Result<std::shared_ptr<arrow::Table>> ReadPlannedSlice(TableContext& ctx, const SliceReadSpec& spec,
                                                       const PlannedSlice& planned);

/// Writes rewritten records (meta columns kept) as the base file `path`: `_hoodie_file_name`
/// becomes the new file's name; commit times and sequence numbers stay. `settings` are the
/// table's, for as many files as the service writes at once (`ForFilesAtOnce`).
Result<BaseFileWriteResult> WriteRewrittenBaseFile(TableContext& ctx, std::shared_ptr<arrow::Table> rows,
                                                   const std::string& path, const ParquetWriteSettings& settings);

/// Deletes what a previous attempt of the instant `time` wrote (the files its markers name),
/// then its markers. Nothing to do when it has none. Idempotent.
Status ClearPreviousAttempt(Storage& storage, const std::string& time);

/// The complete step of a service instant: under the table lock, with the timeline re-listed,
/// the completed file with `completed` (kCommitConflict when the instant was completed or rolled
/// back meanwhile); then its markers go.
Status CompleteService(TableContext& ctx, InstantLifecycle& lifecycle, const CommitMetadata& completed);

/// `group`'s latest slice as a plan names it (partition, file id, base instant and files).
PlannedSlice PlanLatestSlice(const FileGroup& group);

/// The size of every file the completed commits' write stats name, by path (log files too:
/// what a slice's files hold, without listing storage).
std::map<std::string, int64_t> FileSizesByPath(const std::vector<CompletedCommit>& commits);

/// The bytes of `slice`'s files (its base file and log files), from `sizes`.
int64_t SliceBytes(const FileSlice& slice, const std::map<std::string, int64_t>& sizes);

/// Progress of a service's parallel work on `ctx`'s table: `done` of `total` units of `phase`,
/// reported from any engine thread, never concurrently (TableContext::ReportProgress).
class ServiceProgress {
 public:
  ServiceProgress(TableContext& ctx, const ProgressCallback& callback, std::string phase, int64_t total,
                  std::string unit)
      : ctx_(ctx), callback_(callback), phase_(std::move(phase)), total_(total), unit_(std::move(unit)) {}

  /// Reports 0 done.
  void Start() { Report(0); }
  /// One more unit done.
  void Advance() { Report(-1); }

 private:
  void Report(int64_t done);

  TableContext& ctx_;
  const ProgressCallback& callback_;
  std::string phase_;
  int64_t total_;
  std::string unit_;
  std::mutex mu_;
  int64_t done_ = 0;
};

}  // namespace lakeshore
