// Record keys: the string identity of a record within its partition.
#pragma once

#include <string>
#include <vector>

#include <arrow/table.h>

#include "lakeshore/status.h"

namespace lakeshore {

/// The record key of every row of `table`: the key value as a string for a single key field,
/// `f1:v1,f2:v2` for a composite key (Hudi's complex key format). A null key value is an
/// error naming the field and row.
Result<std::vector<std::string>> ComputeRecordKeys(const arrow::Table& table,
                                                   const std::vector<std::string>& key_fields);

}  // namespace lakeshore
