// The Delta Lake log actions Lakeshore reads: the subset of PROTOCOL.md a vacuum needs to know
// which files a table still references.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lakeshore/status.h"

namespace lakeshore::delta {

/// A deletion vector descriptor of an `add` or `remove` action (PROTOCOL.md "Deletion Vector
/// Descriptor Schema"). `storage_type` is one of "u" (UUID-derived relative path), "p"
/// (absolute path) or "i" (inline, no file).
struct DeletionVectorDescriptor {
  std::string storage_type;
  std::string path_or_inline_dv;
  std::optional<int32_t> offset;
  int32_t size_in_bytes = 0;
  int64_t cardinality = 0;

  /// The protocol's `uniqueId`: storage type, payload and "@offset" when an offset is set.
  /// Identifies one logical file together with the data file path. O(payload length).
  std::string UniqueId() const;
};

/// An `add` action: a data file (optionally with a deletion vector) is part of the table.
/// `path` is URL-decoded: a path relative to the table root, or an absolute URI.
struct AddFile {
  std::string path;
  int64_t size = 0;
  int64_t modification_time = 0;
  std::optional<DeletionVectorDescriptor> deletion_vector;
};

/// A `remove` action: a tombstone for a logical file, kept until its deletion timestamp falls
/// behind the retention cutoff. `path` is URL-decoded like AddFile::path.
struct RemoveFile {
  std::string path;
  /// UTC ms. Optional in the protocol; DeltaLog's readers date a tombstone written without it
  /// by when its commit (or checkpoint) was written at the latest, never as expired long ago.
  std::optional<int64_t> deletion_timestamp;
  std::optional<int64_t> size;
  std::optional<DeletionVectorDescriptor> deletion_vector;
};

/// A `cdc` action: a change data file of one commit (usually under `_change_data/`).
struct CdcFile {
  std::string path;
  int64_t size = 0;
};

/// The `protocol` action: minimum reader/writer versions and, from reader 3 / writer 7 on,
/// the named table features.
struct Protocol {
  int32_t min_reader_version = 1;
  int32_t min_writer_version = 1;
  std::vector<std::string> reader_features;
  std::vector<std::string> writer_features;
};

/// The `metaData` action, reduced to what a vacuum needs.
struct Metadata {
  std::string id;
  std::vector<std::string> partition_columns;
  /// Only the table properties Lakeshore interprets (see kInterpretedTableProperties).
  std::map<std::string, std::string> configuration;
};

/// The table properties read from `metaData.configuration`; others are ignored.
inline constexpr const char* kInterpretedTableProperties[] = {
    "delta.deletedFileRetentionDuration", "delta.enableInCommitTimestamps",
    "delta.universalFormat.enabledFormats", "delta.enableChangeDataFeed",
    "delta.enableDeletionVectors", "delta.inCommitTimestampEnablementVersion",
    "delta.inCommitTimestampEnablementTimestamp"};

/// The `commitInfo` action (provenance), reduced to what vacuum's history needs.
struct CommitInfo {
  std::optional<int64_t> timestamp;
  std::optional<int64_t> in_commit_timestamp;
  std::string operation;
};

/// A `sidecar` action of a v2 checkpoint: a Parquet file under `_delta_log/_sidecars/` that
/// holds part of the checkpoint's file actions. `path` is URL-decoded.
struct SidecarFile {
  std::string path;
  int64_t size_in_bytes = 0;
};

/// The actions of one log file (a commit, a checkpoint part or a sidecar), in file order per
/// kind. A file with several protocol or metaData actions keeps the last one.
struct ActionSet {
  std::vector<AddFile> adds;
  std::vector<RemoveFile> removes;
  std::vector<CdcFile> cdc;
  std::optional<Protocol> protocol;
  std::optional<Metadata> metadata;
  std::optional<CommitInfo> commit_info;
  std::vector<SidecarFile> sidecars;
  /// Number of actions read (rows that held any action Lakeshore knows).
  int64_t num_actions = 0;
};

}  // namespace lakeshore::delta
