#include "services/archive/timeline_archiver.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "format/avro_container.h"
#include "io/archived_timeline.h"
#include "lakeshore/table/table_options.h"
#include "timeline/instant_time.h"

namespace lakeshore {
namespace {

/// Files of one layer merged at once (Hudi's hoodie.timeline.compaction.batch.size).
constexpr size_t kCompactionBatch = 10;
/// Manifests (and the data files they name) kept for readers that loaded an older one.
constexpr int64_t kManifestsKept = 3;

/// The instant time a timeline file name starts with ("" for other names).
std::string TimeOfFile(std::string_view name) {
  const size_t end = name.find_first_of("._");
  if (end == std::string_view::npos || !IsInstantTimeToken(name.substr(0, end))) return "";
  return std::string(name.substr(0, end));
}

/// A completed file's name has `<time>_<completion>` before its first dot.
bool IsCompletedFileName(std::string_view name) {
  const size_t dot = name.find('.');
  return name.substr(0, dot).find('_') != std::string_view::npos;
}

/// The earliest commit the latest completed clean retains (HoodieCleanMetadata's
/// earliestCommitToRetain), "" when there is none.
Result<std::string> EarliestCommitRetainedByClean(TableContext& ctx, const Timeline& timeline) {
  std::vector<Instant> cleans;
  for (const auto& i : timeline.CompletedByCompletionTime()) {
    if (i.action == actions::kClean) cleans.push_back(i);
  }
  if (cleans.empty()) return std::string();
  const Instant& latest = cleans.back();
  ARROW_ASSIGN_OR_RAISE(auto bytes, timeline_ops::ReadContent(*ctx.storage, ctx.timeline_location, latest));
  if (bytes.empty()) return std::string();
  ARROW_ASSIGN_OR_RAISE(auto container, format::ReadAvroContainer(bytes, ctx.timeline_location.PathOf(latest)));
  if (container.records.size() != 1 || !container.records[0].is_object()) return std::string();
  auto it = container.records[0].find("earliestCommitToRetain");
  return it != container.records[0].end() && it->is_string() ? it->get<std::string>() : std::string();
}

/// The earliest active replacecommit some of whose replaced file groups still have files on
/// storage ("" for none). Readers that do not read the archived timeline (hudi-rs) hide replaced
/// groups by the active replacecommits: one can only be archived once the cleaner has deleted
/// what it replaced, as Hudi's archiver holds it back too. One existence check per replaced group.
Result<std::string> EarliestReplaceWithLiveFiles(TableContext& ctx, const Timeline& timeline) {
  ARROW_ASSIGN_OR_RAISE(auto commits, ctx.LoadCommits(timeline));
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> files_of_group;
  for (const auto& c : commits) {
    for (const auto& stat : c.metadata.write_stats) {
      if (!stat.path.empty()) files_of_group[{stat.partition, stat.file_id}].push_back(stat.path);
    }
  }
  for (const auto& c : commits) {
    if (c.metadata.replaced_file_ids.empty() || !timeline.Find(c.instant.time)) continue;  // archived already
    for (const auto& [partition, ids] : c.metadata.replaced_file_ids) {
      for (const auto& id : ids) {
        for (const auto& path : files_of_group[{partition, id}]) {
          ARROW_ASSIGN_OR_RAISE(bool exists, ctx.storage->Exists(path));
          if (exists) return c.instant.time;
        }
      }
    }
  }
  return std::string();
}

/// The data table's bound: nothing at or after the earliest commit the latest clean retains, or
/// the earliest replacecommit whose replaced files are still on storage, moves ("" for none).
Result<std::string> DataTableBound(TableContext& ctx, const Timeline& timeline) {
  ARROW_ASSIGN_OR_RAISE(std::string retained, EarliestCommitRetainedByClean(ctx, timeline));
  ARROW_ASSIGN_OR_RAISE(std::string replace, EarliestReplaceWithLiveFiles(ctx, timeline));
  if (retained.empty()) return replace;
  if (replace.empty()) return retained;
  return std::min(retained, replace);
}

/// The rows of `chosen`: each completed file's bytes and, for table services, the plan (the
/// requested file; an inflight replacecommit's or clustering's content replaces it when not
/// empty, as Hudi's archiver takes it).
Result<std::vector<ArchivedInstant>> RowsOf(Storage& storage, const TimelineLocation& at,
                                            const std::vector<Instant>& chosen,
                                            const std::map<std::string, std::vector<std::string>>& files_of) {
  std::vector<ArchivedInstant> rows;
  for (const Instant& i : chosen) {
    ArchivedInstant row;
    row.instant = i;
    ARROW_ASSIGN_OR_RAISE(row.metadata, timeline_ops::ReadContent(storage, at, i));
    std::string requested_plan, inflight_plan;
    auto files = files_of.find(i.time);
    for (const auto& path : files == files_of.end() ? std::vector<std::string>() : files->second) {
      const std::string name(BaseName(path));
      const bool requested = name.size() > 10 && name.substr(name.size() - 10) == ".requested";
      const bool inflight = name.size() > 9 && name.substr(name.size() - 9) == ".inflight";
      const bool service = name.find(".compaction.") != std::string::npos || name.find(".clustering.") != std::string::npos ||
                           name.find(".replacecommit.") != std::string::npos || name.find(".clean.") != std::string::npos ||
                           name.find(".logcompaction.") != std::string::npos;
      if (!service || !(requested || inflight)) continue;
      ARROW_ASSIGN_OR_RAISE(auto bytes, storage.ReadString(path));
      if (bytes.empty()) continue;
      const bool replace_inflight = inflight && (name.find(".replacecommit.") != std::string::npos ||
                                                 name.find(".clustering.") != std::string::npos);
      if (requested) requested_plan = std::move(bytes);
      if (replace_inflight) inflight_plan = std::move(bytes);
    }
    row.plan = inflight_plan.empty() ? requested_plan : inflight_plan;
    rows.push_back(std::move(row));
  }
  return rows;
}

/// Merges layers of ten or more files into the next layer, then drops manifests and data files
/// older than the last kManifestsKept manifests. Returns the files written.
Result<int64_t> CompactAndClean(Storage& storage, const std::string& history, const LockGuard& guard,
                                ArchivedTimelineVersion* version) {
  int64_t written = 0;
  for (int layer = 0; layer < 9; ++layer) {
    ARROW_ASSIGN_OR_RAISE(auto entries, ReadArchivedManifest(storage, history, *version));
    std::vector<ArchivedFileEntry> in_layer;
    for (const auto& e : entries) {
      if (ArchivedFileLayer(e.name) == layer) in_layer.push_back(e);
    }
    if (in_layer.size() < kCompactionBatch) break;
    std::sort(in_layer.begin(), in_layer.end(),
              [](const ArchivedFileEntry& a, const ArchivedFileEntry& b) { return a.name < b.name; });
    in_layer.resize(kCompactionBatch);
    std::vector<ArchivedInstant> rows;
    std::string min, max;
    for (const auto& e : in_layer) {
      ARROW_ASSIGN_OR_RAISE(auto file_rows, ReadArchivedFile(storage, JoinPath(history, e.name), true));
      for (auto& r : file_rows) rows.push_back(std::move(r));
      const std::string lo = e.name.substr(0, e.name.find('_'));
      const std::string hi = e.name.substr(lo.size() + 1, e.name.find('_', lo.size() + 1) - lo.size() - 1);
      if (min.empty() || lo < min) min = lo;
      if (max.empty() || hi > max) max = hi;
    }
    const std::string name = min + "_" + max + "_" + std::to_string(layer + 1) + ".parquet";
    ARROW_RETURN_NOT_OK(guard.CheckHeld());
    ARROW_ASSIGN_OR_RAISE(int64_t length, WriteArchivedFile(storage, history, name, rows));
    ++written;
    std::set<std::string> merged;
    for (const auto& e : in_layer) merged.insert(e.name);
    std::vector<ArchivedFileEntry> next;
    for (const auto& e : entries) {
      if (!merged.count(e.name)) next.push_back(e);
    }
    next.push_back({name, length});
    ARROW_RETURN_NOT_OK(guard.CheckHeld());
    ARROW_ASSIGN_OR_RAISE(*version, PublishArchivedManifest(storage, history, *version, next));
  }
  // Clean: what the last kManifestsKept manifests name stays.
  std::set<std::string> kept_files;
  std::set<std::string> kept_manifests;
  for (int64_t v = std::max<int64_t>(1, version->manifest - kManifestsKept + 1); v <= version->manifest; ++v) {
    kept_manifests.insert("manifest_" + std::to_string(v));
    auto entries = ReadArchivedManifest(storage, history, ArchivedTimelineVersion{v});
    if (!entries.ok()) continue;  // already cleaned by an earlier run
    for (const auto& e : *entries) kept_files.insert(e.name);
  }
  ARROW_ASSIGN_OR_RAISE(auto listed, storage.List(history, /*recursive=*/false));
  std::vector<std::string> drop;
  for (const auto& e : listed) {
    const std::string name(BaseName(e.path));
    if (e.is_dir) continue;
    const bool old_manifest = name.rfind("manifest_", 0) == 0 && !kept_manifests.count(name);
    const bool old_data = ArchivedFileLayer(name) >= 0 && !kept_files.count(name);
    if (old_manifest || old_data) drop.push_back(e.path);
  }
  if (!drop.empty()) {
    ARROW_RETURN_NOT_OK(guard.CheckHeld());
    ARROW_RETURN_NOT_OK(storage.DeleteFiles(drop).status());
  }
  return written;
}

}  // namespace

Result<std::pair<int64_t, int64_t>> KeepCommits(const ArchiveOptions& options,
                                                const std::map<std::string, std::string>& properties) {
  ARROW_ASSIGN_OR_RAISE(int64_t keep_min, options.keep_min_commits
                                              ? Result<int64_t>(*options.keep_min_commits)
                                              : table_options::kArchiveKeepMinCommits.Get(properties));
  ARROW_ASSIGN_OR_RAISE(int64_t keep_max, options.keep_max_commits
                                              ? Result<int64_t>(*options.keep_max_commits)
                                              : table_options::kArchiveKeepMaxCommits.Get(properties));
  ARROW_RETURN_NOT_OK(table_options::CheckKeepCommits(keep_min, keep_max));
  return std::make_pair(keep_min, keep_max);
}

std::vector<Instant> ArchivableInstants(const Timeline& timeline, const ArchivalChoice& choice) {
  std::vector<Instant> commits;
  std::string limit = choice.bound;  // nothing at or after it moves
  auto lower = [&](const std::string& t) {
    if (!t.empty() && (limit.empty() || t < limit)) limit = t;
  };
  for (const auto& i : timeline.instants()) {
    if (!i.is_completed()) lower(i.time);
    if (i.is_completed() && i.action == actions::kSavepoint) lower(i.time);
    if (i.is_completed() && actions::WritesData(i.action) && (!choice.counted || choice.counted(i))) commits.push_back(i);
  }
  if (static_cast<int64_t>(commits.size()) <= choice.keep_max) return {};
  std::sort(commits.begin(), commits.end(), [](const Instant& a, const Instant& b) { return a.time < b.time; });
  auto movable = [&](const Instant& i) { return !choice.movable || choice.movable(i); };
  std::vector<Instant> chosen;
  const size_t count = commits.size() - static_cast<size_t>(std::max<int64_t>(choice.keep_min, 0));
  for (size_t k = 0; k < count; ++k) {
    if (!limit.empty() && commits[k].time >= limit) break;
    if (movable(commits[k])) chosen.push_back(commits[k]);
  }
  if (chosen.empty()) return chosen;
  const std::string last = chosen.back().time;
  for (const auto& i : timeline.instants()) {
    if (i.is_completed() && (i.action == actions::kClean || i.action == actions::kRollback) && i.time < last &&
        movable(i)) {
      chosen.push_back(i);
    }
  }
  std::sort(chosen.begin(), chosen.end(), [](const Instant& a, const Instant& b) { return a.time < b.time; });
  return chosen;
}

Result<ArchiveResult> ArchiveInstants(const ArchiveTarget& target, const Timeline& timeline,
                                      const std::vector<Instant>& chosen, const LockGuard& guard) {
  Storage& storage = *target.storage;
  const std::string& history = target.history_folder;
  ARROW_ASSIGN_OR_RAISE(auto version, LatestArchivedVersion(storage, history));
  ARROW_ASSIGN_OR_RAISE(auto entries, ReadArchivedManifest(storage, history, version));
  // Every timeline file by instant time (one listing), for the rows and for step 3.
  ARROW_ASSIGN_OR_RAISE(auto listed, storage.List(target.timeline_location.folder, /*recursive=*/false));
  std::map<std::string, std::vector<std::string>> files_of;
  for (const auto& e : listed) {
    if (e.is_dir) continue;
    const std::string time = TimeOfFile(BaseName(e.path));
    if (!time.empty()) files_of[time].push_back(e.path);
  }
  // A crash after an earlier run published its manifest leaves archived instants active: finish
  // deleting them (readers already count them once).
  ARROW_ASSIGN_OR_RAISE(auto archived, ReadArchivedTimeline(storage, history, *target.engine));
  std::set<std::string> already;
  for (const auto& a : archived) already.insert(a.instant.time);
  std::vector<Instant> fresh;
  for (const auto& i : chosen) {
    if (!already.count(i.time)) fresh.push_back(i);
  }
  ArchiveResult result;
  if (!fresh.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto rows, RowsOf(storage, target.timeline_location, fresh, files_of));
    const std::string name = fresh.front().time + "_" + fresh.back().time + "_0.parquet";
    ARROW_RETURN_NOT_OK(guard.CheckHeld());
    ARROW_ASSIGN_OR_RAISE(int64_t length, WriteArchivedFile(storage, history, name, rows));
    ++result.data_files_written;
    std::vector<ArchivedFileEntry> next = entries;
    next.erase(std::remove_if(next.begin(), next.end(), [&](const ArchivedFileEntry& e) { return e.name == name; }),
               next.end());
    next.push_back({name, length});
    ARROW_RETURN_NOT_OK(guard.CheckHeld());
    ARROW_ASSIGN_OR_RAISE(version, PublishArchivedManifest(storage, history, version, next));  // commit point
  }
  // Step 3, for this run's instants and any an interrupted run archived.
  std::set<std::string> moved = already;
  for (const auto& f : fresh) moved.insert(f.time);
  std::vector<std::string> pending_files, completed_files;
  for (const auto& i : timeline.instants()) {
    if (!moved.count(i.time)) continue;
    for (const auto& path : files_of[i.time]) {
      (IsCompletedFileName(BaseName(path)) ? completed_files : pending_files).push_back(path);
    }
  }
  std::sort(completed_files.begin(), completed_files.end());
  ARROW_RETURN_NOT_OK(guard.CheckHeld());
  ARROW_RETURN_NOT_OK(storage.DeleteFiles(pending_files).status());
  for (const auto& path : completed_files) {  // oldest first, as Hudi does (HUDI-7207)
    ARROW_RETURN_NOT_OK(storage.DeleteFiles({path}).status());
  }
  ARROW_ASSIGN_OR_RAISE(int64_t compacted, CompactAndClean(storage, history, guard, &version));
  result.data_files_written += compacted;
  for (const auto& i : fresh) result.archived_instants.push_back(i.time);
  result.manifest_version = version.manifest;
  return result;
}

Result<ArchiveResult> ArchiveTimeline(TableContext& ctx, const ArchiveOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  if (ctx.archive_folder.empty()) {
    return UnsupportedFeature("cannot archive table " + ctx.uri +
                              ": its timeline is layout 1 (table version 6), whose archive this build does not write");
  }
  ARROW_RETURN_NOT_OK(ctx.CheckWritable("archive"));
  ARROW_ASSIGN_OR_RAISE(auto keep, KeepCommits(options, ctx.config.properties));
  const auto [keep_min, keep_max] = keep;
  ARROW_ASSIGN_OR_RAISE(auto guard, ctx.Lock().Acquire("archive"));
  ARROW_ASSIGN_OR_RAISE(auto timeline, ctx.LoadTimeline());
  // The bounds cost reads (the latest clean, a check per replaced file group): only when the
  // counts alone leave something to move.
  std::vector<Instant> chosen;
  if (!ArchivableInstants(timeline, ArchivalChoice{keep_min, keep_max, "", {}, {}}).empty()) {
    ARROW_ASSIGN_OR_RAISE(std::string bound, DataTableBound(ctx, timeline));
    chosen = ArchivableInstants(timeline, ArchivalChoice{keep_min, keep_max, bound, {}, {}});
  }
  const ArchiveTarget target{ctx.storage.get(), ctx.timeline_location, ctx.archive_folder, ctx.engine.get()};
  ARROW_ASSIGN_OR_RAISE(auto result, ArchiveInstants(target, timeline, chosen, *guard));
  ARROW_RETURN_NOT_OK(guard->Release());
  if (options.on_archived && !result.archived_instants.empty()) {
    ARROW_RETURN_NOT_OK(options.on_archived(result.archived_instants));
  }
  result.duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace lakeshore
