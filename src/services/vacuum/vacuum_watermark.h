// Internal: the persisted watermark of the last completed vacuum of a Delta table, stored in
// `_delta_log/_last_vacuum_info` — the file Delta (Spark) uses for lite vacuum — with
// Lakeshore's extra fields beside Spark's one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "lakeshore/storage/storage.h"

namespace lakeshore::vacuum {

/// Where the watermark lives, relative to the table root.
inline constexpr const char* kLastVacuumInfoPath = "_delta_log/_last_vacuum_info";

/// What the last completed (non-dry) vacuum covered.
struct VacuumWatermark {
  /// Spark's field: the newest commit whose timestamp was older than the cutoff. Every file a
  /// commit up to it removed (or wrote as change data) has been handled.
  std::optional<int64_t> latest_commit_version_outside_retention;
  /// The table version whose live set the run was computed from.
  std::optional<int64_t> snapshot_version;
  /// The cutoff (ms) the run deleted below.
  std::optional<int64_t> cutoff_ms;
  /// When the run happened, and when the last full (listing) run happened (ms).
  std::optional<int64_t> vacuum_time_ms;
  std::optional<int64_t> last_full_vacuum_ms;
  /// The oldest mtime of a file the last full run kept only for being too young
  /// (UntrackedScan::oldest_young_untracked_ms): an optimistic run runs once the cutoff passes it.
  std::optional<int64_t> oldest_young_untracked_ms;
};

/// Reads the watermark; a missing file is nullopt. An unreadable or malformed file is also
/// nullopt (as in Spark): every consumer then falls back to the conservative path.
Result<std::optional<VacuumWatermark>> ReadVacuumWatermark(Storage& table);

/// Replaces the watermark (JSON, Spark's field first). Mutating.
Status WriteVacuumWatermark(Storage& table, const VacuumWatermark& watermark);

}  // namespace lakeshore::vacuum
