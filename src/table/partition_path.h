// Partition paths as Hudi writes them: hive-style `field=value/field2=value2` or plain
// `value/value2`, values escaped as Hive does when the table url-encodes them.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <arrow/record_batch.h>
#include <arrow/table.h>

#include "lakeshore/status.h"

namespace lakeshore {

/// The folder name Hive uses for a null partition value; Hudi's key generators put an empty
/// value there too (KeyGenUtils), so for them the folder holds null or "".
inline constexpr const char* kNullPartitionValue = "__HIVE_DEFAULT_PARTITION__";

/// Escapes a partition value as Hive does (percent-encodes '/', '=', '%', ':', control
/// characters and the other characters Hive escapes).
std::string EscapePartitionValue(const std::string& value);
/// Reverses EscapePartitionValue; Invalid on a malformed escape.
Result<std::string> UnescapePartitionValue(const std::string& escaped);

/// How a table names its partition folders (hoodie.datasource.write.hive_style_partitioning and
/// .partitionpath.urlencode).
struct PartitionStyle {
  bool hive_style = true;  ///< `field=value` segments; else the value alone
  bool url_encode = true;  ///< values Hive-escaped; else written as they are
};

/// Splits a partition path into (field, value) pairs: hive-style segments name their field;
/// plain segments take `fields` in order. Values are unescaped when the style url-encodes them.
/// Invalid for a segment that does not fit the style.
Result<std::vector<std::pair<std::string, std::string>>> ParsePartitionPath(const std::string& path,
                                                                           const std::vector<std::string>& fields,
                                                                           PartitionStyle style);

/// The partition of every row: the distinct partition paths and, per row, the index of its
/// path ("" is the one path of an unpartitioned table's rows; there is none without rows).
struct PartitionedRows {
  std::vector<std::string> paths;
  std::vector<int32_t> id_of_row;
  const std::string& PathOf(int64_t row) const { return paths[static_cast<size_t>(id_of_row[static_cast<size_t>(row)])]; }
};

/// Assigns every row of `table` its partition path from the partition columns (values in
/// their canonical string rendering, escaped when `style` url-encodes; null and "" as
/// kNullPartitionValue, in one partition, as Hudi's key generators lay them out). A value that
/// cannot be a folder name is refused (kSchemaMismatch): one over 255 bytes; unescaped, one
/// holding '/'; one whose folder would be ".", "..", ".hoodie" or ".hoodie_partition_metadata". Vectorized: each column is dictionary-encoded once and only
/// the distinct values are rendered.
Result<PartitionedRows> ComputePartitions(const arrow::Table& table, const std::vector<std::string>& fields,
                                          PartitionStyle style);

/// The canonical string of every value of `column`, as used for keys and partition values
/// (integers in decimal, strings as is, dates and timestamps in ISO form); nulls are nullopt.
Result<std::vector<std::optional<std::string>>> ValuesAsStrings(const std::shared_ptr<arrow::ChunkedArray>& column);

}  // namespace lakeshore
