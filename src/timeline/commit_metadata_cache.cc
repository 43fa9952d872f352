#include "timeline/commit_metadata_cache.h"

#include "timeline/instant_codec.h"

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
                         if (!actions::WritesData(instant.action) &&
                             instant.action != actions::kRollback) {
                           return CommitMetadata{};  // clean, savepoint, indexing: not needed here
                         }
                         ARROW_ASSIGN_OR_RAISE(auto text, timeline_ops::ReadContent(storage, at, instant));
                         const std::string source = storage.root_uri() + "/" + at.PathOf(instant);
                         return InstantCodec{at.layout, storage.ExternalPath("")}.Decode(instant, text, source);
                       }));
  std::vector<CompletedCommit> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t k = 0; k < missing.size(); ++k) by_file_[completed[missing[k]].FileName()] = std::move(loaded[k]);
  for (const auto& instant : completed) out.push_back({instant, by_file_.at(instant.FileName())});
  return out;
}

}  // namespace lakeshore
