#include "services/metadata/metadata_archival.h"

#include <chrono>
#include <map>
#include <set>

#include "lakeshore/storage/sub_tree_storage.h"
#include "services/archive/timeline_archiver.h"
#include "table/file_naming.h"
#include "table/hoodie_table_config.h"
#include "write/table_lock.h"

namespace lakeshore {
namespace {

/// The instants that wrote the files the listings of `partitions` hold.
Result<std::set<std::string>> InstantsWithFiles(const std::vector<std::string>& partitions,
                                                const MetadataSlicesOf& slices_of) {
  std::set<std::string> out;
  for (const auto& partition : partitions) {
    ARROW_ASSIGN_OR_RAISE(const MetadataPartitionSlices* slices, slices_of(partition));
    for (const auto& [path, size] : slices->sizes) {
      if (auto parsed = ParseDataFileName(BaseName(path))) out.insert(parsed->instant_time);
    }
  }
  return out;
}

bool NotIndexInit(const Instant& i) { return !IsIndexInitTime(i.time); }

/// The choice by the counts and the data bound alone: the data instants a rollback or restore
/// can reach (its writes, its pending instants and its savepoints; an `indexing` or clean
/// instant has no metadata deltacommit of its own) keep theirs.
Result<ArchivalChoice> ChoiceByCounts(const TableContext& ctx, const Timeline& data_timeline,
                                      const ArchiveOptions& keep) {
  ARROW_ASSIGN_OR_RAISE(auto counts, KeepCommits(keep, ctx.config.properties));
  std::string bound;
  for (const auto& i : data_timeline.instants()) {
    const bool reachable = actions::WritesData(i.action) || !i.is_completed() || i.action == actions::kSavepoint;
    if (reachable && (bound.empty() || i.time < bound)) bound = i.time;
  }
  return ArchivalChoice{counts.first, counts.second, bound, NotIndexInit, NotIndexInit};
}

}  // namespace

Result<std::set<std::string>> MetadataInstantsDueForArchival(const TableContext& ctx, const Timeline& mdt_timeline,
                                                             const Timeline& data_timeline,
                                                             const ArchiveOptions& keep) {
  ARROW_ASSIGN_OR_RAISE(auto choice, ChoiceByCounts(ctx, data_timeline, keep));
  std::set<std::string> out;
  for (const auto& i : ArchivableInstants(mdt_timeline, choice)) out.insert(i.time);
  return out;
}

Result<ArchiveResult> ArchiveMetadataTimeline(TableContext& ctx, Storage& mdt, const Timeline& mdt_timeline,
                                              const Timeline& data_timeline, const std::vector<std::string>& partitions,
                                              const MetadataSlicesOf& slices_of, const ArchiveOptions& keep,
                                              const LockGuard& guard) {
  const auto started = std::chrono::steady_clock::now();
  // By the counts first: nothing to move costs no listing.
  ARROW_ASSIGN_OR_RAISE(auto choice, ChoiceByCounts(ctx, data_timeline, keep));
  if (ArchivableInstants(mdt_timeline, choice).empty()) return ArchiveResult{};
  // A listing holds the files of completed metadata instants; a pending one bounds the choice.
  ARROW_ASSIGN_OR_RAISE(auto with_files, InstantsWithFiles(partitions, slices_of));
  choice.movable = [&](const Instant& i) { return NotIndexInit(i) && with_files.count(i.time) == 0; };
  const auto chosen = ArchivableInstants(mdt_timeline, choice);
  if (chosen.empty()) return ArchiveResult{};
  const ArchiveTarget target{&mdt, kMetadataTimeline, kMetadataArchiveFolder, ctx.engine.get()};
  ARROW_ASSIGN_OR_RAISE(auto result, ArchiveInstants(target, mdt_timeline, chosen, guard));
  result.duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  return result;
}

Result<ArchiveResult> ArchiveMetadataTimeline(TableContext& ctx, const ArchiveOptions& keep) {
  ARROW_ASSIGN_OR_RAISE(auto config, HoodieTableConfig::Load(*ctx.storage));
  if (config.metadata_partitions.empty() && config.metadata_partitions_inflight.empty()) return ArchiveResult{};
  ARROW_ASSIGN_OR_RAISE(auto guard, ctx.Lock().Acquire("archive"));
  ARROW_ASSIGN_OR_RAISE(auto data_timeline, ctx.LoadTimeline());
  ARROW_ASSIGN_OR_RAISE(auto mdt, SubTreeStorage::Make(ctx.storage, kMetadataFolder));
  ARROW_ASSIGN_OR_RAISE(auto mdt_timeline, Timeline::Load(*mdt, kMetadataTimeline));
  // Partitions being built hold their files back too.
  std::vector<std::string> partitions = config.metadata_partitions;
  partitions.insert(partitions.end(), config.metadata_partitions_inflight.begin(),
                    config.metadata_partitions_inflight.end());
  std::map<std::string, MetadataPartitionSlices> listed;
  auto slices_of = [&](const std::string& partition) -> Result<const MetadataPartitionSlices*> {
    ARROW_ASSIGN_OR_RAISE(auto slices, LoadMetadataPartitionSlices(*mdt, partition, &mdt_timeline));
    return &(listed[partition] = std::move(slices));
  };
  ARROW_ASSIGN_OR_RAISE(auto result, ArchiveMetadataTimeline(ctx, *mdt, mdt_timeline, data_timeline, partitions,
                                                             slices_of, keep, *guard));
  ARROW_RETURN_NOT_OK(guard->Release());
  return result;
}

}  // namespace lakeshore
