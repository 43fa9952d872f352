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

/// Converts a table whose top-level struct columns are named after Delta actions (`add`,
/// `remove`, `cdc`, `metaData`, `protocol`, `commitInfo`, `sidecar`; any may be missing, and
/// each struct may hold only a subset of its fields) into an ActionSet. Shared by the JSON and
/// the Parquet paths so both validate identically. Errors are kCorruptMetadata naming `source`.
Result<ActionSet> ActionsFromTable(const arrow::Table& table, const std::string& source);

/// Parses a newline-delimited JSON commit with Arrow's vectorized JSON reader and an explicit
/// schema of the actions above (unknown actions and fields are ignored). An empty file, a
/// truncated or malformed line, or a field of the wrong type → kCorruptMetadata naming
/// `source`. Cost: one pass over the bytes.
Result<ActionSet> ParseJsonActions(const std::shared_ptr<arrow::Buffer>& data,
                                   const std::string& source);

/// Parses several JSON commits with one Arrow JSON parse (their per-file set-up dominates for
/// small commits), then splits the rows back per file. Any problem falls back to parsing the
/// files one by one, so errors name the bad file exactly as ParseJsonActions does.
Result<std::vector<ActionSet>> ParseJsonActionsBatch(const std::vector<std::shared_ptr<arrow::Buffer>>& files,
                                                     const std::vector<std::string>& sources);

/// Reads the action columns of a Parquet checkpoint part or sidecar at `path` (relative to the
/// table root) with parquet::arrow, projecting only the leaves an ActionSet needs (never the
/// stats). Missing or unreadable → kCorruptMetadata naming the path.
Result<ActionSet> ReadParquetActions(Storage& storage, const std::string& path);

/// Reads a log file by its extension: ".json" via ParseJsonActions, ".parquet" via
/// ReadParquetActions.
Result<ActionSet> ReadActionFile(Storage& storage, const std::string& path);

}  // namespace lakeshore::delta
