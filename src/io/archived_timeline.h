// Internal: Hudi 1.x's archived timeline (timeline layout 2), the "LSM timeline" under
// `.hoodie/timeline/history/`: `_version_` names the latest `manifest_<N>` (JSON, Jackson's
// `{"files":[{"fileName","fileLen"}]}`), which names the Parquet files
// `<minInstant>_<maxInstant>_<layer>.parquet` holding one row per archived action:
// instantTime, completionTime, action, metadata (the completed instant file's raw bytes, an
// Avro container file), plan, version. Only files a manifest names count; anything else in the
// folder (a crashed write, `.crc` files) is ignored, as Hudi ignores it.
#pragma once

#include <string>
#include <vector>

#include <mutex>

#include "lakeshore/engine/engine.h"
#include "lakeshore/storage/storage.h"
#include "table/file_system_view.h"
#include "timeline/instant.h"
#include "timeline/instant_codec.h"

namespace lakeshore {

/// One archived (completed) instant and its instant file's bytes.
struct ArchivedInstant {
  Instant instant;       ///< completed; a missing completion time is the instant time (Hudi's rule)
  std::string metadata;  ///< the completed instant file's content ("" when Hudi stored none)
};

/// The archived timeline's position: the manifest a read used (0 when there is none).
struct ArchivedTimelineVersion {
  int64_t manifest = 0;
  bool operator==(const ArchivedTimelineVersion&) const = default;
};

/// The latest manifest version under `history_folder`: `_version_` (digits, whitespace
/// trimmed), else, when that file is missing or unreadable, the highest `manifest_<N>`, as
/// Hudi's reader falls back (a writer replaces `_version_` by delete then create).
Result<ArchivedTimelineVersion> LatestArchivedVersion(Storage& storage, const std::string& history_folder);

/// Every archived instant, ordered by instant time, de-duplicated by instant time (a
/// compaction of the LSM files may briefly list one twice). Reads the latest manifest and the
/// Parquet files it names in parallel on `engine`, their first four columns only. No manifest:
/// an empty list. A damaged manifest or data file, or a manifest naming a file that is missing
/// or outside the folder → kCorruptMetadata naming it.
Result<std::vector<ArchivedInstant>> ReadArchivedTimeline(Storage& storage, const std::string& history_folder,
                                                          Engine& engine, ArchivedTimelineVersion* version = nullptr);

/// The archived instants' commits, decoded as active instant files are (`codec`), cached by
/// manifest version: a read costs one small GET (`_version_`) while nothing was archived since.
/// Thread-safe.
class ArchivedCommits {
 public:
  Result<std::vector<CompletedCommit>> Load(Storage& storage, const std::string& history_folder, Engine& engine,
                                            const InstantCodec& codec);

 private:
  std::mutex mu_;
  std::optional<ArchivedTimelineVersion> version_;
  std::vector<CompletedCommit> commits_;
};

/// `archived` then `active` commits in completion order; an instant in both (archived while
/// it was being read) is kept once, as its active copy.
std::vector<CompletedCommit> WithArchivedCommits(const std::vector<CompletedCommit>& archived,
                                                 std::vector<CompletedCommit> active);

}  // namespace lakeshore
