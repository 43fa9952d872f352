#include "services/compaction/compactor.h"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>

#include "actions/instant_lifecycle.h"
#include "io/base_file.h"
#include "read/file_slice_reader.h"
#include "read/snapshot_reader.h"
#include "table/file_naming.h"
#include "table/meta_columns.h"
#include "timeline/markers.h"
#include "write/heartbeat.h"
#include "write/rollback.h"
#include "write/write_client.h"

namespace lakeshore {
namespace {

/// Deltacommits completed after the last completed compaction (all of them if none).
int64_t DeltaCommitsSinceLastCompaction(const std::vector<CompletedCommit>& commits) {
  std::string last_compaction;
  for (const auto& c : commits) {
    if (c.metadata.operation == "compact" && c.instant.completion_time > last_compaction) {
      last_compaction = c.instant.completion_time;
    }
  }
  int64_t n = 0;
  for (const auto& c : commits) {
    if (c.instant.action == actions::kDeltaCommit && c.instant.completion_time > last_compaction) ++n;
  }
  return n;
}

/// The slices to compact by `options`' triggers, or why there are none.
Result<std::vector<CompactionOperation>> ChooseSlices(TableContext& ctx, const Timeline& timeline,
                                                      const std::vector<CompletedCommit>& commits,
                                                      const CompactionOptions& options, std::string* reason) {
  const FileSystemView view = FileSystemView::Build(commits);
  ARROW_ASSIGN_OR_RAISE(auto clustering, FileGroupsUnderClustering(ctx, timeline));
  std::map<std::string, int64_t> log_sizes;
  for (const auto& c : commits) {
    for (const auto& stat : c.metadata.write_stats) log_sizes[stat.path] = stat.file_size;
  }
  const bool by_commits = options.min_delta_commits > 0 &&
                          DeltaCommitsSinceLastCompaction(commits) >= options.min_delta_commits;
  const bool any = options.min_delta_commits <= 0 && options.min_log_bytes <= 0;
  std::vector<CompactionOperation> out;
  int64_t with_logs = 0;
  for (const FileGroup* g : view.LiveFileGroups()) {
    const FileSlice& slice = g->latest();
    if (slice.log_files.empty() || clustering.count({g->partition, g->file_id})) continue;
    ++with_logs;
    int64_t bytes = 0;
    for (const auto& log : slice.log_files) bytes += log_sizes[log];
    const bool by_size = options.min_log_bytes > 0 && bytes >= options.min_log_bytes;
    if (!any && !by_commits && !by_size) continue;
    CompactionOperation op;
    op.partition = g->partition;
    op.file_id = g->file_id;
    op.base_instant = slice.base_instant;
    if (slice.base_file) op.base_file = slice.base_file->path;
    op.log_files = slice.log_files;
    out.push_back(std::move(op));
  }
  if (out.empty()) {
    *reason = with_logs == 0 ? "no file slice has log files"
                             : "the trigger does not hold (" + std::to_string(DeltaCommitsSinceLastCompaction(commits)) +
                                   " deltacommits since the last compaction, " + std::to_string(with_logs) +
                                   " slices with log files below the size bound)";
  }
  return out;
}

/// One slice merged into one new base file at `new_path`.
Result<WriteStat> CompactSlice(TableContext& ctx, const SliceReadSpec& spec, const CompactionOperation& op,
                               const std::string& new_path) {
  FileSlice slice;
  slice.base_instant = op.base_instant;
  if (!op.base_file.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto info, ctx.storage->GetFileInfo(op.base_file));
    if (!info) {
      return CorruptMetadata("compaction plan names base file '" + op.base_file + "', which is missing");
    }
    slice.base_file = BaseFile{op.base_file, info->size, 0, "", ""};
  }
  slice.log_files = op.log_files;
  ARROW_ASSIGN_OR_RAISE(auto merged, ReadFileSlice(*ctx.storage, slice, spec));
  // Each record keeps its commit time and sequence number; the file name is the new file's.
  const int column = merged->schema()->GetFieldIndex(meta_columns::kFileName);
  if (column >= 0) {
    ARROW_ASSIGN_OR_RAISE(auto name, meta_columns::MakeConstantColumn(std::string(BaseName(new_path)), merged->num_rows()));
    ARROW_ASSIGN_OR_RAISE(merged, merged->SetColumn(column, arrow::field(meta_columns::kFileName, name->type()),
                                                    std::make_shared<arrow::ChunkedArray>(name)));
  }
  ARROW_ASSIGN_OR_RAISE(auto written, WriteBaseFile(*ctx.storage, new_path, *merged, ctx.parquet));
  WriteStat stat;
  stat.partition = op.partition;
  stat.file_id = op.file_id;
  stat.path = new_path;
  stat.prev_base_instant = op.base_instant;
  stat.num_records = written.num_records;
  stat.num_updates = written.num_records;
  stat.file_size = written.size;
  stat.min_record_key = written.min_record_key;
  stat.max_record_key = written.max_record_key;
  return stat;
}

/// Executes and completes the compaction `lifecycle` with `plan`.
Status Execute(TableContext& ctx, InstantLifecycle& lifecycle, const CommitMetadata& plan,
               const CompactionOptions& options, CompactionResult* result) {
  const std::string time = lifecycle.instant().time;
  // A previous attempt's files, if any: its markers name them.
  ARROW_ASSIGN_OR_RAISE(auto old_markers, ReadMarkers(*ctx.storage, time));
  if (!old_markers.empty()) {
    std::vector<std::string> paths;
    for (const auto& m : old_markers) paths.push_back(m.path);
    ARROW_RETURN_NOT_OK(ctx.storage->DeleteFiles(paths).status());
    ARROW_RETURN_NOT_OK(DeleteMarkers(*ctx.storage, time));
  }
  const std::string token = NewWriteToken();
  std::vector<std::string> paths;
  std::vector<Marker> markers;
  for (const auto& op : plan.compaction) {
    paths.push_back(JoinPath(op.partition, BaseFileName(op.file_id, token, time)));
    markers.push_back({paths.back(), MarkerType::kCreate});
  }
  ARROW_RETURN_NOT_OK(WriteMarkers(*ctx.storage, time, markers));
  ARROW_ASSIGN_OR_RAISE(auto inflight, ctx.EncodeInstant(lifecycle.instant(), InstantState::kInflight, plan));
  ARROW_RETURN_NOT_OK(lifecycle.StartInflight(inflight));

  ARROW_ASSIGN_OR_RAISE(auto timeline, ctx.LoadTimeline());
  ARROW_ASSIGN_OR_RAISE(auto commits, ctx.LoadCommits(timeline));
  const SliceReadSpec spec = SliceSpecFor(ctx, timeline, commits, "");
  const int64_t total = static_cast<int64_t>(plan.compaction.size());
  std::atomic<int64_t> done{0};
  std::mutex progress_mu;
  auto report = [&](int64_t n) {
    if (!options.progress) return;
    std::lock_guard<std::mutex> lock(progress_mu);
    options.progress(Progress{"compacting", n, total, "file groups"});
  };
  report(0);
  ARROW_ASSIGN_OR_RAISE(auto stats, ctx.engine->Map<WriteStat>(total, [&](int64_t i) -> Result<WriteStat> {
    ARROW_ASSIGN_OR_RAISE(auto stat, CompactSlice(ctx, spec, plan.compaction[static_cast<size_t>(i)],
                                                   paths[static_cast<size_t>(i)]));
    report(++done);
    return stat;
  }));

  CommitMetadata completed;
  completed.operation = "compact";
  if (!ctx.avro_schema.empty()) completed.extra["schema"] = ctx.avro_schema;
  for (auto& stat : stats) {
    result->records_written += stat.num_records;
    result->bytes_written += stat.file_size;
    completed.write_stats.push_back(std::move(stat));
  }
  for (const auto& op : plan.compaction) result->log_files += static_cast<int64_t>(op.log_files.size());
  result->file_groups = total;

  ARROW_ASSIGN_OR_RAISE(auto guard, ctx.Lock().Acquire("compaction commit"));
  ARROW_ASSIGN_OR_RAISE(timeline, ctx.LoadTimeline());
  auto self = timeline.Find(time);
  if (!self || self->is_completed()) {
    return CommitConflict("compaction " + time + " was completed or rolled back by another process meanwhile");
  }
  ARROW_ASSIGN_OR_RAISE(auto bytes, ctx.EncodeInstant(lifecycle.instant(), InstantState::kCompleted, completed));
  ARROW_RETURN_NOT_OK(lifecycle.Complete(LatestTime({&timeline}), bytes, *ctx.clock, *guard).status());
  (void)guard->Release();
  (void)DeleteMarkers(*ctx.storage, time);
  result->completed = true;
  return Status::OK();
}

}  // namespace

Result<CompactionResult> CompactTable(TableContext& ctx, const CompactionOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (ctx.config.table_type != TableType::kMergeOnRead) {
    return Status::Invalid("table ", ctx.uri, " is copy-on-write: it has no log files to compact");
  }
  CompactionResult result;
  ARROW_ASSIGN_OR_RAISE(auto guard, ctx.Lock().Acquire("compaction"));
  ARROW_ASSIGN_OR_RAISE(auto timeline, ctx.LoadTimeline());
  ARROW_ASSIGN_OR_RAISE(result.rolled_back_instants, RollbackFailedWrites(ctx, timeline, *guard));
  ARROW_ASSIGN_OR_RAISE(timeline, ctx.LoadTimeline());

  std::optional<InstantLifecycle> lifecycle;
  CommitMetadata plan;
  for (const Instant& pending : timeline.Pending()) {
    if (pending.action != actions::kCompaction) continue;
    // A compaction another process is executing (its heartbeat is alive) is left to it.
    ARROW_ASSIGN_OR_RAISE(bool expired, IsHeartbeatExpired(*ctx.storage, *ctx.clock, pending.time, ctx.heartbeat));
    if (!expired) {
      result.instant_time = pending.time;
      result.reason = "compaction " + pending.time + " is running in another process";
      return result;
    }
    ARROW_ASSIGN_OR_RAISE(auto requested, ctx.LoadRequestedPlan(pending));
    if (!requested) continue;  // completed between the listing and the read
    plan = std::move(*requested);
    lifecycle.emplace(InstantLifecycle::Resume(ctx.storage, ctx.timeline_location, pending));
    break;
  }
  if (!lifecycle) {
    ARROW_ASSIGN_OR_RAISE(auto commits, ctx.LoadCommits(timeline));
    ARROW_ASSIGN_OR_RAISE(plan.compaction, ChooseSlices(ctx, timeline, commits, options, &result.reason));
    if (plan.compaction.empty()) return result;
    plan.operation = "compact";
    ARROW_ASSIGN_OR_RAISE(
        auto planned,
        InstantLifecycle::Plan(
            ctx.storage, ctx.timeline_location, actions::kCompaction, LatestTime({&timeline}),
            [&](const Instant& i) { return ctx.EncodeInstant(i, InstantState::kRequested, plan); }, *ctx.clock,
            *guard));
    lifecycle.emplace(std::move(planned));
    result.scheduled = true;
  }
  result.instant_time = lifecycle->instant().time;
  if (options.schedule_only && result.scheduled) return result;
  // The heartbeat starts under the lock: another compactor sees this one as running.
  ARROW_ASSIGN_OR_RAISE(auto heartbeat, Heartbeat::Start(ctx.storage, ctx.clock, result.instant_time, ctx.heartbeat));
  ARROW_RETURN_NOT_OK(guard->Release());
  Status st = Execute(ctx, *lifecycle, plan, options, &result);
  (void)heartbeat->Stop();
  ARROW_RETURN_NOT_OK(st);
  result.duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace lakeshore
