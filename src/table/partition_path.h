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

/// The partition of every row: the distinct partition paths and, per row, the index of its
/// path ("" is the one path of an unpartitioned table).
struct PartitionedRows {
  std::vector<std::string> paths;
  std::vector<int32_t> id_of_row;
  const std::string& PathOf(int64_t row) const { return paths[static_cast<size_t>(id_of_row[static_cast<size_t>(row)])]; }
};

/// Assigns every row of `table` its partition path from the partition columns (values in
/// their canonical string rendering, Hive-escaped; null as kNullPartitionValue). Vectorized:
/// each column is dictionary-encoded once and only the distinct values are rendered.
Result<PartitionedRows> ComputePartitions(const arrow::Table& table, const std::vector<std::string>& fields);

/// The canonical string of every value of `column`, as used for keys and partition values
/// (integers in decimal, strings as is, dates and timestamps in ISO form); nulls are nullopt.
Result<std::vector<std::optional<std::string>>> ValuesAsStrings(const std::shared_ptr<arrow::ChunkedArray>& column);

}  // namespace lakeshore
