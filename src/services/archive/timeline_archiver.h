// Archival: completed instants move from the active timeline into Hudi 1.x's archived timeline
// (layout 2's LSM history, io/archived_timeline.h), as Hudi's TimelineArchiverV2 moves them, so
// the active timeline stays small while time travel and incremental reads keep the whole
// history. Under the table lock:
//   1. choose: when more than `keep_max_commits` completed write instants (commit, deltacommit,
//      replacecommit) are active, the oldest beyond `keep_min_commits`, but none at or after the
//      earliest pending instant of any action, the earliest savepoint, the earliest commit the
//      latest clean retains, or the earliest replacecommit whose replaced files are still on
//      storage (readers that do not read the archive hide replaced groups by it); completed
//      cleans and rollbacks older than the last chosen commit go along (savepoints never do);
//   2. write one level-0 data file `<first>_<last>_0.parquet` with a row per instant (its
//      completed file's bytes, its plan), then publish the next manifest — the commit point;
//   3. delete the instants' active files, pending states first, then completed ones oldest first;
//   4. compact: ten or more files of one layer merge into one of the next layer (a new
//      manifest), and data files and manifests no longer in the last three manifests go.
// A crash anywhere leaves a readable table: before 2 the archive is unchanged (an unlisted data
// file is ignored, and rewritten by the next run), after it an instant may be both archived and
// active (readers count it once, as its active copy), and the next run finishes step 3.
#pragma once

#include <functional>
#include <map>
#include <utility>
#include <string>
#include <vector>

#include "actions/table_context.h"
#include "lakeshore/table/table.h"
#include "timeline/timeline.h"

namespace lakeshore {

/// Where a timeline lives and is archived to: the data table's, or the metadata table's
/// (services/metadata/metadata_archival.h), on storage rooted at its table.
struct ArchiveTarget {
  Storage* storage = nullptr;
  TimelineLocation timeline_location;
  std::string history_folder;  ///< the LSM history (`<timeline>/history`)
  Engine* engine = nullptr;
};

/// hoodie.keep.min.commits and hoodie.keep.max.commits: `options`' values, else the table
/// `properties`' (defaults 20 and 30). Invalid unless 1 <= min < max, or when a property is not
/// a number.
Result<std::pair<int64_t, int64_t>> KeepCommits(const ArchiveOptions& options,
                                                const std::map<std::string, std::string>& properties);

/// What step 1 chooses from, apart from the data table's own bounds.
struct ArchivalChoice {
  int64_t keep_min = 0;  ///< hoodie.keep.min.commits
  int64_t keep_max = 0;  ///< hoodie.keep.max.commits
  std::string bound;     ///< nothing at or after it moves ("" for none)
  /// The write instants the keep counts count (all when empty).
  std::function<bool(const Instant&)> counted;
  /// The instants that may move (all when empty); one that may not is skipped, not a bound.
  std::function<bool(const Instant&)> movable;
};

/// Step 1's rule: when more than `keep_max` counted completed write instants (commit,
/// deltacommit, replacecommit) are in `timeline`, the movable ones among the oldest of them
/// beyond `keep_min`, but none at or after `bound`, the earliest pending instant of any action
/// or the earliest savepoint; then the movable completed cleans and rollbacks older than the
/// last one chosen. Oldest first.
std::vector<Instant> ArchivableInstants(const Timeline& timeline, const ArchivalChoice& choice);

/// Steps 2-4 for `chosen` (completed instants of `timeline`, which the caller listed under
/// `guard`, oldest first): the level-0 file and the next manifest (nothing when every chosen
/// instant is archived already), then the active files of every instant of `timeline` the
/// archive holds (a crashed run's too), then the layers' compaction and cleaning. The result
/// has no duration. Crash-safe at every call, as the header says.
Result<ArchiveResult> ArchiveInstants(const ArchiveTarget& target, const Timeline& timeline,
                                      const std::vector<Instant>& chosen, const LockGuard& guard);

/// Runs one archival of the table (steps above). Nothing to archive is a result with no
/// instants. A version-6 table (layout 1) → kUnsupportedFeature; a damaged archive →
/// kCorruptMetadata and the active timeline is untouched; keep_min_commits < 1 or
/// keep_max_commits <= keep_min_commits → Invalid.
Result<ArchiveResult> ArchiveTimeline(TableContext& ctx, const ArchiveOptions& options);

}  // namespace lakeshore
