#include "services/metadata/metadata_archival.h"

#include <chrono>
#include <set>

#include "lakeshore/storage/sub_tree_storage.h"
#include "services/archive/timeline_archiver.h"
#include "table/file_naming.h"
#include "table/hoodie_table_config.h"
#include "write/table_lock.h"

namespace lakeshore {
namespace {

const TimelineLocation kMetadataTimeline{".hoodie/timeline", TimelineLayout::kV2};

/// Hudi's SOLO_COMMIT_TIMESTAMP prefix of index-init instant times.
bool IsIndexInitTime(std::string_view time) { return time.size() == 17 && time.substr(0, 14) == "00000000000000"; }

/// The instant times the data files in the metadata table's partition folders name: base and
/// log files, of any instant, completed or not.
Result<std::set<std::string>> FileInstants(Storage& mdt) {
  std::set<std::string> out;
  ARROW_ASSIGN_OR_RAISE(auto folders, mdt.List("", /*recursive=*/false));
  for (const auto& folder : folders) {
    const std::string name(BaseName(folder.path));
    if (!folder.is_dir || name.empty() || name[0] == '.') continue;
    ARROW_ASSIGN_OR_RAISE(auto entries, mdt.List(folder.path, /*recursive=*/false));
    for (const auto& e : entries) {
      if (e.is_dir) continue;
      if (auto parsed = ParseDataFileName(BaseName(e.path))) out.insert(parsed->instant_time);
    }
  }
  return out;
}

}  // namespace

Result<ArchiveResult> ArchiveMetadataTimeline(TableContext& ctx, Storage& mdt, const Timeline& mdt_timeline,
                                              const Timeline& data_timeline, const ArchiveOptions& keep,
                                              const LockGuard& guard) {
  const auto started = std::chrono::steady_clock::now();
  ARROW_ASSIGN_OR_RAISE(auto counts, KeepCommits(keep, ctx.config.properties));
  const auto [keep_min, keep_max] = counts;
  // Without the files first: nothing to move costs no listing.
  auto not_init = [](const Instant& i) { return !IsIndexInitTime(i.time); };
  if (ArchivableInstants(mdt_timeline, ArchivalChoice{keep_min, keep_max, "", not_init, not_init}).empty()) {
    return ArchiveResult{};
  }
  // The data instants a rollback or restore can reach: its writes, its pending instants and its
  // savepoints (an `indexing` or clean instant has no metadata deltacommit of its own).
  std::string bound;
  for (const auto& i : data_timeline.instants()) {
    const bool reachable = actions::WritesData(i.action) || !i.is_completed() || i.action == actions::kSavepoint;
    if (reachable && (bound.empty() || i.time < bound)) bound = i.time;
  }
  ARROW_ASSIGN_OR_RAISE(auto with_files, FileInstants(mdt));
  auto movable = [&](const Instant& i) { return not_init(i) && with_files.count(i.time) == 0; };
  const auto chosen = ArchivableInstants(mdt_timeline, ArchivalChoice{keep_min, keep_max, bound, not_init, movable});
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
  ARROW_ASSIGN_OR_RAISE(auto mdt, SubTreeStorage::Make(ctx.storage, ".hoodie/metadata"));
  ARROW_ASSIGN_OR_RAISE(auto mdt_timeline, Timeline::Load(*mdt, kMetadataTimeline));
  ARROW_ASSIGN_OR_RAISE(auto result, ArchiveMetadataTimeline(ctx, *mdt, mdt_timeline, data_timeline, keep, *guard));
  ARROW_RETURN_NOT_OK(guard->Release());
  return result;
}

}  // namespace lakeshore
