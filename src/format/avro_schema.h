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

/// Hudi's BLOB type (RFC-100 part 1, Avro logicalType "blob" on a record) as Arrow sees it:
/// `struct<type: utf8 not null (enum blob_storage_type: INLINE | OUT_OF_LINE), data: binary,
/// reference: struct<external_path: utf8 not null, offset: int64, length: int64, managed: bool
/// not null>>`.
std::shared_ptr<arrow::DataType> HudiBlobType();

/// The schema a Hudi table stores for `schema`: each type replaced by the one Avro (and so
/// every Hudi reader) holds it as: int8, int16, uint8 and uint16 → int32; uint32 → int64;
/// large strings and binaries → utf8 and binary; nanosecond timestamps and times →
/// microseconds; every timestamp → zone "UTC" (a naive one too: Avro's local-timestamp types
/// are not read by every Hudi reader, so its values are stored as UTC instants, as Spark's
/// writer does); dictionaries → their value type. Lists keep
/// "element" items, maps "key"/"value". Other types are kept (ArrowSchemaToAvro refuses what it
/// cannot store). Writes cast their batches to this schema.
std::shared_ptr<arrow::Schema> NormalizeForHudi(const arrow::Schema& schema);

/// `name` as an Avro name: characters Avro does not allow become '_', a leading digit gets a
/// '_' before it, "" is "table". Hudi names a table's record `<name>_record` in `hoodie.<name>`.
std::string AvroSafeName(const std::string& name);

/// The Avro record schema (JSON text) of a normalized Arrow schema, as Hudi's Spark writer
/// names it: record `<record_name>` in namespace `<name_space>`, nested records named after
/// their field in the parent's namespace; nullable fields are ["null", T] with default null;
/// decimals are `fixed` of the fewest bytes for their precision; BlobType() structs carry
/// Hudi's logicalType "blob" with the enum `blob_storage_type`. kUnsupportedFeature naming the
/// field for a type Avro cannot hold (uint64, float16, non-string map keys, unions, ...) or a
/// name Avro does not allow ([A-Za-z_][A-Za-z0-9_]*).
Result<std::string> ArrowSchemaToAvro(const arrow::Schema& schema, const std::string& record_name,
                                      const std::string& name_space);

/// `avro_json` (a record schema) with Hudi's five meta fields in front, as Hudi writes them into
/// base file footers: `{"name": "_hoodie_commit_time", "type": ["null", "string"], "doc": "",
/// "default": null}`, ... A schema that already has them is returned as is. kCorruptMetadata
/// for JSON that is not a record schema.
Result<std::string> WithHudiMetaFields(std::string_view avro_json);

}  // namespace lakeshore::format
