#include "services/metadata/indexing_instant.h"

#include <algorithm>
#include <optional>

#include <nlohmann/json.hpp>

#include "format/avro_container.h"
#include "format/hoodie_avro_schemas.h"

namespace lakeshore {
namespace {

using nlohmann::json;

constexpr const char* kLakeshore = "lakeshore";

/// The latest completed instant that wrote data: what a build indexes up to.
std::string LatestCompletedDataInstant(const Timeline& timeline) {
  std::string latest;
  for (const auto& i : timeline.instants()) {
    if (i.is_completed() && actions::WritesData(i.action)) latest = std::max(latest, i.time);
  }
  return latest;
}

/// A build's plan: the partitions it builds, indexed up to `up_to`.
struct BuildPlan {
  std::vector<std::string> partitions;
  std::string up_to;
};

/// The plan of `pending` when its requested file says a Lakeshore build wrote it.
Result<std::optional<BuildPlan>> LakeshoreBuildPlan(TableContext& ctx, const Instant& pending) {
  Instant requested = pending;
  requested.state = InstantState::kRequested;
  const std::string source = ctx.timeline_location.PathOf(requested);
  ARROW_ASSIGN_OR_RAISE(bool exists, ctx.storage->Exists(source));
  if (!exists) return std::optional<BuildPlan>();  // only an inflight file: not a plan of ours
  ARROW_ASSIGN_OR_RAISE(auto bytes, timeline_ops::ReadContent(*ctx.storage, ctx.timeline_location, requested));
  if (bytes.empty()) return std::optional<BuildPlan>();
  ARROW_ASSIGN_OR_RAISE(auto container, format::ReadAvroContainer(bytes, source));
  BuildPlan plan;
  bool ours = false;
  for (const auto& record : container.records) {
    if (!record.is_object() || !record.contains("indexPartitionInfos") || !record["indexPartitionInfos"].is_array()) {
      continue;
    }
    for (const auto& info : record["indexPartitionInfos"]) {
      if (!info.is_object()) continue;
      if (info.contains("metadataPartitionPath") && info["metadataPartitionPath"].is_string()) {
        plan.partitions.push_back(info["metadataPartitionPath"].get<std::string>());
      }
      if (info.contains("indexUptoInstant") && info["indexUptoInstant"].is_string()) {
        plan.up_to = info["indexUptoInstant"].get<std::string>();
      }
      if (!info.contains("extraMetadata") || !info["extraMetadata"].is_object()) continue;
      auto writer = info["extraMetadata"].find(kIndexingWriterKey);
      ours = ours || (writer != info["extraMetadata"].end() && writer->is_string() && *writer == kLakeshore);
    }
  }
  return ours ? std::optional<BuildPlan>(std::move(plan)) : std::optional<BuildPlan>();
}

/// The HoodieIndexPlan of a build of `partitions` (or, `completed`, its HoodieIndexCommitMetadata,
/// whose operationType Hudi's indexer leaves unset too), each partition indexed up to `up_to`
/// and tagged as Lakeshore's.
Result<std::string> EncodeBuild(const std::vector<std::string>& partitions, const std::string& up_to,
                                bool completed) {
  json infos = json::array();
  for (const auto& p : partitions) {
    infos.push_back({{"version", 1},
                     {"metadataPartitionPath", p},
                     {"indexUptoInstant", up_to},
                     {"extraMetadata", {{kIndexingWriterKey, kLakeshore}}}});
  }
  json record = {{"version", 1}, {"indexPartitionInfos", infos}};
  ARROW_ASSIGN_OR_RAISE(std::string schema,
                        format::HoodieAvroSchema(completed ? "HoodieIndexCommitMetadata" : "HoodieIndexPlan"));
  return format::WriteAvroContainer(schema, {record});
}

}  // namespace

Result<IndexingInstant> IndexingInstant::Start(TableContext& ctx, const Timeline& data_timeline,
                                               const std::vector<std::string>& partitions, const LockGuard& guard) {
  std::string up_to = LatestCompletedDataInstant(data_timeline);
  ARROW_ASSIGN_OR_RAISE(std::string plan, EncodeBuild(partitions, up_to, /*completed=*/false));
  ARROW_ASSIGN_OR_RAISE(
      auto life, InstantLifecycle::Plan(
                     ctx.storage, ctx.timeline_location, actions::kIndexing, LatestTime({&data_timeline}),
                     [&](const Instant&) -> Result<std::string> { return plan; }, *ctx.clock, guard));
  ARROW_RETURN_NOT_OK(life.StartInflight(""));  // Hudi's indexer leaves the inflight file empty
  return IndexingInstant(std::move(life), partitions, std::move(up_to));
}

Status IndexingInstant::Complete(TableContext& ctx, const LockGuard& guard) {
  ARROW_ASSIGN_OR_RAISE(auto timeline, ctx.LoadTimeline());
  ARROW_ASSIGN_OR_RAISE(std::string metadata, EncodeBuild(partitions_, up_to_, /*completed=*/true));
  return life_.Complete(LatestTime({&timeline}), metadata, *ctx.clock, guard).status();
}

Result<std::vector<std::string>> PartitionsOfPendingLakeshoreBuilds(TableContext& ctx, const Timeline& data_timeline) {
  std::vector<std::string> out;
  for (const Instant& pending : data_timeline.Pending()) {
    if (pending.action != actions::kIndexing) continue;
    ARROW_ASSIGN_OR_RAISE(auto plan, LakeshoreBuildPlan(ctx, pending));
    if (plan) out.insert(out.end(), plan->partitions.begin(), plan->partitions.end());
  }
  return out;
}

Result<bool> RecoverCrashedIndexing(TableContext& ctx, const Timeline& data_timeline,
                                    const std::vector<std::string>& built, const LockGuard& guard,
                                    const std::function<Status(const std::vector<std::string>&)>& unlist) {
  bool settled = false;
  for (const Instant& pending : data_timeline.Pending()) {
    if (pending.action != actions::kIndexing) continue;
    ARROW_ASSIGN_OR_RAISE(auto plan, LakeshoreBuildPlan(ctx, pending));
    if (!plan) continue;
    ARROW_RETURN_NOT_OK(guard.CheckHeld());
    settled = true;
    auto life = InstantLifecycle::Resume(ctx.storage, ctx.timeline_location, pending);
    const bool finished = !plan->partitions.empty() &&
                          std::all_of(plan->partitions.begin(), plan->partitions.end(), [&](const std::string& p) {
                            return std::find(built.begin(), built.end(), p) != built.end();
                          });
    if (!finished) {
      std::vector<std::string> unbuilt;  // a partition the build finished stays built
      for (const auto& p : plan->partitions) {
        if (std::find(built.begin(), built.end(), p) == built.end()) unbuilt.push_back(p);
      }
      ARROW_RETURN_NOT_OK(unlist(unbuilt));
      ARROW_RETURN_NOT_OK(life.Abandon());
      continue;
    }
    // Every partition was built and listed: only the completion was lost.
    ARROW_RETURN_NOT_OK(life.StartInflight(""));
    IndexingInstant build(std::move(life), std::move(plan->partitions), std::move(plan->up_to));
    ARROW_RETURN_NOT_OK(build.Complete(ctx, guard));
  }
  return settled;
}

}  // namespace lakeshore
