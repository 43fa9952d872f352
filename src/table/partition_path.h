// Hive-style partition paths: `field=value/field2=value2`, values escaped as Hive does.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <arrow/record_batch.h>
#include <arrow/table.h>

#include "lakeshore/status.h"

namespace lakeshore {

/// The folder name Hive uses for a null partition value.
inline constexpr const char* kNullPartitionValue = "__HIVE_DEFAULT_PARTITION__";

/// Escapes a partition value as Hive does (percent-encodes '/', '=', '%', ':', control
/// characters and the other characters Hive escapes).
std::string EscapePartitionValue(const std::string& value);
/// Reverses EscapePartitionValue; Invalid on a malformed escape.
Result<std::string> UnescapePartitionValue(const std::string& escaped);

/// Splits a partition path into (field, raw value) pairs, unescaping values; Invalid if a
/// segment is not `field=value`.
Result<std::vector<std::pair<std::string, std::string>>> ParsePartitionPath(const std::string& path);

/// The partition path of every row of `table` (one string per row; "" for an unpartitioned
/// table). Values are the canonical string renderings of the partition columns.
Result<std::vector<std::string>> ComputePartitionPaths(const arrow::Table& table,
                                                       const std::vector<std::string>& fields);

/// The canonical string of every value of `column`, as used for keys and partition values
/// (integers in decimal, strings as is, dates and timestamps in ISO form); nulls are nullopt.
Result<std::vector<std::optional<std::string>>> ValuesAsStrings(const std::shared_ptr<arrow::ChunkedArray>& column);

}  // namespace lakeshore
