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
#include <string>
#include <vector>

#include "actions/table_context.h"
#include "lakeshore/table/table.h"

namespace lakeshore {

/// Runs one archival of the table (steps above). Nothing to archive is a result with no
/// instants. A version-6 table (layout 1) → kUnsupportedFeature; a damaged archive →
/// kCorruptMetadata and the active timeline is untouched; keep_min_commits < 1 or
/// keep_max_commits <= keep_min_commits → Invalid.
Result<ArchiveResult> ArchiveTimeline(TableContext& ctx, const ArchiveOptions& options);

}  // namespace lakeshore
