// Internal: what a vacuum of a Hudi table records on vacuum's own timeline
// (`.hoodie/.aux/lakeshore/vacuum`, a folder Hudi never reads: Hudi's timeline has no vacuum
// action). The requested and inflight files hold the plan; the completed file adds the outcome
// and is the watermark the next (optimistic or lite) run starts from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lakeshore/status.h"

namespace lakeshore::vacuum {

/// One vacuum instant's record.
struct HudiVacuumRecord {
  /// Plan: "full" or "lite".
  std::string mode;
  /// Plan: files older than this (ms since the epoch) were candidates.
  int64_t cutoff_ms = 0;
  /// Plan: the data timeline's last time when the vacuum read it; instants completing later
  /// are new to the next run (vacuum's own clock may differ from writers').
  std::string data_through;
  /// Outcome: when the last full (listing) vacuum ran, this one included (ms); none yet → nullopt.
  std::optional<int64_t> last_full_ms;
  /// Outcome: the oldest mtime of a file the last full run kept only for being younger than its
  /// cutoff (UntrackedScan::oldest_young_untracked_ms): an optimistic run runs once the cutoff
  /// passes it.
  std::optional<int64_t> oldest_young_untracked_ms;
  /// Outcome: the newest completion time lite mode has covered (instants older than the cutoff).
  std::string lite_through;
  /// Outcome: what was deleted.
  int64_t files_deleted = 0;
  int64_t bytes_deleted = 0;
  int64_t dirs_deleted = 0;

  /// The instant file's JSON.
  std::string ToJson() const;
  /// Parses an instant file; anything malformed (not JSON, a field of the wrong type, a missing
  /// mode or cutoff) → kCorruptMetadata naming `source`.
  static Result<HudiVacuumRecord> FromJson(std::string_view json, const std::string& source);
};

}  // namespace lakeshore::vacuum
