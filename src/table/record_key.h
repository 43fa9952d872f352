// Record keys: the string identity of a record within its partition.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <arrow/chunked_array.h>
#include <arrow/table.h>

#include "lakeshore/status.h"

namespace lakeshore {

/// The record key of every row of `table` as one utf8 column: the key value rendered as a
/// string (a string key column is used as is, zero-copy), or with `complex_encoding` (see
/// UsesComplexKeyEncoding) Hudi's complex format `f1:v1,f2:v2`, a null or empty value written as
/// Hudi's `__null__` / `__empty__` (KeyGenUtils). Vectorized (Arrow compute). Errors name the
/// field and the first such row: a null or empty plain key, or a complex key null or empty in
/// every field (Hudi refuses both); in the complex format, a value holding ',' or spelled
/// `__null__` or `__empty__` (two different keys could then render the same: ('x,k2:y', 'z')
/// and ('x', 'y,k2:z')).
Result<std::shared_ptr<arrow::ChunkedArray>> ComputeRecordKeys(const arrow::Table& table,
                                                               const std::vector<std::string>& key_fields,
                                                               bool complex_encoding);

/// Views of every value of a utf8 column; valid while the column lives.
std::vector<std::string_view> StringViews(const arrow::ChunkedArray& column);

}  // namespace lakeshore
