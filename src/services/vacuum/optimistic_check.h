// Internal: the optimistic decision — can anything have become deletable since the last
// vacuum? — made from the Delta log alone, by what commits did (never by operation names).
#pragma once

#include <optional>
#include <string>

#include "lakeshore/delta/delta_log.h"
#include "services/vacuum/vacuum_watermark.h"

namespace lakeshore::vacuum {

/// The outcome: skip, or run, and why.
struct OptimisticDecision {
  bool skip = false;
  std::string reason;
};

/// Decides whether a vacuum with cutoff `cutoff_ms` at `now_ms` can be skipped.
///
/// Skips only when a previous complete vacuum is recorded and every commit after its
/// watermark L0 (the newest commit older than its cutoff) is still in the log and did nothing
/// that can make a file deletable now: no remove whose tombstone has expired by `cutoff_ms`
/// (or has no timestamp), no change data file, and — for commits newer than the version the
/// last run was computed from — no deletion vector, metaData or protocol change; and no
/// tombstone in the snapshot expired between the last cutoff and this one. With
/// `force_full_after_ms`, a last full run older than that bound forces a run.
/// What a skip can miss: files written outside any commit (a crashed or aborted writer's)
/// since the last full run — see docs/vacuum.md. Cost: reads the commits after L0.
Result<OptimisticDecision> DecideOptimistic(const delta::DeltaLog& log,
                                            const delta::DeltaSnapshot& snapshot,
                                            const std::optional<VacuumWatermark>& watermark,
                                            int64_t now_ms, int64_t cutoff_ms,
                                            std::optional<int64_t> force_full_after_ms);

}  // namespace lakeshore::vacuum
