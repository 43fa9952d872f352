// Internal: turning log files (JSON commits, Parquet checkpoints and sidecars) into ActionSets.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <arrow/buffer.h>
#include <arrow/table.h>

#include "lakeshore/delta/actions.h"
#include "lakeshore/storage/storage.h"

namespace lakeshore::delta {

// ---- the protocol's checks on actions, shared by the JSON and the Parquet readers ----------

/// kCorruptMetadata "Delta log file '<source>' action <action_number>: <what>" (1-based).
Status CorruptAction(const std::string& source, int64_t action_number, const std::string& what);

/// A file action's path as the log holds it: present, not empty, and URL-decoded once (log
/// paths are written encoded). `kind` names the action ("add", "remove", ...) in errors.
Result<std::string> DecodeActionPath(std::optional<std::string_view> raw, const std::string& kind,
                                     const std::string& source, int64_t action_number);

/// The fields of a deletion vector descriptor as the log holds them.
struct RawDeletionVector {
  std::optional<std::string> storage_type, path_or_inline_dv;
  std::optional<int64_t> offset, size_in_bytes, cardinality;
};

/// A descriptor from its fields: storageType and pathOrInlineDv present, the type one of u, p, i.
Result<DeletionVectorDescriptor> MakeDeletionVector(RawDeletionVector raw, const std::string& source,
                                                    int64_t action_number);

/// Appends `later`'s actions to `into`, as one pass over `into`'s text followed by `later`'s
/// would have read them: lists concatenated in order, a protocol, metaData or commitInfo of
/// `later` replacing `into`'s, action counts summed. O(actions moved).
void AppendActions(ActionSet& into, ActionSet&& later);

/// Converts a table (a Parquet checkpoint's) whose top-level struct columns are named after
/// Delta actions (`add`, `remove`, `cdc`, `metaData`, `protocol`, `commitInfo`, `sidecar`;
/// any may be missing, and each struct may hold only a subset of its fields) into an
/// ActionSet. It makes the same checks as ParseJsonCommit. Errors are kCorruptMetadata naming `source`.
Result<ActionSet> ActionsFromTable(const arrow::Table& table, const std::string& source);

/// Parses a newline-delimited JSON commit (ParseJsonCommit: one pass, unknown actions and
/// fields skipped). An empty file, a truncated or malformed line, or a field of the wrong type
/// → kCorruptMetadata naming `source`.
Result<ActionSet> ParseJsonActions(const std::shared_ptr<arrow::Buffer>& data,
                                   const std::string& source);

/// What a Parquet action file is to the log, and so which columns it must have.
enum class ParquetActionFile {
  /// A checkpoint (classic, a part of a multi-part one, or a V2 checkpoint's top-level file):
  /// `add` and `remove` columns (every Delta writer writes both, even with no rows for them),
  /// or a `sidecar` column naming the files that hold them.
  kCheckpoint,
  /// A V2 checkpoint's sidecar: an `add` column, and exactly `expected_size` bytes (its
  /// `sidecar` action's `sizeInBytes`, which must be above 0).
  kSidecar,
};

/// Reads the action columns of a Parquet checkpoint part or sidecar at `path` (relative to the
/// table root) with parquet::arrow, projecting only the leaves an ActionSet needs (never the
/// stats); without `include_adds` not even the `add` columns (a checkpoint's bulk). Missing or
/// unreadable, or without the columns `kind` requires (a foreign Parquet file read as one
/// holding no files would make every data file a vacuum's candidate), with two columns of one
/// name (case-insensitive), with an `add`, `remove` or `sidecar` struct lacking `path` (or a
/// sidecar's `sizeInBytes`), or a checkpoint naming neither files (an `add` column) nor
/// sidecars → kCorruptMetadata naming the path.
Result<ActionSet> ReadParquetActions(Storage& storage, const std::string& path, bool include_adds = true,
                                     ParquetActionFile kind = ParquetActionFile::kCheckpoint,
                                     int64_t expected_size = 0);

/// Reads a log file by its extension: ".json" via ParseJsonActions, ".parquet" via
/// ReadParquetActions; without `include_adds` the result holds no adds.
Result<ActionSet> ReadActionFile(Storage& storage, const std::string& path, bool include_adds = true);

}  // namespace lakeshore::delta
