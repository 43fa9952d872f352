#include "format/json_arrow.h"

#include <arrow/builder.h>
#include <arrow/util/decimal.h>

namespace lakeshore::format {
namespace {

using nlohmann::json;

std::string_view BytesOf(const json& v) {
  if (v.is_binary()) {
    const auto& bin = v.get_binary();
    return std::string_view(reinterpret_cast<const char*>(bin.data()), bin.size());
  }
  return v.get_ref<const std::string&>();
}

Status Append(const json& v, arrow::ArrayBuilder* builder, const std::string& path);

Status Mismatch(const std::string& path, const arrow::DataType& type) {
  return Status::Invalid("field '", path, "' does not hold a value of type ", type.ToString());
}

template <typename Builder, typename T>
Status AppendInteger(const json& v, arrow::ArrayBuilder* builder, const std::string& path) {
  if (!v.is_number_integer()) return Mismatch(path, *builder->type());
  return static_cast<Builder*>(builder)->Append(static_cast<T>(v.get<int64_t>()));
}

Status AppendStruct(const json& v, arrow::ArrayBuilder* builder, const std::string& path) {
  if (!v.is_object()) return Mismatch(path, *builder->type());
  auto* b = static_cast<arrow::StructBuilder*>(builder);
  const auto& type = static_cast<const arrow::StructType&>(*builder->type());
  ARROW_RETURN_NOT_OK(b->Append());
  static const json kNull = nullptr;
  for (int i = 0; i < type.num_fields(); ++i) {
    const std::string& name = type.field(i)->name();
    auto it = v.find(name);
    ARROW_RETURN_NOT_OK(Append(it == v.end() ? kNull : *it, b->field_builder(i), path + "." + name));
  }
  return Status::OK();
}

Status Append(const json& v, arrow::ArrayBuilder* builder, const std::string& path) {
  if (v.is_null()) return builder->AppendNull();
  const arrow::DataType& type = *builder->type();
  switch (type.id()) {
    case arrow::Type::BOOL:
      if (!v.is_boolean()) return Mismatch(path, type);
      return static_cast<arrow::BooleanBuilder*>(builder)->Append(v.get<bool>());
    case arrow::Type::INT8: return AppendInteger<arrow::Int8Builder, int8_t>(v, builder, path);
    case arrow::Type::INT16: return AppendInteger<arrow::Int16Builder, int16_t>(v, builder, path);
    case arrow::Type::INT32: return AppendInteger<arrow::Int32Builder, int32_t>(v, builder, path);
    case arrow::Type::INT64: return AppendInteger<arrow::Int64Builder, int64_t>(v, builder, path);
    case arrow::Type::DATE32: return AppendInteger<arrow::Date32Builder, int32_t>(v, builder, path);
    case arrow::Type::TIME32: return AppendInteger<arrow::Time32Builder, int32_t>(v, builder, path);
    case arrow::Type::TIME64: return AppendInteger<arrow::Time64Builder, int64_t>(v, builder, path);
    case arrow::Type::TIMESTAMP: return AppendInteger<arrow::TimestampBuilder, int64_t>(v, builder, path);
    case arrow::Type::FLOAT:
      if (!v.is_number()) return Mismatch(path, type);
      return static_cast<arrow::FloatBuilder*>(builder)->Append(v.get<float>());
    case arrow::Type::DOUBLE:
      if (!v.is_number()) return Mismatch(path, type);
      return static_cast<arrow::DoubleBuilder*>(builder)->Append(v.get<double>());
    case arrow::Type::STRING:
      if (!v.is_string()) return Mismatch(path, type);
      return static_cast<arrow::StringBuilder*>(builder)->Append(v.get_ref<const std::string&>());
    case arrow::Type::BINARY:
      if (!v.is_binary() && !v.is_string()) return Mismatch(path, type);
      return static_cast<arrow::BinaryBuilder*>(builder)->Append(BytesOf(v));
    case arrow::Type::FIXED_SIZE_BINARY: {
      if (!v.is_binary() && !v.is_string()) return Mismatch(path, type);
      const std::string_view bytes = BytesOf(v);
      if (static_cast<int>(bytes.size()) != static_cast<const arrow::FixedSizeBinaryType&>(type).byte_width()) {
        return Mismatch(path, type);
      }
      return static_cast<arrow::FixedSizeBinaryBuilder*>(builder)->Append(bytes);
    }
    case arrow::Type::DECIMAL128: {
      if (!v.is_binary() && !v.is_string()) return Mismatch(path, type);
      const std::string_view bytes = BytesOf(v);
      if (bytes.empty() || bytes.size() > 16) return Mismatch(path, type);
      ARROW_ASSIGN_OR_RAISE(auto value, arrow::Decimal128::FromBigEndian(
                                            reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int32_t>(bytes.size())));
      return static_cast<arrow::Decimal128Builder*>(builder)->Append(value);
    }
    case arrow::Type::DECIMAL256: {
      if (!v.is_binary() && !v.is_string()) return Mismatch(path, type);
      const std::string_view bytes = BytesOf(v);
      if (bytes.empty() || bytes.size() > 32) return Mismatch(path, type);
      ARROW_ASSIGN_OR_RAISE(auto value, arrow::Decimal256::FromBigEndian(
                                            reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int32_t>(bytes.size())));
      return static_cast<arrow::Decimal256Builder*>(builder)->Append(value);
    }
    case arrow::Type::STRUCT:
      return AppendStruct(v, builder, path);
    case arrow::Type::LIST: {
      if (!v.is_array()) return Mismatch(path, type);
      auto* b = static_cast<arrow::ListBuilder*>(builder);
      ARROW_RETURN_NOT_OK(b->Append());
      for (size_t i = 0; i < v.size(); ++i) {
        ARROW_RETURN_NOT_OK(Append(v[i], b->value_builder(), path + "[" + std::to_string(i) + "]"));
      }
      return Status::OK();
    }
    case arrow::Type::MAP: {
      if (!v.is_object()) return Mismatch(path, type);
      auto* b = static_cast<arrow::MapBuilder*>(builder);
      ARROW_RETURN_NOT_OK(b->Append());
      for (const auto& [key, item] : v.items()) {
        ARROW_RETURN_NOT_OK(static_cast<arrow::StringBuilder*>(b->key_builder())->Append(key));
        ARROW_RETURN_NOT_OK(Append(item, b->item_builder(), path + "[" + key + "]"));
      }
      return Status::OK();
    }
    default:
      return Status::NotImplemented("field '", path, "' has type ", type.ToString(), ", which Avro records do not fill");
  }
}

}  // namespace

Result<std::shared_ptr<arrow::RecordBatch>> JsonRecordsToArrow(const std::vector<json>& records,
                                                               const std::shared_ptr<arrow::Schema>& schema,
                                                               const std::string& source) {
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> builders;
  for (const auto& field : schema->fields()) {
    if (field->type()->id() == arrow::Type::MAP &&
        static_cast<const arrow::MapType&>(*field->type()).key_type()->id() != arrow::Type::STRING) {
      return Status::NotImplemented(source, ": map field '", field->name(), "' has non-string keys");
    }
    ARROW_ASSIGN_OR_RAISE(auto builder, arrow::MakeBuilder(field->type()));
    builders.push_back(std::move(builder));
  }
  static const json kNull = nullptr;
  for (size_t r = 0; r < records.size(); ++r) {
    const json& record = records[r];
    if (!record.is_object()) return CorruptMetadata(source + ": record " + std::to_string(r) + " is not a record");
    for (int i = 0; i < schema->num_fields(); ++i) {
      const std::string& name = schema->field(i)->name();
      auto it = record.find(name);
      Status st = Append(it == record.end() ? kNull : *it, builders[static_cast<size_t>(i)].get(), name);
      if (!st.ok()) return CorruptMetadata(source + ": record " + std::to_string(r) + ": " + st.message());
    }
  }
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (auto& builder : builders) {
    std::shared_ptr<arrow::Array> column;
    ARROW_RETURN_NOT_OK(builder->Finish(&column));
    columns.push_back(std::move(column));
  }
  return arrow::RecordBatch::Make(schema, static_cast<int64_t>(records.size()), std::move(columns));
}

}  // namespace lakeshore::format
