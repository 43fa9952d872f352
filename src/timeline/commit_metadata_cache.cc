#include "timeline/commit_metadata_cache.h"

#include <optional>
#include <set>

#include "timeline/instant_codec.h"

namespace lakeshore {

Result<std::vector<CompletedCommit>> CommitMetadataCache::LoadCompleted(Storage& storage, Engine& engine,
                                                                        const Timeline& timeline,
                                                                        std::vector<Instant>* vanished) {
  std::vector<Instant> completed = timeline.CompletedByCompletionTime();
  std::vector<size_t> missing;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < completed.size(); ++i)
      if (by_file_.count(completed[i].FileName()) == 0) missing.push_back(i);
  }
  const TimelineLocation& at = timeline.location();
  // nullopt: the instant's file is gone since the listing (only asked for with `vanished`).
  ARROW_ASSIGN_OR_RAISE(
      auto loaded, engine.Map<std::optional<CommitMetadata>>(
                       static_cast<int64_t>(missing.size()),
                       [&](int64_t k) -> Result<std::optional<CommitMetadata>> {
                         const Instant& instant = completed[missing[static_cast<size_t>(k)]];
                         if (!actions::WritesData(instant.action) && instant.action != actions::kRollback) {
                           return CommitMetadata{};  // clean, savepoint, indexing: not needed here
                         }
                         std::optional<std::string> text;
                         if (vanished == nullptr) {
                           ARROW_ASSIGN_OR_RAISE(text, timeline_ops::ReadContent(storage, at, instant));
                         } else {
                           ARROW_ASSIGN_OR_RAISE(text, timeline_ops::ReadContentIfPresent(storage, at, instant));
                           if (!text) return std::optional<CommitMetadata>();
                         }
                         const std::string source = storage.root_uri() + "/" + at.PathOf(instant);
                         ARROW_ASSIGN_OR_RAISE(auto metadata,
                                               (InstantCodec{at.layout, storage.ExternalPath("")}.Decode(instant, *text, source)));
                         return std::optional<CommitMetadata>(std::move(metadata));
                       }));
  std::vector<CompletedCommit> out;
  std::set<std::string> gone;
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t k = 0; k < missing.size(); ++k) {
    const Instant& instant = completed[missing[k]];
    if (!loaded[k]) {
      gone.insert(instant.FileName());
      vanished->push_back(instant);
      continue;
    }
    by_file_[instant.FileName()] = std::move(*loaded[k]);
  }
  for (const auto& instant : completed) {
    if (!gone.count(instant.FileName())) out.push_back({instant, by_file_.at(instant.FileName())});
  }
  return out;
}

}  // namespace lakeshore
