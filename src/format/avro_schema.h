// Internal: Avro schemas (JSON) as Arrow schemas: Hudi keeps a table's schema as Avro (the
// create schema in hoodie.properties, `extraMetadata.schema` in each commit).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <arrow/type.h>

#include "lakeshore/status.h"

namespace lakeshore::format {

/// The Arrow schema of the Avro record schema `avro_json`, as parquet-avro and hudi-rs map it:
/// boolean, int (date → date32, time-millis → time32[ms]), long (timestamp-millis/-micros →
/// timestamp with UTC, local-timestamp-* → without zone, time-micros → time64[us]), float,
/// double, string and enum → utf8, bytes → binary, fixed → fixed_size_binary, a decimal on
/// bytes or fixed → decimal128 (decimal256 above 38 digits), array → list, map → map<utf8, T>,
/// record → struct. A union of null and one type is that type, nullable; other unions →
/// kUnsupportedFeature. `source` names the schema's origin in errors (kCorruptMetadata for JSON
/// that is not an Avro record schema).
Result<std::shared_ptr<arrow::Schema>> AvroSchemaToArrow(std::string_view avro_json,
                                                         const std::string& source);

}  // namespace lakeshore::format
