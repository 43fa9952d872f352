// Internal: VACUUM of a Hudi table (full, lite, optimistic), from its timeline and file
// system view. The last completed `vacuum` instant is the watermark.
#pragma once

#include <memory>

#include "lakeshore/vacuum.h"

namespace lakeshore::vacuum {


/// Runs one vacuum of the Hudi table on `table` with resolved `options`.
///
/// Live: every base and log file of every slice the completed instants of the active timeline
/// built (no slice has been cleaned by this build's services, so all are retained — this also
/// covers savepoints and time travel), and every file a pending instant planned (an in-flight
/// writer or a rollback to come). `.hoodie/` (timeline, metadata table, aux sidecars) is
/// never listed. An archived timeline is refused (kUnsupportedFeature) until archival lands.
/// Real runs record a `vacuum` instant (requested → inflight → completed, put-if-absent).
Result<VacuumReport> VacuumHudiTable(std::shared_ptr<Storage> table, const VacuumOptions& options);

}  // namespace lakeshore::vacuum
