// The timeline: the table's log of instants under .lakeshore/timeline.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lakeshore/storage/storage.h"
#include "timeline/instant.h"

namespace lakeshore {

/// A snapshot of the active timeline. Each instant appears once, in its furthest state;
/// instants are ordered by instant time.
class Timeline {
 public:
  /// Loads the timeline with one listing of the timeline folder. Malformed instant file names
  /// give kCorruptMetadata naming the file.
  static Result<Timeline> Load(Storage& storage);

  const std::vector<Instant>& instants() const { return instants_; }
  /// Completed instants ordered by completion time (the order their effects became visible).
  std::vector<Instant> CompletedByCompletionTime() const;
  /// Requested or inflight instants, by instant time.
  std::vector<Instant> Pending() const;
  std::optional<Instant> Find(const std::string& time) const;
  /// The largest instant time or completion time on the timeline ("" when empty).
  std::string LastTime() const;
  /// The largest completion time ("" when nothing completed).
  std::string LastCompletionTime() const;

  /// The path of an instant's file in a given state.
  static std::string PathOf(const Instant& instant);

 private:
  std::vector<Instant> instants_;
};

/// Timeline mutations. Each state is a new file created with put-if-absent, so the completed
/// file appearing is the single commit point of an instant.
namespace timeline_ops {

/// Creates `<time>.<action>.requested` with `content`; kCommitConflict if that time is taken.
Status CreateRequested(Storage& storage, const Instant& instant, const std::string& content);
/// Creates `<time>.<action>.inflight` with `content`.
Status TransitionToInflight(Storage& storage, const Instant& instant, const std::string& content);
/// Creates `<time>_<completion_time>.<action>` with `content`: the commit point. Returns the
/// completed instant.
Result<Instant> Complete(Storage& storage, const Instant& instant,
                         const std::string& completion_time, const std::string& content);
/// Deletes the requested and inflight files of a pending instant (after a rollback or abort).
Status DeletePendingFiles(Storage& storage, const Instant& instant);
/// Reads an instant's file content (completed file, else inflight, else requested).
Result<std::string> ReadContent(Storage& storage, const Instant& instant);

}  // namespace timeline_ops
}  // namespace lakeshore
