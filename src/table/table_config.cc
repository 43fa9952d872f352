#include "lakeshore/table/table_config.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "common/utf8.h"
#include "lakeshore/table/blob.h"
#include "lakeshore/table/table_options.h"
#include "table/hoodie_table_config.h"
#include "table/column_names.h"
#include "format/avro_schema.h"

namespace lakeshore {
namespace {

bool IsKeyableType(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::BOOL: case arrow::Type::INT8: case arrow::Type::INT16:
    case arrow::Type::INT32: case arrow::Type::INT64: case arrow::Type::UINT8:
    case arrow::Type::UINT16: case arrow::Type::UINT32: case arrow::Type::UINT64:
    case arrow::Type::STRING: case arrow::Type::LARGE_STRING: case arrow::Type::DATE32:
    case arrow::Type::DATE64: case arrow::Type::TIMESTAMP: case arrow::Type::DECIMAL128:
      return true;
    default:
      return false;
  }
}

bool IsOrderableType(const arrow::DataType& type) {
  return IsKeyableType(type) || type.id() == arrow::Type::FLOAT || type.id() == arrow::Type::DOUBLE;
}

Status CheckField(const arrow::Schema& schema, const std::string& name, const char* role,
                  bool (*type_ok)(const arrow::DataType&)) {
  auto field = schema.GetFieldByName(name);
  if (field == nullptr) {
    return Status::Invalid(role, " field '", name, "' is not a column of the schema");
  }
  if (!type_ok(*field->type())) {
    return Status::Invalid(role, " field '", name, "' has type ", field->type()->ToString(),
                           ", which cannot be used as a ", role, " field");
  }
  return Status::OK();
}
}  // namespace

const char* TableTypeName(TableType type) {
  return type == TableType::kCopyOnWrite ? "cow" : "mor";
}

Result<TableType> ParseTableType(const std::string& name) {
  std::string n = name;
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
  if (n == "cow" || n == "copy_on_write") return TableType::kCopyOnWrite;
  if (n == "mor" || n == "merge_on_read") return TableType::kMergeOnRead;
  return Status::Invalid("unknown table type '", name, "' (cow or mor)");
}

std::vector<std::string> TableConfig::BlobColumns() const {
  std::vector<std::string> out;
  if (!schema) return out;
  for (const auto& f : schema->fields())
    if (IsBlobType(*f->type())) out.push_back(f->name());
  return out;
}

Status TableConfig::Validate() const {
  if (format_version != kFormatVersion) {
    return UnsupportedFeature("table format version " + std::to_string(format_version) +
                              " is not supported by this build (supports " +
                              std::to_string(kFormatVersion) + ")");
  }
  if (!schema || schema->num_fields() == 0) return Status::Invalid("the table schema has no columns");
  // table.json is UTF-8 JSON: every name and property must be valid UTF-8.
  if (!IsValidUtf8(name)) return Status::Invalid("the table name is not valid UTF-8");
  for (const auto& [key, value] : properties) {
    if (!IsValidUtf8(key) || !IsValidUtf8(value)) return Status::Invalid("a table property is not valid UTF-8");
  }
  ARROW_RETURN_NOT_OK(CheckColumnNames(*schema));
  // Every column type must have an Avro form: Hudi keeps the schema as Avro.
  ARROW_RETURN_NOT_OK(format::ArrowSchemaToAvro(*format::NormalizeForHudi(*schema), "check_record", "check").status());
  if (record_key_fields.empty()) return Status::Invalid("a table needs at least one record key field");
  for (const auto& k : record_key_fields) ARROW_RETURN_NOT_OK(CheckField(*schema, k, "record key", IsKeyableType));
  for (const auto& p : partition_fields) ARROW_RETURN_NOT_OK(CheckField(*schema, p, "partition", IsKeyableType));
  // A field named twice would be encoded twice into every key ("id:1,id:1") or path.
  for (const auto* fields : {&record_key_fields, &partition_fields}) {
    std::set<std::string> seen;
    for (const auto& f : *fields) {
      if (!seen.insert(f).second) {
        return Status::Invalid("the ", fields == &record_key_fields ? "record key" : "partition", " field '", f,
                               "' is named twice");
      }
    }
  }
  if (!ordering_field.empty()) {
    ARROW_RETURN_NOT_OK(CheckField(*schema, ordering_field, "ordering", IsOrderableType));
  }
  ARROW_RETURN_NOT_OK(ValidateProperties(properties, table_options::All()));
  ARROW_RETURN_NOT_OK(table_options::CheckOptionColumns(properties, schema->field_names()));
  return table_options::ValidateOptionRelations(properties);
}

Result<bool> TableConfig::ComplexRecordKeys() const {
  switch (record_key_encoding) {
    case KeyEncoding::kByFieldCounts: return UsesComplexKeyEncoding(record_key_fields.size(), partition_fields.size());
    case KeyEncoding::kComplex: return true;
    case KeyEncoding::kPlain: return false;
    case KeyEncoding::kUnknown: break;
  }
  return UnsupportedFeature("table " + name + " is " + UnknownKeyEncodingReason());
}

}  // namespace lakeshore
