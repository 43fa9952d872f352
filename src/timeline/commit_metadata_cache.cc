#include "timeline/commit_metadata_cache.h"

namespace lakeshore {

Result<std::vector<CompletedCommit>> CommitMetadataCache::LoadCompleted(Storage& storage, Engine& engine,
                                                                        const Timeline& timeline) {
  std::vector<Instant> completed = timeline.CompletedByCompletionTime();
  std::vector<size_t> missing;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < completed.size(); ++i)
      if (by_file_.count(completed[i].FileName()) == 0) missing.push_back(i);
  }
  ARROW_ASSIGN_OR_RAISE(
      auto loaded, engine.Map<CommitMetadata>(
                       static_cast<int64_t>(missing.size()), [&](int64_t k) -> Result<CommitMetadata> {
                         const Instant& instant = completed[missing[static_cast<size_t>(k)]];
                         const TimelineLocation& at = timeline.location();
                         // Only write actions carry HoodieCommitMetadata; rollback, clean,
                         // savepoint and indexing instants have records of their own.
                         if (at.hoodie_contents && !actions::WritesData(instant.action)) return CommitMetadata{};
                         ARROW_ASSIGN_OR_RAISE(auto text, timeline_ops::ReadContent(storage, at, instant));
                         if (!at.hoodie_contents) return CommitMetadata::FromJson(text, Timeline::PathOf(instant));
                         return CommitMetadata::FromHoodie(text, at.layout, storage.root_uri() + "/" + at.PathOf(instant));
                       }));
  std::vector<CompletedCommit> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t k = 0; k < missing.size(); ++k) by_file_[completed[missing[k]].FileName()] = std::move(loaded[k]);
  for (const auto& instant : completed) out.push_back({instant, by_file_.at(instant.FileName())});
  return out;
}

}  // namespace lakeshore
