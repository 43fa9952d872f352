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

#include <map>
#include <memory>
#include <mutex>

#include "lakeshore/engine/engine.h"
#include "lakeshore/storage/storage.h"
#include "table/file_system_view.h"
#include "timeline/commit_metadata_cache.h"
#include "timeline/instant.h"
#include "timeline/instant_codec.h"

namespace lakeshore {

/// One archived (completed) instant and its instant file's bytes.
struct ArchivedInstant {
  Instant instant;       ///< completed; a missing completion time is the instant time (Hudi's rule)
  std::string metadata;  ///< the completed instant file's content ("" when Hudi stored none)
  std::string plan;      ///< the plan of a table service (compaction, clustering, clean); written, not read
};

/// One data file a manifest names.
struct ArchivedFileEntry {
  std::string name;  ///< `<minInstant>_<maxInstant>_<layer>.parquet`
  int64_t length = 0;
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

/// The data files manifest `version` names (none for version 0). kCorruptMetadata naming it
/// when damaged.
Result<std::vector<ArchivedFileEntry>> ReadArchivedManifest(Storage& storage, const std::string& history_folder,
                                                            ArchivedTimelineVersion version);

/// The layer of a data file name (`<min>_<max>_<layer>.parquet`), -1 when it is not one.
int ArchivedFileLayer(const std::string& name);

/// Writes the data file `name` under `history_folder` with one row per instant, as Hudi's
/// LSMTimelineWriter does (parquet-avro's layout of HoodieLSMTimelineInstant: instantTime,
/// completionTime, action, metadata, plan, version = 1; gzip; the Avro schema in the footer).
/// Replaces a file of that name. Returns its length.
Result<int64_t> WriteArchivedFile(Storage& storage, const std::string& history_folder, const std::string& name,
                                  const std::vector<ArchivedInstant>& instants);

/// Publishes `files` as the next manifest after `current`: `manifest_<current+1>` (a leftover of
/// that name from a crash is replaced) in Jackson's pretty JSON, then `_version_`. The new
/// manifest is the archive's state from the moment it exists (readers fall back to the highest
/// manifest while `_version_` is replaced). Returns the new version.
Result<ArchivedTimelineVersion> PublishArchivedManifest(Storage& storage, const std::string& history_folder,
                                                        ArchivedTimelineVersion current,
                                                        const std::vector<ArchivedFileEntry>& files);

/// The rows of one data file (`with_plan`: the plan column too), in file order. Damage →
/// kCorruptMetadata naming the file.
Result<std::vector<ArchivedInstant>> ReadArchivedFile(Storage& storage, const std::string& path, bool with_plan);

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
  using DecodedFile = std::shared_ptr<const std::vector<CompletedCommit>>;
  std::mutex mu_;
  std::optional<ArchivedTimelineVersion> version_;
  std::vector<CompletedCommit> commits_;
  /// Each archived file's commits, decoded, by "<name>#<length>": a file a manifest names is
  /// never rewritten, so after an archival only its new file is read and decoded (the whole
  /// archive was, after every archival: the write after one cost ten times the others).
  std::map<std::string, DecodedFile> files_;
};

/// Every completed instant of `timeline` (read through `cache`) and every archived one (through
/// `archive`, from `history_folder`), in completion order. An archival running meanwhile
/// publishes its archive before it deletes the active files it moved, so an active instant
/// whose file is gone since `timeline` was listed is looked up in the archive, read after: one
/// the archive does not hold either (a restore removed it meanwhile) is a CommitConflict naming
/// its file: nothing is left out silently.
Result<std::vector<CompletedCommit>> LoadCommitsWithArchive(Storage& storage, Engine& engine, const Timeline& timeline,
                                                            CommitMetadataCache& cache, ArchivedCommits& archive,
                                                            const std::string& history_folder, const InstantCodec& codec);

/// `archived` then `active` commits in completion order; an instant in both (archived while
/// it was being read) is kept once, as its active copy.
std::vector<CompletedCommit> WithArchivedCommits(const std::vector<CompletedCommit>& archived,
                                                 std::vector<CompletedCommit> active);

}  // namespace lakeshore
