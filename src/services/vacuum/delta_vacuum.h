// Internal: VACUUM of a Delta Lake table (full, lite, optimistic).
#pragma once

#include <memory>
#include <string>
#include <unordered_set>

#include "common/path_set.h"
#include "lakeshore/delta/delta_log.h"
#include "lakeshore/vacuum.h"

namespace lakeshore::vacuum {

/// The files (relative paths) a Delta snapshot still needs at `cutoff_ms`: every active file
/// and its deletion vector file, and every tombstone deleted at or after the cutoff with its
/// deletion vector file. Paths outside the table are left out (never ours to delete); an
/// undecodable deletion vector → kCorruptMetadata. O(files).
Result<PathSet> DeltaLiveSet(const delta::DeltaSnapshot& snapshot,
                                                     int64_t cutoff_ms,
                                                     const std::string& root_uri);

/// Runs one vacuum of the Delta table on `table` with fully resolved `options` (clock and
/// engine set). See lakeshore::Vacuum for the contract.
Result<VacuumReport> VacuumDeltaTable(std::shared_ptr<Storage> table, const VacuumOptions& options);

}  // namespace lakeshore::vacuum
