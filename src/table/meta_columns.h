// Hudi's five meta columns, which every base file carries in front of the user columns.
#pragma once

#include <memory>

#include <arrow/array.h>
#include <arrow/type.h>

#include "lakeshore/status.h"

namespace lakeshore::meta_columns {

inline constexpr const char* kCommitTime = "_hoodie_commit_time";
inline constexpr const char* kCommitSeqno = "_hoodie_commit_seqno";
inline constexpr const char* kRecordKey = "_hoodie_record_key";
inline constexpr const char* kPartition = "_hoodie_partition_path";
inline constexpr const char* kFileName = "_hoodie_file_name";
inline constexpr int kCount = 5;

/// True for a name reserved for meta columns (prefix "_hoodie_", as in Hudi).
bool IsReserved(const std::string& name);

/// The type of the per-file near-constant meta columns (commit time, partition):
/// dictionary<int32, utf8>. Cheap to build, write and read; Parquet stores plain strings
/// (dictionary-encoded), so any Parquet reader sees strings.
std::shared_ptr<arrow::DataType> ConstantType();

/// A column of `length` copies of `value` of ConstantType(). Cost: one int32 per row.
Result<std::shared_ptr<arrow::Array>> MakeConstantColumn(const std::string& value, int64_t length);

/// The five meta fields as readers see them (nullable utf8, as Hudi's Avro schema declares
/// them), in file order: commit time, commit seqno, record key, partition path, file name.
const std::vector<std::shared_ptr<arrow::Field>>& Fields();

/// `schema` with the meta fields prepended.
std::shared_ptr<arrow::Schema> WithMetaColumns(const arrow::Schema& schema);

/// Hudi's `_hoodie_commit_seqno` values `<instant>_<file>_<row>` for rows first..first+n-1
/// of one file write (`file` tells apart the files of one instant). O(n).
Result<std::shared_ptr<arrow::Array>> MakeSeqnoColumn(const std::string& instant, const std::string& file,
                                                      int64_t first, int64_t n);

}  // namespace lakeshore::meta_columns
