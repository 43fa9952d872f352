#include "read/secondary_lookup.h"

#include <algorithm>
#include <set>
#include <vector>

#include <arrow/array/concatenate.h>
#include <arrow/builder.h>
#include <arrow/compute/cast.h>
#include <arrow/util/key_value_metadata.h>

#include "common/arrow_cast.h"
#include "io/metadata_files.h"
#include "table/index_definitions.h"

namespace lakeshore {

bool HasSecondaryKeyText(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::STRING: case arrow::Type::LARGE_STRING: case arrow::Type::INT8: case arrow::Type::INT16:
    case arrow::Type::INT32: case arrow::Type::INT64: case arrow::Type::BOOL: case arrow::Type::DATE32:
    case arrow::Type::TIMESTAMP:
      return true;
    default:
      return false;
  }
}

Result<std::optional<std::string>> SecondaryKeyText(const arrow::Array& values, int64_t row) {
  if (!HasSecondaryKeyText(*values.type())) {
    return UnsupportedFeature("a secondary index lookup by a value of type " + values.type()->ToString());
  }
  if (values.IsNull(row)) return std::optional<std::string>();
  switch (values.type_id()) {
    case arrow::Type::STRING: return std::optional<std::string>(static_cast<const arrow::StringArray&>(values).GetString(row));
    case arrow::Type::LARGE_STRING:
      return std::optional<std::string>(static_cast<const arrow::LargeStringArray&>(values).GetString(row));
    case arrow::Type::INT8: return std::optional<std::string>(std::to_string(static_cast<const arrow::Int8Array&>(values).Value(row)));
    case arrow::Type::INT16: return std::optional<std::string>(std::to_string(static_cast<const arrow::Int16Array&>(values).Value(row)));
    case arrow::Type::INT32: return std::optional<std::string>(std::to_string(static_cast<const arrow::Int32Array&>(values).Value(row)));
    case arrow::Type::INT64: return std::optional<std::string>(std::to_string(static_cast<const arrow::Int64Array&>(values).Value(row)));
    case arrow::Type::BOOL:
      return std::optional<std::string>(static_cast<const arrow::BooleanArray&>(values).Value(row) ? "true" : "false");
    case arrow::Type::DATE32:
      return std::optional<std::string>(std::to_string(static_cast<const arrow::Date32Array&>(values).Value(row)));
    case arrow::Type::TIMESTAMP: {
      const auto& ts = static_cast<const arrow::TimestampArray&>(values);
      const auto unit = static_cast<const arrow::TimestampType&>(*values.type()).unit();
      int64_t v = ts.Value(row);
      if (unit == arrow::TimeUnit::SECOND) v *= 1000000;
      if (unit == arrow::TimeUnit::MILLI) v *= 1000;
      if (unit == arrow::TimeUnit::NANO) v /= 1000;
      return std::optional<std::string>(std::to_string(v));
    }
    default:  // excluded by HasSecondaryKeyText
      return UnsupportedFeature("a secondary index lookup by a value of type " + values.type()->ToString());
  }
}

namespace {
std::vector<std::string> PathSegments(const std::string& path) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t dot = path.find('.', start);
    out.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return out;
    start = dot + 1;
  }
}
}  // namespace

std::shared_ptr<arrow::Field> IndexedField(const arrow::Schema& schema, const std::string& path) {
  const auto segments = PathSegments(path);
  std::shared_ptr<arrow::Field> field = schema.GetFieldByName(segments[0]);
  for (size_t i = 1; field && i < segments.size(); ++i) {
    if (field->type()->id() != arrow::Type::STRUCT) return nullptr;
    field = static_cast<const arrow::StructType&>(*field->type()).GetFieldByName(segments[i]);
  }
  return field;
}

Result<std::shared_ptr<arrow::Array>> IndexedValues(const arrow::Table& rows, const std::string& path) {
  const auto segments = PathSegments(path);
  auto column = rows.GetColumnByName(segments[0]);
  if (!column) return Status::Invalid("the rows hold no column '", segments[0], "' for the index field '", path, "'");
  std::shared_ptr<arrow::Array> values;
  ARROW_ASSIGN_OR_RAISE(values, CombineChunks(*column));
  for (size_t i = 1; i < segments.size(); ++i) {
    auto parent = std::dynamic_pointer_cast<arrow::StructArray>(values);
    const int index = parent ? parent->struct_type()->GetFieldIndex(segments[i]) : -1;
    if (index < 0) return Status::Invalid("the index field '", path, "' is not in the rows' ", values->type()->ToString());
    ARROW_ASSIGN_OR_RAISE(values, parent->GetFlattenedField(index));  // null where the struct is
  }
  return values;
}

Result<std::shared_ptr<arrow::Table>> LookupSecondary(TableContext& ctx, const std::string& index,
                                                      const std::shared_ptr<arrow::RecordBatchReader>& input) {
  std::vector<std::string> built = ctx.hoodie ? ctx.hoodie->metadata_partitions : std::vector<std::string>();
  std::vector<std::string> secondary;
  for (const auto& p : built) {
    if (p.rfind("secondary_index_", 0) == 0) secondary.push_back(p);
  }
  if (std::find(secondary.begin(), secondary.end(), index) == secondary.end()) {
    std::string names;
    for (const auto& s : secondary) names += (names.empty() ? "" : ", ") + s;
    return Status::Invalid("table ", ctx.uri, " has no built secondary index '", index, "' (it has: ",
                           names.empty() ? "none" : names, ")");
  }
  ARROW_ASSIGN_OR_RAISE(auto defs,
                        LoadIndexDefinitions(*ctx.storage, IndexDefinitionsPath(ctx.hoodie ? &*ctx.hoodie : nullptr)));
  auto def = defs.find(index);
  if (def == defs.end() || def->second.type != "secondary_index") {
    return CorruptMetadata("the secondary index '" + index + "' of table " + ctx.uri +
                           " has no definition in its index definitions");
  }
  ARROW_ASSIGN_OR_RAISE(auto table, ReadValidated(input, "the lookup values"));
  if (table->num_columns() < 1) return Status::Invalid("a secondary index lookup needs a column of values");
  std::shared_ptr<arrow::Array> column;
  ARROW_ASSIGN_OR_RAISE(column, CombineChunks(*table->column(0)));
  // The values as the indexed column's type, so each renders as its stored text.
  if (def->second.source_fields.size() == 1 && ctx.full_schema) {
    auto field = IndexedField(*ctx.full_schema, def->second.source_fields[0]);
    if (field && !field->type()->Equals(column->type()) && column->type_id() != arrow::Type::NA) {
      auto cast = CastValues(column, field->type());
      if (!cast.ok()) {
        return Status::Invalid("the lookup values (", column->type()->ToString(), ") cannot be read as ",
                               field->type()->ToString(), ", the type of the indexed column '", field->name(),
                               "': ", cast.status().message());
      }
      column = *cast;
    } else if (field && column->type_id() == arrow::Type::NA) {
      ARROW_ASSIGN_OR_RAISE(column, arrow::MakeArrayOfNull(field->type(), column->length()));
    }
  }
  const arrow::Array& values = *column;
  std::vector<std::optional<std::string>> wanted;
  wanted.reserve(static_cast<size_t>(values.length()));
  for (int64_t i = 0; i < values.length(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto text, SecondaryKeyText(values, i));
    wanted.push_back(std::move(text));
  }
  ARROW_ASSIGN_OR_RAISE(auto timeline, ctx.LoadTimeline());
  ARROW_ASSIGN_OR_RAISE(auto found, ReadMetadataSecondaryIndex(ctx.storage, *ctx.engine, index, ValidDataInstants(timeline),
                                                               &wanted, def->second.HashesBySecondaryKey()));
  arrow::StringBuilder secondary_out, record_out;
  std::set<std::optional<std::string>> reported;
  for (const auto& value : wanted) {
    if (!reported.insert(value).second) continue;  // a value asked twice is answered once
    auto it = found.find(value);
    if (it == found.end()) continue;
    for (const auto& record_key : it->second) {
      ARROW_RETURN_NOT_OK(value ? secondary_out.Append(*value) : secondary_out.AppendNull());
      ARROW_RETURN_NOT_OK(record_out.Append(record_key));
    }
  }
  std::shared_ptr<arrow::Array> secondary_col, record_col;
  ARROW_RETURN_NOT_OK(secondary_out.Finish(&secondary_col));
  ARROW_RETURN_NOT_OK(record_out.Finish(&record_col));
  auto schema = arrow::schema({arrow::field("secondary_key", arrow::utf8()), arrow::field("record_key", arrow::utf8(), false)},
                              arrow::key_value_metadata({"lookup.index"}, {index}));
  return arrow::Table::Make(schema, {secondary_col, record_col});
}

}  // namespace lakeshore
