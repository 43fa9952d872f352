#include "services/vacuum/file_deleter.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <unordered_map>

#include "common/path_set.h"

namespace lakeshore::vacuum {

Result<DeletionTotals> DeleteFilesInBatches(
    Storage& storage, Engine& engine, const std::vector<VacuumCandidate>& candidates,
    int batch_size, const std::function<void(const VacuumProgress&)>& progress, const arrow::StopToken& stop) {
  const auto n = static_cast<int64_t>(candidates.size());
  // Up to `batch_size` paths per call, but enough batches to keep every engine worker busy
  // (a local file system deletes one path at a time; an object store takes 1000 per request).
  const int64_t spread = (n + 2 * engine.parallelism() - 1) / (2 * engine.parallelism());
  batch_size = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(batch_size, spread)));
  const int64_t batches = (n + batch_size - 1) / batch_size;
  std::atomic<int64_t> done{0};
  struct BatchTotals {
    DeleteOutcome outcome;
    int64_t bytes = 0;  ///< of the paths this batch deleted
  };
  ARROW_ASSIGN_OR_RAISE(
      auto outcomes, engine.Map<BatchTotals>(batches, [&](int64_t b) -> Result<BatchTotals> {
        ARROW_RETURN_NOT_OK(stop.Poll());
        const auto lo = static_cast<size_t>(b * batch_size);
        const auto hi = static_cast<size_t>(std::min(n, (b + 1) * batch_size));
        std::vector<std::string> paths;
        paths.reserve(hi - lo);
        std::unordered_map<std::string_view, int64_t> sizes;  // this batch's, by path
        for (size_t i = lo; i < hi; ++i) {
          paths.push_back(candidates[i].path);
          sizes.emplace(candidates[i].path, candidates[i].size);
        }
        BatchTotals totals;
        ARROW_ASSIGN_OR_RAISE(totals.outcome, storage.DeleteFiles(paths));
        for (const auto& p : totals.outcome.deleted_paths) {
          auto it = sizes.find(p);
          if (it != sizes.end()) totals.bytes += it->second;
        }
        int64_t now = done += static_cast<int64_t>(paths.size());
        if (progress) progress({"deleting", now, n});
        return totals;
      }));
  DeletionTotals totals;
  for (const auto& o : outcomes) {
    totals.files_deleted += o.outcome.deleted;
    totals.bytes_deleted += o.bytes;
    totals.refused.insert(totals.refused.end(), o.outcome.refused_paths.begin(), o.outcome.refused_paths.end());
  }
  std::sort(totals.refused.begin(), totals.refused.end());
  return totals;
}

std::vector<std::string> FoldersToTry(const std::vector<VacuumCandidate>& deleted,
                                      const std::vector<std::string>& empty_folders) {
  std::vector<std::string> out;
  PathSet seen;
  auto with_ancestors = [&](std::string dir) {
    for (; !dir.empty(); dir = ParentPath(dir)) {
      if (!seen.insert(dir)) break;  // its ancestors are in already
      out.push_back(dir);
    }
  };
  for (const auto& folder : empty_folders) with_ancestors(folder);
  for (const auto& c : deleted) with_ancestors(ParentPath(c.path));
  return out;
}

Result<int64_t> DeleteEmptyDirs(Storage& storage, Engine& engine, std::vector<std::string> dirs) {
  std::sort(dirs.begin(), dirs.end());
  dirs.erase(std::unique(dirs.begin(), dirs.end()), dirs.end());
  std::map<int64_t, std::vector<std::string>, std::greater<>> by_depth;
  for (auto& d : dirs) {
    if (d.empty()) continue;
    by_depth[std::count(d.begin(), d.end(), '/')].push_back(std::move(d));
  }
  std::atomic<int64_t> removed{0};
  for (auto& [depth, level] : by_depth) {
    ARROW_RETURN_NOT_OK(engine.ParallelFor(static_cast<int64_t>(level.size()), [&](int64_t i) -> Status {
      ARROW_ASSIGN_OR_RAISE(bool gone, storage.DeleteDirIfEmpty(level[static_cast<size_t>(i)]));
      if (gone) ++removed;
      return Status::OK();
    }));
  }
  return removed.load();
}

}  // namespace lakeshore::vacuum
