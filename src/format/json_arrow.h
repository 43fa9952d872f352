// Internal: records decoded from Avro (as JSON trees, see avro_container.h) into Arrow arrays.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <arrow/record_batch.h>
#include <arrow/type.h>
#include <nlohmann/json.hpp>

#include "lakeshore/status.h"

namespace lakeshore::format {

/// The record batch of `records` (JSON objects keyed by field name) under `schema`: each field
/// takes the record's value of that name (missing or null → null). Values convert as Avro's do
/// to the Arrow types AvroSchemaToArrow gives: integers to any integer, date, time or timestamp
/// type; numbers to floats; strings to utf8; binary (or string) to binary and fixed-size
/// binary; Avro decimal bytes (big-endian two's complement) to decimal128/256; objects to
/// structs and maps; arrays to lists. A value that does not fit → kCorruptMetadata naming
/// `source`, the record and the field. O(values).
Result<std::shared_ptr<arrow::RecordBatch>> JsonRecordsToArrow(const std::vector<nlohmann::json>& records,
                                                               const std::shared_ptr<arrow::Schema>& schema,
                                                               const std::string& source);

}  // namespace lakeshore::format
