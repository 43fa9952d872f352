#include "services/clustering/clusterer.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include <arrow/compute/api.h>

#include "actions/instant_lifecycle.h"
#include "services/table_service.h"
#include "table/file_naming.h"
#include "write/write_client.h"

namespace lakeshore {
namespace {

using FileGroupKey = std::pair<std::string, std::string>;

/// Groups a pending compaction is merging: a clustering leaves them alone, as Hudi's does.
Result<std::set<FileGroupKey>> FileGroupsUnderCompaction(TableContext& ctx, const Timeline& timeline) {
  std::set<FileGroupKey> out;
  for (const Instant& pending : timeline.Pending()) {
    if (pending.action != actions::kCompaction) continue;
    ARROW_ASSIGN_OR_RAISE(auto plan, ctx.LoadRequestedPlan(pending));
    if (!plan) continue;
    for (const auto& slice : plan->compaction) out.insert({slice.partition, slice.file_id});
  }
  return out;
}

/// Per partition, the small slices as input groups of at most kMaxGroupBytes each (Hudi's
/// plan.strategy.max.bytes.per.group, 2 GiB), each with the output file groups its bytes need.
Result<CommitMetadata> PlanClustering(TableContext& ctx, const Timeline& timeline,
                                      const std::vector<CompletedCommit>& commits, const ClusteringOptions& options,
                                      int64_t target_bytes, std::string* reason) {
  constexpr int64_t kMaxGroupBytes = 2LL << 30;
  const FileSystemView view = FileSystemView::Build(commits);
  const std::map<std::string, int64_t> sizes = FileSizesByPath(commits);
  ARROW_ASSIGN_OR_RAISE(auto clustering, FileGroupsUnderClustering(ctx, timeline));
  ARROW_ASSIGN_OR_RAISE(auto compacting, FileGroupsUnderCompaction(ctx, timeline));
  ARROW_RETURN_NOT_OK(view.CheckKnownPartitions(options.partitions, "cannot cluster " + ctx.uri));
  const std::set<std::string> wanted(options.partitions.begin(), options.partitions.end());
  CommitMetadata plan;
  plan.operation = "cluster";
  plan.clustering_sort_columns = options.sort_columns;
  for (const std::string& partition : view.Partitions()) {
    if (!wanted.empty() && wanted.count(partition) == 0) continue;
    std::vector<std::pair<const FileGroup*, int64_t>> small;
    for (const FileGroup* g : view.LiveFileGroupsIn(partition)) {
      const FileGroupKey key{g->partition, g->file_id};
      if (clustering.count(key) || compacting.count(key)) continue;
      const int64_t bytes = SliceBytes(g->latest(), sizes);
      if (bytes < options.small_file_limit_bytes) small.emplace_back(g, bytes);
    }
    // Without sorting, one file group rewritten alone gains nothing.
    if (small.empty() || (small.size() < 2 && options.sort_columns.empty())) continue;
    CommitMetadata::ClusteringGroup group;
    int64_t group_bytes = 0;
    auto close_group = [&] {
      if (group.slices.empty()) return;
      group.num_output_groups = std::max<int64_t>(1, (group_bytes + target_bytes - 1) / target_bytes);
      plan.clustering_groups.push_back(std::move(group));
      group = CommitMetadata::ClusteringGroup{};
      group_bytes = 0;
    };
    for (const auto& [g, bytes] : small) {
      if (group_bytes > 0 && group_bytes + bytes > kMaxGroupBytes) close_group();
      PlannedSlice ps = PlanLatestSlice(*g);
      plan.clustering_file_ids[ps.partition].push_back(ps.file_id);
      group.slices.push_back(std::move(ps));
      group_bytes += bytes;
    }
    close_group();
  }
  if (plan.clustering_groups.empty()) {
    *reason = "no partition has small file groups to cluster (below " + std::to_string(options.small_file_limit_bytes) +
              " bytes" + (options.sort_columns.empty() ? ", two or more without sort columns)" : ")");
  }
  return plan;
}

/// One input group: its slices read merged, sorted, and written into new file groups.
Result<std::vector<WriteStat>> ClusterGroup(TableContext& ctx, const SliceReadSpec& spec,
                                            const CommitMetadata::ClusteringGroup& group,
                                            const std::vector<std::string>& sort_columns,
                                            const std::vector<std::string>& new_paths,
                                            const ParquetWriteSettings& settings) {
  std::vector<std::shared_ptr<arrow::Table>> parts;
  for (const auto& ps : group.slices) {
    ARROW_ASSIGN_OR_RAISE(auto rows, ReadPlannedSlice(ctx, spec, ps));
    parts.push_back(std::move(rows));
  }
  std::shared_ptr<arrow::Table> all;
  if (parts.empty()) {
    ARROW_ASSIGN_OR_RAISE(all, arrow::Table::MakeEmpty(spec.schema));
  } else {
    ARROW_ASSIGN_OR_RAISE(all, arrow::ConcatenateTables(parts));
  }
  if (!sort_columns.empty() && all->num_rows() > 1) {
    std::vector<arrow::compute::SortKey> keys;
    for (const auto& c : sort_columns) keys.emplace_back(c, arrow::compute::SortOrder::Ascending);
    ARROW_ASSIGN_OR_RAISE(auto order, arrow::compute::SortIndices(arrow::Datum(all), arrow::compute::SortOptions(keys)));
    ARROW_ASSIGN_OR_RAISE(auto sorted, arrow::compute::Take(all, order));
    all = sorted.table();
  }
  const int64_t n = all->num_rows();
  const int64_t outputs = static_cast<int64_t>(new_paths.size());
  const int64_t per_file = std::max<int64_t>(1, (n + outputs - 1) / outputs);
  std::vector<WriteStat> stats;
  for (int64_t k = 0; k < outputs && (k == 0 || k * per_file < n); ++k) {
    const std::string& path = new_paths[static_cast<size_t>(k)];
    ARROW_ASSIGN_OR_RAISE(auto written, WriteRewrittenBaseFile(ctx, all->Slice(k * per_file, per_file), path, settings));
    auto parsed = ParseDataFileName(BaseName(path));
    WriteStat stat;
    stat.partition = group.slices.front().partition;
    stat.file_id = parsed ? parsed->file_id : "";
    stat.path = path;
    stat.num_records = written.num_records;
    stat.num_inserts = written.num_records;
    stat.file_size = written.size;
    stat.min_record_key = written.min_record_key;
    stat.max_record_key = written.max_record_key;
    stats.push_back(std::move(stat));
  }
  return stats;
}

Status Execute(TableContext& ctx, InstantLifecycle& lifecycle, const CommitMetadata& plan,
               const ClusteringOptions& options, ClusteringResult* result) {
  const std::string time = lifecycle.instant().time;
  // New file ids per output group, named up front so the markers list every file first.
  const std::string token = NewWriteToken();
  std::vector<std::vector<std::string>> paths(plan.clustering_groups.size());
  std::vector<std::string> all_paths;
  for (size_t g = 0; g < plan.clustering_groups.size(); ++g) {
    const auto& group = plan.clustering_groups[g];
    if (group.slices.empty()) return CorruptMetadata("clustering " + time + " has an input group without slices");
    for (int64_t k = 0; k < group.num_output_groups; ++k) {
      paths[g].push_back(JoinPath(group.slices.front().partition, BaseFileName(NewFileId(), token, time)));
      all_paths.push_back(paths[g].back());
    }
  }
  ARROW_ASSIGN_OR_RAISE(const SliceReadSpec spec, StartServiceExecution(ctx, lifecycle, plan, all_paths));
  const int64_t total = static_cast<int64_t>(plan.clustering_groups.size());
  ServiceProgress progress(ctx, options.progress, "clustering", total, "groups");
  progress.Start();
  // A group writes its output files one after another: as many files at once as groups.
  const ParquetWriteSettings settings = ForFilesAtOnce(ctx.parquet, total, ctx.engine->parallelism());
  ARROW_ASSIGN_OR_RAISE(auto stats, ctx.engine->Map<std::vector<WriteStat>>(
                                        total, [&](int64_t i) -> Result<std::vector<WriteStat>> {
                                          ARROW_RETURN_NOT_OK(options.stop.Poll());
                                          const auto g = static_cast<size_t>(i);
                                          ARROW_ASSIGN_OR_RAISE(auto out, ClusterGroup(ctx, spec, plan.clustering_groups[g],
                                                                                       plan.clustering_sort_columns, paths[g], settings));
                                          progress.Advance();
                                          return out;
                                        }));
  CommitMetadata completed;
  completed.operation = "cluster";
  if (!ctx.avro_schema.empty()) completed.extra["schema"] = ctx.avro_schema;
  completed.replaced_file_ids = plan.clustering_file_ids;
  for (auto& group_stats : stats) {
    for (auto& stat : group_stats) {
      result->records_written += stat.num_records;
      result->bytes_written += stat.file_size;
      ++result->file_groups_written;
      completed.write_stats.push_back(std::move(stat));
    }
  }
  for (const auto& [partition, ids] : plan.clustering_file_ids) result->file_groups_replaced += static_cast<int64_t>(ids.size());
  ARROW_RETURN_NOT_OK(options.stop.Poll());  // stopped: left planned, for the next Cluster
  ARROW_RETURN_NOT_OK(CompleteService(ctx, lifecycle, completed));
  result->completed = true;
  return Status::OK();
}

}  // namespace

Result<ClusteringResult> ClusterTable(TableContext& ctx, const ClusteringOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  for (const auto& c : options.sort_columns) {
    if (ctx.config.schema->GetFieldIndex(c) < 0) {
      return Status::Invalid("cannot cluster table ", ctx.uri, " by '", c, "': it has no such column");
    }
  }
  if (options.small_file_limit_bytes <= 0 || options.target_file_bytes < 0) {
    return Status::Invalid("clustering needs a positive small-file limit and a non-negative target file size");
  }
  const int64_t target_bytes = options.target_file_bytes > 0 ? options.target_file_bytes : ctx.plan.max_file_size_bytes;
  ClusteringResult result;
  ServiceRun run;
  ARROW_RETURN_NOT_OK(RunTableService(
      ctx, actions::kClustering, options.schedule_only,
      [&](const Timeline& timeline, std::string* reason) -> Result<CommitMetadata> {
        ARROW_ASSIGN_OR_RAISE(auto commits, ctx.LoadCommits(timeline));
        return PlanClustering(ctx, timeline, commits, options, target_bytes, reason);
      },
      [](const CommitMetadata& plan) { return !plan.clustering_groups.empty(); },
      [&](InstantLifecycle& lifecycle, const CommitMetadata& plan) {
        return Execute(ctx, lifecycle, plan, options, &result);
      },
      &run));
  FillFromRun(run, start, &result);
  return result;
}

}  // namespace lakeshore
