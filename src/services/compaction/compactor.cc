#include "services/compaction/compactor.h"

#include <chrono>
#include <map>
#include <set>

#include "actions/instant_lifecycle.h"
#include "services/table_service.h"
#include "table/file_naming.h"
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
Result<std::vector<PlannedSlice>> ChooseSlices(TableContext& ctx, const Timeline& timeline,
                                                      const std::vector<CompletedCommit>& commits,
                                                      const CompactionOptions& options, std::string* reason) {
  const FileSystemView view = FileSystemView::Build(commits);
  ARROW_ASSIGN_OR_RAISE(auto clustering, FileGroupsUnderClustering(ctx, timeline));
  const std::map<std::string, int64_t> sizes = FileSizesByPath(commits);
  const bool by_commits = options.min_delta_commits > 0 &&
                          DeltaCommitsSinceLastCompaction(commits) >= options.min_delta_commits;
  const bool any = options.min_delta_commits <= 0 && options.min_log_bytes <= 0;
  std::vector<PlannedSlice> out;
  int64_t with_logs = 0;
  for (const FileGroup* g : view.LiveFileGroups()) {
    const FileSlice& slice = g->latest();
    if (slice.log_files.empty() || clustering.count({g->partition, g->file_id})) continue;
    ++with_logs;
    const int64_t log_bytes = SliceBytes(slice, sizes) - (slice.base_file ? slice.base_file->size : 0);
    const bool by_size = options.min_log_bytes > 0 && log_bytes >= options.min_log_bytes;
    if (!any && !by_commits && !by_size) continue;
    out.push_back(PlanLatestSlice(*g));
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
Result<WriteStat> CompactSlice(TableContext& ctx, const SliceReadSpec& spec, const PlannedSlice& op,
                               const std::string& new_path, const ParquetWriteSettings& settings) {
  ARROW_ASSIGN_OR_RAISE(auto merged, ReadPlannedSlice(ctx, spec, op));
  ARROW_ASSIGN_OR_RAISE(auto written, WriteRewrittenBaseFile(ctx, std::move(merged), new_path, settings));
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
  const std::string token = NewWriteToken();
  std::vector<std::string> paths;
  for (const auto& op : plan.compaction) paths.push_back(JoinPath(op.partition, BaseFileName(op.file_id, token, time)));
  ARROW_ASSIGN_OR_RAISE(const SliceReadSpec spec, StartServiceExecution(ctx, lifecycle, plan, paths));
  const int64_t total = static_cast<int64_t>(plan.compaction.size());
  ServiceProgress progress(ctx, options.progress, "compacting", total, "file groups");
  progress.Start();
  const ParquetWriteSettings settings = ForFilesAtOnce(ctx.parquet, total, ctx.engine->parallelism());
  ARROW_ASSIGN_OR_RAISE(auto stats, ctx.engine->Map<WriteStat>(total, [&](int64_t i) -> Result<WriteStat> {
    ARROW_RETURN_NOT_OK(options.stop.Poll());
    ARROW_ASSIGN_OR_RAISE(auto stat, CompactSlice(ctx, spec, plan.compaction[static_cast<size_t>(i)],
                                                   paths[static_cast<size_t>(i)], settings));
    progress.Advance();
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

  ARROW_RETURN_NOT_OK(options.stop.Poll());  // stopped: left planned, for the next Compact
  ARROW_RETURN_NOT_OK(CompleteService(ctx, lifecycle, completed));
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
  ServiceRun run;
  ARROW_RETURN_NOT_OK(RunTableService(
      ctx, actions::kCompaction, options.schedule_only,
      [&](const Timeline& timeline, std::string* reason) -> Result<CommitMetadata> {
        ARROW_ASSIGN_OR_RAISE(auto commits, ctx.LoadCommits(timeline));
        CommitMetadata plan;
        plan.operation = "compact";
        ARROW_ASSIGN_OR_RAISE(plan.compaction, ChooseSlices(ctx, timeline, commits, options, reason));
        return plan;
      },
      [](const CommitMetadata& plan) { return !plan.compaction.empty(); },
      [&](InstantLifecycle& lifecycle, const CommitMetadata& plan) {
        return Execute(ctx, lifecycle, plan, options, &result);
      },
      &run));
  FillFromRun(run, start, &result);
  return result;
}

}  // namespace lakeshore
