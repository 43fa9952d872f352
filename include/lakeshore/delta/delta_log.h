// The Delta Lake transaction log reader: lists `_delta_log`, picks the newest complete
// checkpoint (classic, multi-part or v2 with sidecars), replays the JSON commits after it and
// reconstructs the snapshot at the latest version.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lakeshore/delta/actions.h"
#include "lakeshore/engine/engine.h"
#include "lakeshore/status.h"
#include "lakeshore/storage/storage.h"

namespace lakeshore::delta {

/// The folder of the log, relative to the table root.
inline constexpr const char* kDeltaLogDir = "_delta_log";

/// One JSON commit file as listed.
struct CommitFile {
  int64_t version = 0;
  std::string path;       ///< relative to the table root
  int64_t size = 0;
  int64_t mtime_ms = 0;   ///< storage modification time
};

/// One checkpoint of the log: the files that together hold the state at `version`.
struct Checkpoint {
  enum class Kind { kClassic, kMultiPart, kUuidNamed };
  int64_t version = 0;
  Kind kind = Kind::kClassic;
  std::vector<std::string> parts;  ///< paths relative to the table root, in part order
  int64_t mtime_ms = 0;            ///< the newest storage modification time of its parts
};

/// The table state at one version.
struct DeltaSnapshot {
  int64_t version = -1;
  Protocol protocol;
  Metadata metadata;
  /// Log file the protocol in force came from (for error messages).
  std::string protocol_source;
  /// Active logical files: one per (path, deletion vector id).
  std::vector<AddFile> active_files;
  /// Remove tombstones still in the state (checkpoints drop expired ones).
  std::vector<RemoveFile> tombstones;
  /// Change data files of the commits replayed after the checkpoint (checkpoints keep none).
  std::vector<CdcFile> cdc_files;
  std::optional<Checkpoint> checkpoint;  ///< the checkpoint the state was built from

  /// `delta.deletedFileRetentionDuration` in ms (default 7 days). Invalid property →
  /// kCorruptMetadata. O(1).
  Result<int64_t> TombstoneRetentionMs() const;
  /// True if `delta.enableInCommitTimestamps` is "true".
  bool InCommitTimestampsEnabled() const;
};

/// Refuses a protocol this build cannot safely vacuum or commit to: reader version > 3, writer
/// version > 7, or a reader/writer feature outside the known list. The error is
/// kUnsupportedFeature and names the feature (or version) and `source`. O(features).
Status CheckProtocolSupported(const Protocol& protocol, const std::string& source);

/// Parses a Spark calendar interval such as "interval 7 days", "interval 1 week 2 hours" or
/// "168 hours" into milliseconds. Months and years are refused (ambiguous), as is anything
/// unparsable (Invalid). O(length).
Result<int64_t> ParseIntervalMs(const std::string& text);

/// Reads one Delta table's log. Thread-compatible: build once, read from one thread (the
/// reader fans out through its Engine itself).
class DeltaLog {
 public:
  /// Lists `_delta_log` of the table at `table` (one non-recursive listing) and reads
  /// `_last_checkpoint` if present. Fails with kCorruptMetadata if there is no commit and no
  /// checkpoint, or `_last_checkpoint` is unreadable. Cost: one listing + one small read.
  static Result<std::shared_ptr<DeltaLog>> Open(std::shared_ptr<Storage> table,
                                                std::shared_ptr<Engine> engine);

  /// The newest version in the log (max over commits and checkpoints).
  int64_t latest_version() const { return latest_version_; }
  /// All JSON commits found, ascending by version (older ones may have been cleaned up).
  const std::vector<CommitFile>& commits() const { return commits_; }
  /// The commit file of `version`, or nullptr if it is not (or no longer) in the log.
  const CommitFile* FindCommit(int64_t version) const;
  /// The table storage this log belongs to.
  const std::shared_ptr<Storage>& storage() const { return table_; }

  /// Reconstructs the snapshot at latest_version(): loads the chosen checkpoint (parts and
  /// sidecars in parallel), then the commits after it (in parallel), and replays them in
  /// order. Errors (nothing is guessed): a missing checkpoint part, sidecar or commit, or a
  /// corrupt/truncated file → kCorruptMetadata naming the file. Cost: reads the checkpoint's
  /// file-action columns and every later commit once. Without `with_active_files` the
  /// snapshot's active_files stay empty and the checkpoint's `add` columns are not even read
  /// (protocol, metadata and tombstones are complete): the cheap form for decisions that do not
  /// need the live files.
  Result<DeltaSnapshot> LoadSnapshot(bool with_active_files = true);

  /// Reads and parses the JSON commit at `version` (Arrow's JSON reader with an explicit
  /// schema). Missing → kCorruptMetadata naming the expected file. Cost: one read.
  Result<ActionSet> ReadCommit(int64_t version) const;

  /// Reads several commits in parallel through the engine, in the order given.
  Result<std::vector<ActionSet>> ReadCommits(const std::vector<int64_t>& versions) const;

  /// Commit timestamps the way Spark resolves history: the commit's file modification time,
  /// made strictly increasing across versions (a commit never predates its predecessor).
  /// Returned ascending by version for every entry of commits(). O(commits).
  std::vector<std::pair<int64_t, int64_t>> CommitTimestamps() const;

  /// The path of the JSON commit file of `version`, relative to the table root.
  static std::string CommitPath(int64_t version);

 private:
  DeltaLog(std::shared_ptr<Storage> table, std::shared_ptr<Engine> engine)
      : table_(std::move(table)), engine_(std::move(engine)) {}
  Status Index(const std::vector<FileEntry>& entries);
  Result<std::optional<Checkpoint>> ChooseCheckpoint() const;
  /// True when `_last_checkpoint` names a version no listed complete checkpoint has, nor any
  /// newer one: a writer checkpointed between the listing and the read of `_last_checkpoint`.
  bool NamedCheckpointUnlisted() const;

  std::shared_ptr<Storage> table_;
  std::shared_ptr<Engine> engine_;
  std::vector<CommitFile> commits_;
  std::vector<Checkpoint> complete_checkpoints_;  ///< ascending by version
  /// Multi-part checkpoints with parts missing: (version, the first missing part path).
  std::vector<std::pair<int64_t, std::string>> incomplete_checkpoints_;
  std::optional<int64_t> last_checkpoint_version_;
  std::optional<std::string> last_checkpoint_v2_path_;
  int64_t latest_version_ = -1;
};

}  // namespace lakeshore::delta
