#include "table/schema_json.h"

#include <arrow/type.h>

namespace lakeshore {
namespace {
using nlohmann::json;

Result<json> FieldToJson(const arrow::Field& field);

const char* UnitName(arrow::TimeUnit::type unit) {
  switch (unit) {
    case arrow::TimeUnit::SECOND: return "s";
    case arrow::TimeUnit::MILLI: return "ms";
    case arrow::TimeUnit::MICRO: return "us";
    case arrow::TimeUnit::NANO: return "ns";
  }
  return "?";
}

Result<json> TypeToJson(const arrow::DataType& type) {
  using arrow::Type;
  switch (type.id()) {
    case Type::BOOL: return json("bool");
    case Type::INT8: return json("int8");
    case Type::INT16: return json("int16");
    case Type::INT32: return json("int32");
    case Type::INT64: return json("int64");
    case Type::UINT8: return json("uint8");
    case Type::UINT16: return json("uint16");
    case Type::UINT32: return json("uint32");
    case Type::UINT64: return json("uint64");
    case Type::HALF_FLOAT: return json("float16");
    case Type::FLOAT: return json("float32");
    case Type::DOUBLE: return json("float64");
    case Type::STRING: return json("string");
    case Type::LARGE_STRING: return json("large_string");
    case Type::BINARY: return json("binary");
    case Type::LARGE_BINARY: return json("large_binary");
    case Type::DATE32: return json("date32");
    case Type::DATE64: return json("date64");
    case Type::TIMESTAMP: {
      const auto& ts = static_cast<const arrow::TimestampType&>(type);
      json j = {{"name", "timestamp"}, {"unit", UnitName(ts.unit())}};
      if (!ts.timezone().empty()) j["tz"] = ts.timezone();
      return j;
    }
    case Type::DECIMAL128: {
      const auto& d = static_cast<const arrow::Decimal128Type&>(type);
      return json{{"name", "decimal128"}, {"precision", d.precision()}, {"scale", d.scale()}};
    }
    case Type::STRUCT: {
      json fields = json::array();
      for (const auto& f : type.fields()) {
        ARROW_ASSIGN_OR_RAISE(auto jf, FieldToJson(*f));
        fields.push_back(std::move(jf));
      }
      return json{{"name", "struct"}, {"fields", std::move(fields)}};
    }
    case Type::LIST:
    case Type::LARGE_LIST: {
      ARROW_ASSIGN_OR_RAISE(auto item, FieldToJson(*type.field(0)));
      return json{{"name", type.id() == Type::LIST ? "list" : "large_list"}, {"item", item}};
    }
    default:
      return Status::NotImplemented("column type ", type.ToString(),
                                    " is not supported in a Lakeshore table schema");
  }
}

Result<json> FieldToJson(const arrow::Field& field) {
  ARROW_ASSIGN_OR_RAISE(auto type, TypeToJson(*field.type()));
  return json{{"name", field.name()}, {"type", std::move(type)}, {"nullable", field.nullable()}};
}

Result<std::shared_ptr<arrow::Field>> FieldFromJson(const json& j);

Result<arrow::TimeUnit::type> ParseUnit(const std::string& unit) {
  if (unit == "s") return arrow::TimeUnit::SECOND;
  if (unit == "ms") return arrow::TimeUnit::MILLI;
  if (unit == "us") return arrow::TimeUnit::MICRO;
  if (unit == "ns") return arrow::TimeUnit::NANO;
  return Status::Invalid("unknown time unit '", unit, "'");
}

Result<std::shared_ptr<arrow::DataType>> TypeFromJson(const json& j) {
  if (j.is_string()) {
    static const std::vector<std::pair<std::string, std::shared_ptr<arrow::DataType>>> simple = {
        {"bool", arrow::boolean()},     {"int8", arrow::int8()},       {"int16", arrow::int16()},
        {"int32", arrow::int32()},      {"int64", arrow::int64()},     {"uint8", arrow::uint8()},
        {"uint16", arrow::uint16()},    {"uint32", arrow::uint32()},   {"uint64", arrow::uint64()},
        {"float16", arrow::float16()},  {"float32", arrow::float32()}, {"float64", arrow::float64()},
        {"string", arrow::utf8()},      {"large_string", arrow::large_utf8()},
        {"binary", arrow::binary()},    {"large_binary", arrow::large_binary()},
        {"date32", arrow::date32()},    {"date64", arrow::date64()}};
    auto name = j.get<std::string>();
    for (const auto& [n, t] : simple)
      if (n == name) return t;
    return Status::Invalid("unknown type '", name, "'");
  }
  if (!j.is_object() || !j.contains("name")) return Status::Invalid("type must be a string or an object with a name");
  auto name = j.at("name").get<std::string>();
  if (name == "timestamp") {
    ARROW_ASSIGN_OR_RAISE(auto unit, ParseUnit(j.at("unit").get<std::string>()));
    return arrow::timestamp(unit, j.value("tz", std::string()));
  }
  if (name == "decimal128") {
    // Make validates precision and scale; arrow::decimal128() would abort on bad ones.
    return arrow::Decimal128Type::Make(j.at("precision").get<int32_t>(), j.at("scale").get<int32_t>());
  }
  if (name == "struct") {
    std::vector<std::shared_ptr<arrow::Field>> fields;
    for (const auto& jf : j.at("fields")) {
      ARROW_ASSIGN_OR_RAISE(auto f, FieldFromJson(jf));
      fields.push_back(std::move(f));
    }
    return arrow::struct_(std::move(fields));
  }
  if (name == "list" || name == "large_list") {
    ARROW_ASSIGN_OR_RAISE(auto item, FieldFromJson(j.at("item")));
    return name == "list" ? arrow::list(item) : arrow::large_list(item);
  }
  return Status::Invalid("unknown type '", name, "'");
}

Result<std::shared_ptr<arrow::Field>> FieldFromJson(const json& j) {
  if (!j.is_object() || !j.contains("name") || !j.contains("type")) {
    return Status::Invalid("a field needs 'name' and 'type': ", j.dump());
  }
  auto name = j.at("name").get<std::string>();
  auto type = TypeFromJson(j.at("type"));
  if (!type.ok()) return Status::Invalid("field '", name, "': ", type.status().message());
  return arrow::field(name, *type, j.value("nullable", true));
}
}  // namespace

Result<nlohmann::json> SchemaToJson(const arrow::Schema& schema) {
  json out = json::array();
  for (const auto& f : schema.fields()) {
    ARROW_ASSIGN_OR_RAISE(auto jf, FieldToJson(*f));
    out.push_back(std::move(jf));
  }
  return out;
}

Result<std::shared_ptr<arrow::Schema>> SchemaFromJson(const nlohmann::json& j) {
  if (!j.is_array()) return Status::Invalid("schema must be an array of fields");
  std::vector<std::shared_ptr<arrow::Field>> fields;
  try {
    for (const auto& jf : j) {
      ARROW_ASSIGN_OR_RAISE(auto f, FieldFromJson(jf));
      fields.push_back(std::move(f));
    }
  } catch (const json::exception& e) {
    return Status::Invalid("schema: ", e.what());
  }
  return arrow::schema(std::move(fields));
}

}  // namespace lakeshore
