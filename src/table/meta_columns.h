// The meta columns every base file carries in front of the user columns.
#pragma once

#include <memory>

#include <arrow/type.h>

namespace lakeshore::meta_columns {

inline constexpr const char* kCommitTime = "_lakeshore_commit_time";
inline constexpr const char* kRecordKey = "_lakeshore_record_key";
inline constexpr const char* kPartition = "_lakeshore_partition";
inline constexpr int kCount = 3;

/// True for a name reserved for meta columns (prefix "_lakeshore_").
bool IsReserved(const std::string& name);

/// The three meta fields (all non-null utf8), in file order.
const std::vector<std::shared_ptr<arrow::Field>>& Fields();

/// `schema` with the meta fields prepended.
std::shared_ptr<arrow::Schema> WithMetaColumns(const arrow::Schema& schema);

}  // namespace lakeshore::meta_columns
