// The timeline: a table's log of instants (Hudi's active timeline, or a service's own).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lakeshore/storage/storage.h"
#include "timeline/instant.h"

namespace lakeshore {

/// Where a table's active timeline lives and how its files are named.
struct TimelineLocation {
  std::string folder;  ///< relative to the table root
  TimelineLayout layout = TimelineLayout::kV2;

  /// The path of `instant`'s file in its state.
  std::string PathOf(const Instant& instant) const;
};

/// A snapshot of the active timeline. Each instant appears once, in its furthest state;
/// instants are ordered by instant time. A savepoint shares the instant time of the commit it
/// savepoints (as Hudi names it) and follows that commit.
class Timeline {
 public:
  /// Loads the timeline of a table Lakeshore writes (`.hoodie/timeline`, layout 2).
  static Result<Timeline> Load(Storage& storage);
  /// Loads the timeline at `location` with one listing. Files that are not instants are
  /// ignored, as Hudi ignores them. An instant's files may name its pending action and the
  /// action it completed as (compaction → commit, clustering → replacecommit); any other pair
  /// of actions at one time is kCorruptMetadata. Layout 1 names carry no completion time: the
  /// instant time stands for it, as in Hudi 0.x and hudi-rs.
  static Result<Timeline> Load(Storage& storage, const TimelineLocation& location);

  const TimelineLocation& location() const { return location_; }

  const std::vector<Instant>& instants() const { return instants_; }
  /// Completed instants ordered by completion time (the order their effects became visible).
  std::vector<Instant> CompletedByCompletionTime() const;
  /// Requested or inflight instants, by instant time.
  std::vector<Instant> Pending() const;
  /// The instant with `time` (of two, the commit rather than its savepoint).
  std::optional<Instant> Find(const std::string& time) const;
  /// The largest instant time or completion time on the timeline ("" when empty).
  std::string LastTime() const;
  /// The largest completion time ("" when nothing completed).
  std::string LastCompletionTime() const;

 private:
  TimelineLocation location_;
  std::vector<Instant> instants_;
};

/// Timeline mutations. Each state is a new file created with put-if-absent, so the completed
/// file appearing is the single commit point of an instant.
namespace timeline_ops {

/// Creates `<time>.<action>.requested` with `content`; kCommitConflict if that time is taken.
Status CreateRequested(Storage& storage, const TimelineLocation& at, const Instant& instant, const std::string& content);
/// Creates the inflight file of `instant` with `content`.
Status TransitionToInflight(Storage& storage, const TimelineLocation& at, const Instant& instant,
                           const std::string& content);
/// Creates `<time>_<completion_time>.<action>` with `content`: the commit point. Returns the
/// completed instant.
Result<Instant> Complete(Storage& storage, const TimelineLocation& at, const Instant& instant,
                         const std::string& completion_time, const std::string& content);
/// Deletes the inflight, then the requested file of a pending instant (after a rollback or
/// abort), in Hudi's order; for an instant named by a completed action, also those of the
/// service actions completing as it (a rolled-back compaction's compaction.requested).
Status DeletePendingFiles(Storage& storage, const TimelineLocation& at, const Instant& instant);
/// Reads the file of `instant` in its state at `at`.
Result<std::string> ReadContent(Storage& storage, const TimelineLocation& at, const Instant& instant);
/// ReadContent, or nullopt when the read fails because the file is gone (an instant listed
/// before a writer completed, aborted, rolled back or archived it): a read that fails on a file
/// still there is the error it was.
Result<std::optional<std::string>> ReadContentIfPresent(Storage& storage, const TimelineLocation& at,
                                                        const Instant& instant);

}  // namespace timeline_ops
}  // namespace lakeshore
