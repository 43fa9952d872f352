#include "format/avro_schema.h"

#include <map>

#include <nlohmann/json.hpp>

namespace lakeshore::format {

std::string AvroSafeName(const std::string& name) {
  std::string out = name.empty() ? "table" : name;
  for (char& c : out) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) c = '_';
  }
  if (out[0] >= '0' && out[0] <= '9') out = "_" + out;
  return out;
}
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

namespace lakeshore::format {
namespace {

using nlohmann::json;

std::shared_ptr<arrow::DataType> NormalizeType(const std::shared_ptr<arrow::DataType>& type);

std::shared_ptr<arrow::Field> NormalizeField(const std::shared_ptr<arrow::Field>& f, const std::string& name) {
  return arrow::field(name, NormalizeType(f->type()), f->nullable());
}

std::shared_ptr<arrow::DataType> NormalizeType(const std::shared_ptr<arrow::DataType>& type) {
  switch (type->id()) {
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::UINT8:
    case arrow::Type::UINT16:
      return arrow::int32();
    case arrow::Type::UINT32:
      return arrow::int64();
    case arrow::Type::LARGE_STRING:
    case arrow::Type::STRING_VIEW:
      return arrow::utf8();
    case arrow::Type::LARGE_BINARY:
    case arrow::Type::BINARY_VIEW:
      return arrow::binary();
    case arrow::Type::TIMESTAMP: {
      const auto& ts = static_cast<const arrow::TimestampType&>(*type);
      const auto unit = ts.unit() == arrow::TimeUnit::NANO || ts.unit() == arrow::TimeUnit::MICRO
                            ? arrow::TimeUnit::MICRO
                            : arrow::TimeUnit::MILLI;
      // Every timestamp is an instant in UTC, as Spark's Hudi writer stores it: the Avro
      // local-timestamp types are not read by every Hudi reader (hudi-rs panics on them).
      return arrow::timestamp(unit, "UTC");
    }
    case arrow::Type::TIME32:
      return arrow::time32(arrow::TimeUnit::MILLI);
    case arrow::Type::TIME64:
      return arrow::time64(arrow::TimeUnit::MICRO);
    case arrow::Type::DICTIONARY:
      return NormalizeType(static_cast<const arrow::DictionaryType&>(*type).value_type());
    case arrow::Type::LIST:
    case arrow::Type::LARGE_LIST:
    case arrow::Type::LIST_VIEW:
    case arrow::Type::LARGE_LIST_VIEW:
    case arrow::Type::FIXED_SIZE_LIST: {
      const auto& item = type->field(0);
      return arrow::list(NormalizeField(item, "element"));
    }
    case arrow::Type::MAP: {
      const auto& map = static_cast<const arrow::MapType&>(*type);
      return arrow::map(NormalizeType(map.key_type()), NormalizeField(map.item_field(), "value"));
    }
    case arrow::Type::STRUCT: {
      std::vector<std::shared_ptr<arrow::Field>> fields;
      for (const auto& f : type->fields()) fields.push_back(NormalizeField(f, f->name()));
      return arrow::struct_(fields);
    }
    default:
      return type;
  }
}

bool IsAvroName(const std::string& name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

/// The fewest bytes a two's-complement unscaled value of `precision` digits needs (Spark's
/// minBytesForPrecision).
int MinBytesForPrecision(int precision) {
  int bytes = 1;
  while (true) {
    // The largest value of `bytes` bytes is 2^(8*bytes-1) - 1; compare digits.
    const double max_digits = (8.0 * bytes - 1) * 0.30102999566398120;  // log10(2)
    if (max_digits >= precision) return bytes;
    ++bytes;
  }
}

struct AvroWriter {
  Status Unsupported(const std::string& path, const std::string& what) const {
    return UnsupportedFeature("column '" + path + "' " + what + ", which a Hudi table cannot store");
  }

  Result<json> Type(const std::shared_ptr<arrow::DataType>& type, const std::string& path, const std::string& name,
                    const std::string& ns) {
    switch (type->id()) {
      case arrow::Type::BOOL: return json("boolean");
      case arrow::Type::INT32: return json("int");
      case arrow::Type::INT64: return json("long");
      case arrow::Type::FLOAT: return json("float");
      case arrow::Type::DOUBLE: return json("double");
      case arrow::Type::STRING: return json("string");
      case arrow::Type::BINARY: return json("bytes");
      case arrow::Type::DATE32: return json{{"type", "int"}, {"logicalType", "date"}};
      case arrow::Type::TIME32: return json{{"type", "int"}, {"logicalType", "time-millis"}};
      case arrow::Type::TIME64: return json{{"type", "long"}, {"logicalType", "time-micros"}};
      case arrow::Type::TIMESTAMP: {
        const auto& ts = static_cast<const arrow::TimestampType&>(*type);
        const bool micros = ts.unit() == arrow::TimeUnit::MICRO;
        const std::string logical = std::string(ts.timezone().empty() ? "local-" : "") + "timestamp-" +
                                    (micros ? "micros" : "millis");
        return json{{"type", "long"}, {"logicalType", logical}};
      }
      case arrow::Type::FIXED_SIZE_BINARY:
        return json{{"type", "fixed"}, {"name", name}, {"namespace", ns},
                    {"size", static_cast<const arrow::FixedSizeBinaryType&>(*type).byte_width()}};
      case arrow::Type::DECIMAL128:
      case arrow::Type::DECIMAL256: {
        const auto& d = static_cast<const arrow::DecimalType&>(*type);
        // Spark's DecimalType stops at precision 38, and so do Hudi's readers (hudi-rs panics).
        if (d.precision() > 38) {
          return Unsupported(path, "is a decimal of precision " + std::to_string(d.precision()) + " (at most 38)");
        }
        // Avro's decimal scale is 0..precision: another is written, then refused by every reader.
        if (d.scale() < 0 || d.scale() > d.precision()) {
          return Unsupported(path, "is a decimal of scale " + std::to_string(d.scale()) + " (Avro's is 0 to its precision, " +
                                       std::to_string(d.precision()) + ")");
        }
        return json{{"type", "fixed"}, {"name", "fixed"}, {"namespace", ns + "." + name},
                    {"size", MinBytesForPrecision(d.precision())}, {"logicalType", "decimal"},
                    {"precision", d.precision()}, {"scale", d.scale()}};
      }
      case arrow::Type::LIST: {
        // Items (and map values) that are records are named after the field, as Spark does.
        const auto& item = type->field(0);
        ARROW_ASSIGN_OR_RAISE(json items, Type(item->type(), path + "[]", name, ns));
        return json{{"type", "array"}, {"items", Nullable(std::move(items), item->nullable())}};
      }
      case arrow::Type::MAP: {
        const auto& map = static_cast<const arrow::MapType&>(*type);
        if (map.key_type()->id() != arrow::Type::STRING) return Unsupported(path, "is a map whose keys are not strings");
        ARROW_ASSIGN_OR_RAISE(json values, Type(map.item_type(), path + "{}", name, ns));
        return json{{"type", "map"}, {"values", Nullable(std::move(values), map.item_field()->nullable())}};
      }
      case arrow::Type::STRUCT:
        // Parquet has no group without fields: every write would fail.
        if (type->num_fields() == 0) return Unsupported(path, "is a struct with no fields");
        return Record(type->fields(), path, name, ns, IsBlobType(*type));
      default:
        return Unsupported(path, "has type " + type->ToString());
    }
  }

  Result<json> Record(const arrow::FieldVector& fields, const std::string& path, const std::string& name,
                      const std::string& ns, bool blob) {
    json out = {{"type", "record"}, {"name", name}, {"namespace", ns}};
    if (blob) out["logicalType"] = "blob";
    json list = json::array();
    const std::string inner_ns = ns + "." + name;
    for (const auto& f : fields) {
      const std::string field_path = path.empty() ? f->name() : path + "." + f->name();
      if (blob && f->name() == "type") {
        json symbols = json::array({"INLINE", "OUT_OF_LINE"});
        list.push_back({{"name", "type"},
                        {"type", {{"type", "enum"}, {"name", "blob_storage_type"}, {"namespace", inner_ns}, {"symbols", symbols}}}});
        continue;
      }
      ARROW_ASSIGN_OR_RAISE(json field, Field(f, field_path, f->name(), inner_ns));
      list.push_back(std::move(field));
    }
    out["fields"] = std::move(list);
    return out;
  }

  static json Nullable(json type, bool nullable) {
    return nullable ? json::array({"null", std::move(type)}) : type;
  }

  Result<json> Field(const std::shared_ptr<arrow::Field>& f, const std::string& path, const std::string& name,
                     const std::string& ns) {
    if (!IsAvroName(name)) {
      return UnsupportedFeature("column '" + path + "': '" + name +
                                "' is not an Avro name ([A-Za-z_][A-Za-z0-9_]*), which Hudi's schemas require");
    }
    ARROW_ASSIGN_OR_RAISE(json type, Type(f->type(), path, name, ns));
    json out = {{"name", name}, {"type", Nullable(std::move(type), f->nullable())}};
    if (f->nullable()) out["default"] = nullptr;
    return out;
  }

  static bool IsBlobType(const arrow::DataType& type) { return type.Equals(*HudiBlobType()); }
};

}  // namespace

std::shared_ptr<arrow::DataType> HudiBlobType() {
  static const std::shared_ptr<arrow::DataType> type = arrow::struct_({
      arrow::field("type", arrow::utf8(), /*nullable=*/false),
      arrow::field("data", arrow::binary()),
      arrow::field("reference", arrow::struct_({arrow::field("external_path", arrow::utf8(), false),
                                                arrow::field("offset", arrow::int64()),
                                                arrow::field("length", arrow::int64()),
                                                arrow::field("managed", arrow::boolean(), false)})),
  });
  return type;
}

std::shared_ptr<arrow::Schema> NormalizeForHudi(const arrow::Schema& schema) {
  std::vector<std::shared_ptr<arrow::Field>> fields;
  for (const auto& f : schema.fields()) fields.push_back(NormalizeField(f, f->name()));
  return arrow::schema(fields, schema.metadata());
}

Result<std::string> ArrowSchemaToAvro(const arrow::Schema& schema, const std::string& record_name,
                                      const std::string& name_space) {
  if (!IsAvroName(record_name)) {
    return UnsupportedFeature("'" + record_name + "' is not an Avro name ([A-Za-z_][A-Za-z0-9_]*)");
  }
  AvroWriter writer;
  ARROW_ASSIGN_OR_RAISE(json record, writer.Record(schema.fields(), "", record_name, name_space, /*blob=*/false));
  return record.dump();
}

Result<std::string> WithHudiMetaFields(std::string_view avro_json) {
  json root = json::parse(avro_json.begin(), avro_json.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object() || !root.contains("fields") || !root["fields"].is_array()) {
    return CorruptMetadata("Avro schema is not a record schema: " + std::string(avro_json.substr(0, 80)));
  }
  json fields = json::array();
  for (const char* name : {"_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key",
                           "_hoodie_partition_path", "_hoodie_file_name"}) {
    for (const auto& f : root["fields"]) {
      if (f.is_object() && f.value("name", json()) == name) return std::string(avro_json);
    }
    fields.push_back({{"name", name}, {"type", json::array({"null", "string"})}, {"doc", ""}, {"default", nullptr}});
  }
  for (const auto& f : root["fields"]) fields.push_back(f);
  root["fields"] = std::move(fields);
  return root.dump();
}

}  // namespace lakeshore::format
