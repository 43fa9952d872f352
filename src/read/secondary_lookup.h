// Internal: Table::LookupSecondary, record keys by the value of an indexed column, from a
// secondary index of Hudi's metadata table.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <arrow/array.h>
#include <arrow/record_batch.h>
#include <arrow/table.h>

#include "actions/table_context.h"

namespace lakeshore {

/// True when SecondaryKeyText renders values of `type` (what a secondary index may index).
bool HasSecondaryKeyText(const arrow::DataType& type);

/// The text a secondary index stores for row `row` of `values` (Hudi keeps the Avro value's
/// text): strings as they are, integers in decimal, booleans as true/false, dates as days since
/// the epoch, timestamps as microseconds since the epoch; nullopt for null. Another type →
/// kUnsupportedFeature naming it.
Result<std::optional<std::string>> SecondaryKeyText(const arrow::Array& values, int64_t row);

/// The field an index's source field names in `schema`: a top-level column, or a dotted path
/// into struct columns (`blob.reference.external_path`). Null when there is none.
std::shared_ptr<arrow::Field> IndexedField(const arrow::Schema& schema, const std::string& path);

/// The values of the source field `path` in `rows` (which hold its top-level column), one per
/// row: a nested field is null where any struct above it is. kInvalid when `rows` lacks it.
Result<std::shared_ptr<arrow::Array>> IndexedValues(const arrow::Table& rows, const std::string& path);

/// Table::LookupSecondary: the records whose indexed column holds one of `values` (the first
/// column of the stream; cast to the indexed column's type when it differs, so "2024-01-15"
/// finds a date), from the secondary index `index` (its metadata partition name,
/// secondary_index_<name>): a table of
/// (secondary_key, record_key), one row per match, in the order of `values` then of record key.
/// Only a built index (not in flight) of a completed definition answers; entries count only for
/// completed data instants. No such index → kInvalid naming the table's secondary indexes.
/// Cost: per distinct value, one file group's logs and the base file blocks of its prefix.
Result<std::shared_ptr<arrow::Table>> LookupSecondary(TableContext& ctx, const std::string& index,
                                                      const std::shared_ptr<arrow::RecordBatchReader>& values);

}  // namespace lakeshore
