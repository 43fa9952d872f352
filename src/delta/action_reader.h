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

/// Reads the action columns of a Parquet checkpoint part or sidecar at `path` (relative to the
/// table root) with parquet::arrow, projecting only the leaves an ActionSet needs (never the
/// stats); without `include_adds` not even the `add` columns (a checkpoint's bulk). Missing or
/// unreadable → kCorruptMetadata naming the path.
Result<ActionSet> ReadParquetActions(Storage& storage, const std::string& path, bool include_adds = true);

/// Reads a log file by its extension: ".json" via ParseJsonActions, ".parquet" via
/// ReadParquetActions; without `include_adds` the result holds no adds.
Result<ActionSet> ReadActionFile(Storage& storage, const std::string& path, bool include_adds = true);

}  // namespace lakeshore::delta
