#include "format/avro_schema.h"

#include <map>

#include <nlohmann/json.hpp>

namespace lakeshore::format {
namespace {

using nlohmann::json;

constexpr int kMaxDepth = 64;

// nlohmann's value() throws when a key holds another type: these never throw.
int IntOr(const json& t, const char* key, int fallback) {
  auto it = t.find(key);
  if (it == t.end() || !it->is_number_integer()) return fallback;
  const int64_t v = it->get<int64_t>();
  return v < -1000000 || v > 1000000 ? fallback : static_cast<int>(v);
}
std::string StringOr(const json& t, const char* key) {
  if (!t.is_object()) return {};
  auto it = t.find(key);
  return it != t.end() && it->is_string() ? it->get<std::string>() : std::string();
}

struct Converter {
  const std::string& source;
  /// Named types (records, enums, fixed) seen so far, by full and short name.
  std::map<std::string, json> named;

  Status Bad(const std::string& what) const {
    return CorruptMetadata("Avro schema of " + source + ": " + what);
  }

  Result<std::shared_ptr<arrow::DataType>> Decimal(const json& t) const {
    const int precision = IntOr(t, "precision", 0);
    const int scale = IntOr(t, "scale", 0);
    if (precision <= 0 || scale < 0 || scale > precision) return Bad("a decimal has precision " + std::to_string(precision) + " and scale " + std::to_string(scale));
    if (precision <= 38) return arrow::Decimal128Type::Make(precision, scale);
    return arrow::Decimal256Type::Make(precision, scale);
  }

  Result<std::shared_ptr<arrow::DataType>> Primitive(const std::string& name, const json& t) {
    const std::string logical = StringOr(t, "logicalType");
    if (name == "null") return arrow::null();
    if (name == "boolean") return arrow::boolean();
    if (name == "int") {
      if (logical == "date") return arrow::date32();
      if (logical == "time-millis") return arrow::time32(arrow::TimeUnit::MILLI);
      return arrow::int32();
    }
    if (name == "long") {
      if (logical == "timestamp-millis") return arrow::timestamp(arrow::TimeUnit::MILLI, "UTC");
      if (logical == "timestamp-micros") return arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
      if (logical == "local-timestamp-millis") return arrow::timestamp(arrow::TimeUnit::MILLI);
      if (logical == "local-timestamp-micros") return arrow::timestamp(arrow::TimeUnit::MICRO);
      if (logical == "time-micros") return arrow::time64(arrow::TimeUnit::MICRO);
      return arrow::int64();
    }
    if (name == "float") return arrow::float32();
    if (name == "double") return arrow::float64();
    if (name == "string") return arrow::utf8();
    if (name == "bytes") {
      if (logical == "decimal") return Decimal(t);
      return arrow::binary();
    }
    auto it = named.find(name);
    if (it != named.end()) return Type(it->second, 0);
    return Bad("unknown type '" + name + "'");
  }

  Result<std::shared_ptr<arrow::Field>> FieldOf(const std::string& name, const json& t, int depth) {
    if (t.is_array()) {  // a union
      std::vector<const json*> branches;
      bool nullable = false;
      for (const auto& b : t) {
        if (b.is_string() && b.get<std::string>() == "null") {
          nullable = true;
        } else {
          branches.push_back(&b);
        }
      }
      if (branches.size() != 1) {
        return UnsupportedFeature("Avro schema of " + source + ": field '" + name +
                                  "' is a union of several types, which is not supported");
      }
      ARROW_ASSIGN_OR_RAISE(auto type, Type(*branches[0], depth + 1));
      return arrow::field(name, type, nullable);
    }
    ARROW_ASSIGN_OR_RAISE(auto type, Type(t, depth + 1));
    return arrow::field(name, type, /*nullable=*/false);
  }

  void Remember(const json& t) {
    if (!t.contains("name") || !t["name"].is_string()) return;
    const std::string name = t["name"].get<std::string>();
    named[name] = t;
    if (t.contains("namespace") && t["namespace"].is_string()) {
      named[t["namespace"].get<std::string>() + "." + name] = t;
    }
  }

  Result<std::shared_ptr<arrow::DataType>> Type(const json& t, int depth) {
    if (depth > kMaxDepth) return Bad("types nest deeper than " + std::to_string(kMaxDepth));
    if (t.is_string()) return Primitive(t.get<std::string>(), t);
    if (t.is_array()) {
      ARROW_ASSIGN_OR_RAISE(auto field, FieldOf("item", t, depth));
      return field->type();
    }
    if (!t.is_object() || !t.contains("type")) return Bad("a type is neither a name, a union nor an object");
    const json& kind = t["type"];
    if (!kind.is_string()) return Type(kind, depth + 1);
    const std::string k = kind.get<std::string>();
    if (k == "record" || k == "error") {
      Remember(t);
      if (!t.contains("fields") || !t["fields"].is_array()) return Bad("a record has no field list");
      std::vector<std::shared_ptr<arrow::Field>> fields;
      for (const auto& f : t["fields"]) {
        if (!f.is_object() || !f.contains("name") || !f["name"].is_string() || !f.contains("type")) {
          return Bad("a record field has no name or type");
        }
        ARROW_ASSIGN_OR_RAISE(auto field, FieldOf(f["name"].get<std::string>(), f["type"], depth));
        fields.push_back(std::move(field));
      }
      return arrow::struct_(fields);
    }
    if (k == "enum") {
      Remember(t);
      return arrow::utf8();
    }
    if (k == "fixed") {
      Remember(t);
      if (StringOr(t, "logicalType") == "decimal") return Decimal(t);
      const int size = IntOr(t, "size", -1);
      if (size < 0) return Bad("a fixed type has no size");
      return arrow::fixed_size_binary(size);
    }
    if (k == "array") {
      if (!t.contains("items")) return Bad("an array has no items");
      ARROW_ASSIGN_OR_RAISE(auto item, FieldOf("element", t["items"], depth));
      return arrow::list(item);
    }
    if (k == "map") {
      if (!t.contains("values")) return Bad("a map has no values");
      ARROW_ASSIGN_OR_RAISE(auto value, FieldOf("value", t["values"], depth));
      return arrow::map(arrow::utf8(), value);
    }
    return Primitive(k, t);
  }
};

}  // namespace

Result<std::shared_ptr<arrow::Schema>> AvroSchemaToArrow(std::string_view avro_json, const std::string& source) {
  json root = json::parse(avro_json.begin(), avro_json.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return CorruptMetadata("Avro schema of " + source + " is not valid JSON");
  Converter converter{source, {}};
  if (!root.is_object() || StringOr(root, "type") != "record") {
    return CorruptMetadata("Avro schema of " + source + " is not a record schema");
  }
  ARROW_ASSIGN_OR_RAISE(auto type, converter.Type(root, 0));
  return arrow::schema(type->fields());
}

}  // namespace lakeshore::format
