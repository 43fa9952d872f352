#include "format/metadata_record.h"

#include <charconv>
#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include <arrow/compute/api.h>
#include <arrow/util/decimal.h>
#include <nlohmann/json.hpp>

#include "common/arrow_cast.h"
#include "format/hoodie_avro_schemas.h"
#include "format/metadata_keys.h"

namespace lakeshore::format {
namespace {

/// Avro's binary encoding, appended to a string.
class AvroWriter {
 public:
  explicit AvroWriter(std::string* out) : out_(out) {}
  void Long(int64_t v) {
    uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
    while (z >= 0x80) {
      out_->push_back(static_cast<char>((z & 0x7f) | 0x80));
      z >>= 7;
    }
    out_->push_back(static_cast<char>(z));
  }
  void String(std::string_view s) {
    Long(static_cast<int64_t>(s.size()));
    out_->append(s);
  }
  void Boolean(bool b) { out_->push_back(b ? 1 : 0); }
  void Raw(std::string_view bytes) { out_->append(bytes); }
  /// The branch index of a union.
  void Branch(int64_t i) { Long(i); }

 private:
  std::string* out_;
};

/// The record's head: the five meta fields (null: the metadata table populates none), key, type.
void Head(AvroWriter& w, std::string_view key, MetadataRecordType type) {
  for (int i = 0; i < 5; ++i) w.Branch(0);
  w.String(key);
  w.Long(static_cast<int32_t>(type));
}

/// Parses "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx-<n>" into the UUID's halves and n.
bool ParseUuidFileId(std::string_view id, uint64_t* high, uint64_t* low, int32_t* index) {
  if (id.size() < 38 || id[36] != '-') return false;
  uint64_t halves[2] = {0, 0};
  int nibbles = 0;
  for (size_t i = 0; i < 36; ++i) {
    const char c = id[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
      continue;
    }
    int v;
    if (c >= '0' && c <= '9') v = c - '0';
    else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    else return false;  // Java's UUID.toString is lower case; anything else is kept as a string
    uint64_t& half = halves[nibbles / 16];
    half = (half << 4) | static_cast<uint64_t>(v);
    ++nibbles;
  }
  int64_t n = 0;
  const std::string_view tail = id.substr(37);
  if (tail.empty() || tail.size() > 9 || (tail.size() > 1 && tail[0] == '0')) return false;
  for (char c : tail) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + (c - '0');
  }
  *high = halves[0];
  *low = halves[1];
  *index = static_cast<int32_t>(n);
  return true;
}

/// Marks string and map types as Java's Avro compiler renders Hudi's generated classes' schemas
/// ("avro.java.string": "String"): readers that compare a base file's schema with a log block's
/// (hudi-rs) see the same types as in the files Hudi writes.
void AnnotateJavaStrings(nlohmann::json& type) {
  if (type.is_string()) {
    if (type == "string") type = {{"type", "string"}, {"avro.java.string", "String"}};
    return;
  }
  if (type.is_array()) {
    for (auto& branch : type) AnnotateJavaStrings(branch);
    return;
  }
  if (!type.is_object()) return;
  const std::string kind = type.value("type", "");
  if (kind == "string" || kind == "map") type["avro.java.string"] = "String";
  if (kind == "record" && type.contains("fields")) {
    for (auto& f : type["fields"]) AnnotateJavaStrings(f["type"]);
  } else if (kind == "map" && type.contains("values")) {
    AnnotateJavaStrings(type["values"]);
  } else if (kind == "array" && type.contains("items")) {
    AnnotateJavaStrings(type["items"]);
  } else if (type.contains("type") && !type["type"].is_string()) {
    AnnotateJavaStrings(type["type"]);
  }
}

}  // namespace

Result<std::string> MetadataRecordSchema() {
  static std::once_flag once;
  static Result<std::string> schema;
  std::call_once(once, [] {
    auto full = HoodieAvroSchema("HoodieMetadataRecord");
    if (!full.ok()) {
      schema = full.status();
      return;
    }
    nlohmann::json parsed = nlohmann::json::parse(*full, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded() || !parsed.contains("fields")) {
      schema = Status::Invalid("the embedded HoodieMetadataRecord schema does not parse");
      return;
    }
    // The fields Hudi 1.0 and 1.1 write; later additions (vector indexes) are left out.
    static const char* kFields[] = {"key", "type", "filesystemMetadata", "BloomFilterMetadata",
                                    "ColumnStatsMetadata", "recordIndexMetadata", "SecondaryIndexMetadata"};
    nlohmann::json fields = nlohmann::json::array();
    // Hudi's writers put the five meta fields first (nullable, never set in the metadata table);
    // a reader merging base and log records expects the same fields in both.
    for (const char* meta : {"_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key",
                             "_hoodie_partition_path", "_hoodie_file_name"}) {
      fields.push_back({{"name", meta}, {"type", {"null", "string"}}, {"doc", ""}, {"default", nullptr}});
    }
    for (const char* name : kFields) {
      bool found = false;
      for (const auto& f : parsed["fields"]) {
        if (f.value("name", "") == name) {
          fields.push_back(f);
          AnnotateJavaStrings(fields.back()["type"]);
          found = true;
        }
      }
      if (!found) {
        schema = Status::Invalid("the embedded HoodieMetadataRecord schema has no field ", name);
        return;
      }
    }
    parsed["fields"] = std::move(fields);
    schema = parsed.dump();
  });
  return schema;
}

namespace {
/// The field names of `record` (a record schema), or of the record branch of a union.
std::vector<std::string> FieldNames(const nlohmann::json& type) {
  const nlohmann::json* record = &type;
  if (type.is_array()) {
    record = nullptr;
    for (const auto& branch : type) {
      if (branch.is_object() && branch.value("type", "") == "record") record = &branch;
    }
    if (record == nullptr) return {};
  }
  std::vector<std::string> out;
  if (!record->is_object() || !record->contains("fields") || !(*record)["fields"].is_array()) return out;
  for (const auto& f : (*record)["fields"]) out.push_back(f.is_object() ? f.value("name", "") : "");
  return out;
}

const nlohmann::json* FieldType(const nlohmann::json& record, std::string_view name) {
  for (const auto& f : record["fields"]) {
    if (f.is_object() && f.value("name", "") == name && f.contains("type")) return &f["type"];
  }
  return nullptr;
}

/// IsCompatibleMetadataSchema's judgement, uncached.
bool JudgeMetadataSchema(std::string_view schema_json, bool column_stats) {
  auto ours_text = MetadataRecordSchema();
  if (!ours_text.ok()) return false;
  const nlohmann::json theirs = nlohmann::json::parse(schema_json, nullptr, /*allow_exceptions=*/false);
  const nlohmann::json ours = nlohmann::json::parse(*ours_text, nullptr, /*allow_exceptions=*/false);
  if (theirs.is_discarded() || !theirs.is_object() || FieldNames(theirs) != FieldNames(ours)) return false;
  for (const char* nested : {"recordIndexMetadata", "SecondaryIndexMetadata", "BloomFilterMetadata", "ColumnStatsMetadata"}) {
    if (!column_stats && std::string_view(nested) == "ColumnStatsMetadata") continue;
    const nlohmann::json* a = FieldType(theirs, nested);
    const nlohmann::json* b = FieldType(ours, nested);
    if (a == nullptr || b == nullptr || FieldNames(*a) != FieldNames(*b)) return false;
  }
  // The value wrappers of the column stats, branch by branch (their order is the encoding).
  auto wrapper_names = [](const nlohmann::json& schema) {
    std::vector<std::string> names;
    const nlohmann::json* stats = FieldType(schema, "ColumnStatsMetadata");
    if (stats == nullptr || !stats->is_array()) return names;
    for (const auto& branch : *stats) {
      if (!branch.is_object() || branch.value("type", "") != "record") continue;
      const nlohmann::json* min = FieldType(branch, "minValue");
      if (min == nullptr || !min->is_array()) return names;
      for (const auto& w : *min) {
        std::string name = w.is_string() ? w.get<std::string>() : w.is_object() ? w.value("name", "") : "";
        const size_t dot = name.rfind('.');
        names.push_back(dot == std::string::npos ? name : name.substr(dot + 1));
      }
    }
    return names;
  };
  if (column_stats && wrapper_names(theirs) != wrapper_names(ours)) return false;
  // The file info record inside the map.
  const nlohmann::json* fs = FieldType(theirs, "filesystemMetadata");
  if (fs == nullptr || !fs->is_array()) return false;
  for (const auto& branch : *fs) {
    if (branch.is_object() && branch.value("type", "") == "map" && branch.contains("values")) {
      return FieldNames(branch["values"]) == std::vector<std::string>{"size", "isDeleted"};
    }
  }
  return false;
}
}  // namespace

bool IsCompatibleMetadataSchema(std::string_view schema_json, bool column_stats) {
  // Asked for every metadata file and log block read, and a process meets few distinct
  // schemas: each text is judged once (parsing it and ours costs milliseconds).
  static std::mutex mu;
  static auto* judged = new std::unordered_map<std::string, bool>();
  std::string key(column_stats ? "1" : "0");
  key.append(schema_json);
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = judged->find(key);
    if (it != judged->end()) return it->second;
  }
  const bool compatible = JudgeMetadataSchema(schema_json, column_stats);
  std::lock_guard<std::mutex> lock(mu);
  if (judged->size() >= 256) judged->clear();  // bounded, whatever a process reads
  judged->emplace(std::move(key), compatible);
  return compatible;
}

std::string EncodeFilesRecord(std::string_view key, MetadataRecordType type,
                              const std::map<std::string, MetadataFileEntry>& files) {
  std::string out;
  AvroWriter w(&out);
  Head(w, key, type);
  w.Branch(1);  // filesystemMetadata: a map
  if (!files.empty()) {
    w.Long(static_cast<int64_t>(files.size()));
    for (const auto& [name, entry] : files) {
      w.String(name);
      w.Long(entry.size);
      w.Boolean(entry.deleted);
    }
  }
  w.Long(0);      // end of the map
  w.Branch(0);    // BloomFilterMetadata
  w.Branch(0);    // ColumnStatsMetadata
  w.Branch(0);    // recordIndexMetadata
  w.Branch(0);    // SecondaryIndexMetadata
  return out;
}

std::string RecordIndexValueTail(std::string_view partition, std::string_view file_id, int64_t instant_ms) {
  std::string out;
  out.reserve(partition.size() + file_id.size() + 32);
  AvroWriter w(&out);
  w.Branch(0);  // filesystemMetadata
  w.Branch(0);  // BloomFilterMetadata
  w.Branch(0);  // ColumnStatsMetadata
  w.Branch(1);  // recordIndexMetadata
  w.Branch(1);
  w.String(partition.empty() ? std::string_view(".") : partition);
  uint64_t high = 0, low = 0;
  int32_t index = 0;
  const bool uuid = ParseUuidFileId(file_id, &high, &low, &index);
  if (uuid) {
    w.Branch(1);
    w.Long(static_cast<int64_t>(high));
    w.Branch(1);
    w.Long(static_cast<int64_t>(low));
    w.Branch(1);
    w.Long(index);
    w.Branch(0);  // fileId
  } else {
    w.Branch(0);
    w.Branch(0);
    w.Branch(0);
    w.Branch(1);
    w.String(file_id);
  }
  w.Branch(1);
  w.Long(instant_ms);        // instantTime
  w.Long(uuid ? 0 : 1);      // fileIdEncoding
  w.Branch(0);               // position
  w.Branch(0);               // SecondaryIndexMetadata
  return out;
}

std::string EncodeRecordIndexRecordWithTail(std::string_view key, std::string_view tail) {
  std::string out;
  out.reserve(key.size() + tail.size() + 12);
  AvroWriter w(&out);
  Head(w, key, MetadataRecordType::kRecordIndex);
  out.append(tail);
  return out;
}

std::string EncodeRecordIndexRecord(std::string_view key, std::string_view partition, std::string_view file_id,
                                    int64_t instant_ms) {
  return EncodeRecordIndexRecordWithTail(key, RecordIndexValueTail(partition, file_id, instant_ms));
}

namespace {
/// Avro's binary encoding, read; every read fails softly (ok turns false).
struct AvroCursor {
  std::string_view bytes;
  size_t pos = 0;
  bool ok = true;
  __attribute__((always_inline)) int64_t Long() {
    // Union branches, lengths and small numbers take one byte: read inline.
    if (pos < bytes.size()) {
      const auto b = static_cast<uint8_t>(bytes[pos]);
      if ((b & 0x80) == 0) {
        ++pos;
        return static_cast<int64_t>(b >> 1) ^ -static_cast<int64_t>(b & 1);
      }
    }
    return LongOfBytes();
  }
  __attribute__((noinline)) int64_t LongOfBytes() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= bytes.size()) {
        ok = false;
        return 0;
      }
      const auto b = static_cast<uint8_t>(bytes[pos++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
    }
    ok = false;
    return 0;
  }
  __attribute__((always_inline)) std::string_view String() {
    const int64_t n = Long();
    if (!ok || n < 0 || static_cast<uint64_t>(n) > bytes.size() - pos) {
      ok = false;
      return {};
    }
    std::string_view s = bytes.substr(pos, static_cast<size_t>(n));
    pos += static_cast<size_t>(n);
    return s;
  }
  /// A ["null", T] union's branch: true for T.
  __attribute__((always_inline)) bool Present() {
    const int64_t b = Long();
    if (b != 0 && b != 1) ok = false;
    return b == 1;
  }
};
}  // namespace

std::optional<RecordIndexValue> DecodeRecordIndexValue(std::string_view avro) {
  AvroCursor c{avro};
  for (int i = 0; i < 5; ++i) {
    if (c.Present()) c.String();  // meta fields
  }
  c.String();  // key
  if (c.Long() != static_cast<int32_t>(MetadataRecordType::kRecordIndex)) return std::nullopt;
  // filesystemMetadata, BloomFilterMetadata, ColumnStatsMetadata: absent in a record index value.
  for (int i = 0; i < 3; ++i) {
    if (c.Present()) return std::nullopt;
  }
  if (!c.Present()) return std::nullopt;  // recordIndexMetadata
  RecordIndexValue v;
  if (c.Present()) v.partition = c.String();
  const bool has_high = c.Present();
  if (has_high) v.high = static_cast<uint64_t>(c.Long());
  const bool has_low = c.Present();
  if (has_low) v.low = static_cast<uint64_t>(c.Long());
  const bool has_index = c.Present();
  if (has_index) v.index = static_cast<int32_t>(c.Long());
  if (c.Present()) v.file_id = c.String();
  if (c.Present()) v.instant_ms = c.Long();
  const int64_t encoding = c.Long();
  if (c.Present()) c.Long();  // position
  if (c.Present()) c.Long();  // SecondaryIndexMetadata.isDeleted (a boolean: one byte)
  if (!c.ok || c.pos != avro.size()) return std::nullopt;
  if (encoding == 0) {
    if (!has_high || !has_low || !has_index) return std::nullopt;
    v.uuid_file_id = true;
  } else if (encoding != 1 || v.file_id.empty()) {
    return std::nullopt;
  }
  return v;
}

bool IsDeletionMarker(std::string_view avro) {
  AvroCursor c{avro};
  for (int i = 0; i < 5; ++i) {
    if (c.Present()) c.String();  // meta fields
  }
  c.String();  // key
  const int64_t type = c.Long();
  if (c.Present()) return false;  // filesystemMetadata: a files value
  if (type == static_cast<int32_t>(MetadataRecordType::kBloomFilter)) {
    if (!c.Present()) return false;
    c.String();  // type
    c.String();  // timestamp
    c.String();  // bloomFilter (bytes: the same length-prefixed encoding)
    const bool deleted = c.Long() != 0;  // isDeleted (a boolean: one byte)
    return c.ok && deleted;
  }
  if (type != static_cast<int32_t>(MetadataRecordType::kSecondaryIndex)) return false;
  for (int i = 0; i < 3; ++i) {
    if (c.Present()) return false;  // BloomFilterMetadata, ColumnStatsMetadata, recordIndexMetadata
  }
  if (!c.Present()) return false;  // SecondaryIndexMetadata
  const bool deleted = c.Long() != 0;
  return c.ok && deleted;
}

namespace {
/// Hudi's ValueType ordinals read and written here (org.apache.hudi.stats.ValueType).
enum ValueTypeOrdinal : int {
  kV1 = 0, kBoolean = 2, kInt = 3, kLong = 4, kFloat = 5, kDouble = 6, kString = 7, kDecimal = 10,
  kDate = 12, kTimestampMillis = 15, kTimestampMicros = 16, kTimestampNanos = 17,
  kLocalTimestampMillis = 18, kLocalTimestampMicros = 19, kLocalTimestampNanos = 20,
};

/// DecimalWrapper's value type: decimal(30, 15), as Hudi writes every decimal bound (upcast to
/// that scale).
constexpr int32_t kWrapperDecimalPrecision = 30;
constexpr int32_t kWrapperDecimalScale = 15;

/// `v` at `scale` as the wrapper's unscaled value (scale 15), when it is exact and fits 30
/// digits.
std::optional<arrow::Decimal128> ToWrapperDecimal(const arrow::Decimal128& v, int32_t scale) {
  if (scale > kWrapperDecimalScale) return std::nullopt;  // would lose digits
  auto rescaled = v.Rescale(scale, kWrapperDecimalScale);
  if (!rescaled.ok() || !rescaled->FitsInPrecision(kWrapperDecimalPrecision)) return std::nullopt;
  return *rescaled;
}

/// The bytes Avro's decimal encoding stores for `v`: big-endian two's complement, as short as
/// Java's BigInteger.toByteArray() makes it.
std::string DecimalBytes(const arrow::Decimal128& v) {
  const auto little = v.ToBytes();  // 16 bytes, little-endian
  std::string big(little.rbegin(), little.rend());
  size_t start = 0;
  while (start + 1 < big.size()) {
    const auto lead = static_cast<uint8_t>(big[start]);
    const auto next = static_cast<uint8_t>(big[start + 1]);
    if ((lead == 0x00 && (next & 0x80) == 0) || (lead == 0xff && (next & 0x80) != 0)) {
      ++start;
    } else {
      break;
    }
  }
  return big.substr(start);
}

/// The wrapper union branch (in HoodieMetadataColumnStats.minValue's order) and value of a
/// scalar, written to `w`; false when its type has no wrapper.
bool WriteWrapped(AvroWriter& w, const arrow::Scalar& s) {
  auto fixed = [&](const void* p, size_t n) { w.Raw(std::string_view(static_cast<const char*>(p), n)); };
  switch (s.type->id()) {
    case arrow::Type::BOOL:
      w.Branch(1);
      w.Boolean(static_cast<const arrow::BooleanScalar&>(s).value);
      return true;
    case arrow::Type::INT8:
      w.Branch(2);
      w.Long(static_cast<const arrow::Int8Scalar&>(s).value);
      return true;
    case arrow::Type::INT16:
      w.Branch(2);
      w.Long(static_cast<const arrow::Int16Scalar&>(s).value);
      return true;
    case arrow::Type::INT32:
      w.Branch(2);
      w.Long(static_cast<const arrow::Int32Scalar&>(s).value);
      return true;
    case arrow::Type::INT64:
      w.Branch(3);
      w.Long(static_cast<const arrow::Int64Scalar&>(s).value);
      return true;
    case arrow::Type::FLOAT: {
      w.Branch(4);
      const float v = static_cast<const arrow::FloatScalar&>(s).value;
      fixed(&v, 4);  // Avro floats are little-endian IEEE 754, as this machine's
      return true;
    }
    case arrow::Type::DOUBLE: {
      w.Branch(5);
      const double v = static_cast<const arrow::DoubleScalar&>(s).value;
      fixed(&v, 8);
      return true;
    }
    case arrow::Type::BINARY:
      w.Branch(6);
      w.String(static_cast<const arrow::BinaryScalar&>(s).view());
      return true;
    case arrow::Type::STRING:
      w.Branch(7);
      w.String(static_cast<const arrow::StringScalar&>(s).view());
      return true;
    case arrow::Type::DATE32:
      w.Branch(8);
      w.Long(static_cast<const arrow::Date32Scalar&>(s).value);
      return true;
    case arrow::Type::DECIMAL128: {
      const auto& type = static_cast<const arrow::Decimal128Type&>(*s.type);
      auto wrapped = ToWrapperDecimal(static_cast<const arrow::Decimal128Scalar&>(s).value, type.scale());
      if (!wrapped) return false;  // nothing written: the caller writes an absent bound
      w.Branch(9);
      w.String(DecimalBytes(*wrapped));  // bytes: the same length-prefixed encoding
      return true;
    }
    case arrow::Type::TIMESTAMP: {
      const auto& ts = static_cast<const arrow::TimestampScalar&>(s);
      const auto unit = static_cast<const arrow::TimestampType&>(*s.type).unit();
      int64_t factor = 0;
      if (unit == arrow::TimeUnit::SECOND) factor = 1000000;
      if (unit == arrow::TimeUnit::MILLI) factor = 1000;
      if (unit == arrow::TimeUnit::MICRO) factor = 1;
      if (factor == 0) return false;  // nanoseconds have no exact wrapper
      w.Branch(11);
      w.Long(ts.value * factor);
      return true;
    }
    default:
      return false;
  }
}
}  // namespace

bool BoundBefore(const std::shared_ptr<arrow::Scalar>& a, const std::shared_ptr<arrow::Scalar>& b) {
  auto less = arrow::compute::CallFunction("less", {arrow::Datum(a), arrow::Datum(b)});
  return less.ok() && less->scalar()->is_valid && static_cast<const arrow::BooleanScalar&>(*less->scalar()).value;
}

bool HasStatsWrapper(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::BOOL:
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE:
    case arrow::Type::BINARY:
    case arrow::Type::STRING:
    case arrow::Type::DATE32:
    case arrow::Type::DECIMAL128:
      return true;
    case arrow::Type::TIMESTAMP:
      return static_cast<const arrow::TimestampType&>(type).unit() != arrow::TimeUnit::NANO;
    default:
      return false;
  }
}

namespace {
/// How a column_stats value's bounds are encoded: Hudi's `valueType` (index version V2; absent or
/// V1: the wrapper alone says, as Hudi 1.0 and this build write them).
struct BoundEncoding {
  int ordinal = 0;                  ///< Hudi's ValueType ordinal; 0 = V1
  std::optional<int32_t> scale;     ///< DECIMAL: the scale its "precision,scale" info names
};

BoundEncoding EncodingOf(const nlohmann::json& stats) {
  BoundEncoding e;
  auto vt = stats.find("valueType");
  if (vt == stats.end() || !vt->is_object()) return e;
  auto ordinal = vt->find("typeOrdinal");
  e.ordinal = ordinal != vt->end() && ordinal->is_number_integer() ? ordinal->get<int>() : -1;
  auto info = vt->find("additionalInfo");
  if (e.ordinal == kDecimal && info != vt->end() && info->is_string()) {
    const std::string& text = info->get_ref<const std::string&>();  // "precision,scale"
    const size_t comma = text.find(',');
    if (comma != std::string::npos) {
      int32_t scale = 0;
      const char* begin = text.data() + comma + 1;
      auto [end, ec] = std::from_chars(begin, text.data() + text.size(), scale);
      if (ec == std::errc() && end == text.data() + text.size() && scale >= 0 && scale <= 76) e.scale = scale;
    }
  }
  return e;
}

/// A decimal bound from its big-endian two's complement bytes at `scale`, in the column's
/// `type`; null when it is not exact there.
std::shared_ptr<arrow::Scalar> DecimalBound(const nlohmann::json& v, int32_t scale, const arrow::DataType& type) {
  if (!v.is_binary()) return nullptr;
  const auto& bytes = v.get_binary();
  if (bytes.empty() || bytes.size() > 16) return nullptr;
  auto unscaled = arrow::Decimal128::FromBigEndian(bytes.data(), static_cast<int32_t>(bytes.size()));
  if (!unscaled.ok()) return nullptr;
  const auto& decimal = static_cast<const arrow::Decimal128Type&>(type);
  auto rescaled = unscaled->Rescale(scale, decimal.scale());  // refuses a loss of digits
  if (!rescaled.ok() || !rescaled->FitsInPrecision(decimal.precision())) return nullptr;
  return std::make_shared<arrow::Decimal128Scalar>(*rescaled, type.GetSharedPtr());
}

/// A bound of a column of `type` from its wrapper's JSON (`{"value": ...}`) under `encoding`;
/// null when the value does not fit the type, or its unit cannot be told. `lower`: a bound that
/// must be rounded (nanoseconds to microseconds) rounds down, else up, so it stays a bound.
std::shared_ptr<arrow::Scalar> BoundFromWrapper(const nlohmann::json& wrapper, const arrow::DataType& type,
                                                const BoundEncoding& encoding, bool lower) {
  if (!wrapper.is_object()) return nullptr;
  auto it = wrapper.find("value");
  if (it == wrapper.end()) return nullptr;
  const nlohmann::json& v = *it;
  const int ordinal = encoding.ordinal;
  if (ordinal < 0) return nullptr;  // a value type this reader does not know
  if (arrow::is_integer(type.id())) {
    if (!v.is_number_integer() || (ordinal != kV1 && ordinal != kInt && ordinal != kLong)) return nullptr;
    return std::make_shared<arrow::Int64Scalar>(v.get<int64_t>());
  }
  switch (type.id()) {
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE:
      if (!v.is_number() || (ordinal != kV1 && ordinal != kFloat && ordinal != kDouble)) return nullptr;
      if (type.id() == arrow::Type::DOUBLE && ordinal != kDouble) {
        // Maybe a float bound of a file written before the column widened to double: its values
        // read as FloatAsDouble of themselves, which may lie on either side of the float's exact
        // value. The bound takes the outer of the two (that mapping keeps order).
        const double exact = v.get<double>();
        const auto as_float = static_cast<float>(exact);
        if (static_cast<double>(as_float) == exact) {
          const double widened = FloatAsDouble(as_float);
          return std::make_shared<arrow::DoubleScalar>(lower ? std::min(exact, widened) : std::max(exact, widened));
        }
      }
      return std::make_shared<arrow::DoubleScalar>(v.get<double>());
    case arrow::Type::BOOL:
      if (!v.is_boolean() || (ordinal != kV1 && ordinal != kBoolean)) return nullptr;
      return std::make_shared<arrow::BooleanScalar>(v.get<bool>());
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
      if (!v.is_string() || (ordinal != kV1 && ordinal != kString)) return nullptr;
      return std::make_shared<arrow::StringScalar>(v.get<std::string>());
    case arrow::Type::DATE32:
      if (!v.is_number_integer() || (ordinal != kV1 && ordinal != kDate)) return nullptr;
      return std::make_shared<arrow::Date32Scalar>(static_cast<int32_t>(v.get<int64_t>()));
    case arrow::Type::DECIMAL128:
      // V1: DecimalWrapper, the unscaled value at scale 15; V2: bytes at the column's scale as
      // written, which the value type's info names.
      if (ordinal == kV1) return DecimalBound(v, kWrapperDecimalScale, type);
      if (ordinal == kDecimal && encoding.scale) return DecimalBound(v, *encoding.scale, type);
      return nullptr;
    case arrow::Type::TIMESTAMP: {
      if (!v.is_number_integer()) return nullptr;
      const auto& ts = static_cast<const arrow::TimestampType&>(type);
      int64_t micros = v.get<int64_t>();
      switch (ordinal) {
        case kV1:
          // TimestampMicrosWrapper, or a LongWrapper in the column's own unit: the same
          // number only when that unit is microseconds.
          if (ts.unit() != arrow::TimeUnit::MICRO) return nullptr;
          break;
        case kTimestampMicros:
        case kLocalTimestampMicros:
          break;
        case kTimestampMillis:
        case kLocalTimestampMillis:
          if (micros > INT64_MAX / 1000 || micros < INT64_MIN / 1000) return nullptr;
          micros *= 1000;
          break;
        case kTimestampNanos:
        case kLocalTimestampNanos: {
          const int64_t q = micros / 1000, r = micros % 1000;
          micros = lower ? (r < 0 ? q - 1 : q) : (r > 0 ? q + 1 : q);
          break;
        }
        default:
          return nullptr;
      }
      return std::make_shared<arrow::TimestampScalar>(micros, arrow::timestamp(arrow::TimeUnit::MICRO, ts.timezone()));
    }
    default:
      return nullptr;
  }
}
}  // namespace

std::optional<ColumnStatsValue> ColumnStatsFromRecord(const nlohmann::json& record, const arrow::DataType& type) {
  if (!record.is_object()) return std::nullopt;
  auto cs = record.find("ColumnStatsMetadata");
  if (cs == record.end() || !cs->is_object()) return std::nullopt;
  if (cs->value("isDeleted", false)) return std::nullopt;
  auto count = [&](const char* name) -> int64_t {
    auto it = cs->find(name);
    return it != cs->end() && it->is_number_integer() ? it->get<int64_t>() : -1;
  };
  ColumnStatsValue out;
  const BoundEncoding encoding = EncodingOf(*cs);
  if (auto it = cs->find("minValue"); it != cs->end()) out.min = BoundFromWrapper(*it, type, encoding, /*lower=*/true);
  if (auto it = cs->find("maxValue"); it != cs->end()) out.max = BoundFromWrapper(*it, type, encoding, /*lower=*/false);
  out.null_count = count("nullCount");
  out.value_count = count("valueCount");
  out.total_size = count("totalSize");
  out.total_uncompressed_size = count("totalUncompressedSize");
  return out;
}

namespace {
/// -1, 0 or 1 as `a` orders before, with or after `b` (wrapper values of one kind, in the order
/// the readers compare them: numbers by value, strings by their bytes, false before true);
/// nullopt when they are not comparable here.
std::optional<int> CompareWrapped(const nlohmann::json& a, const nlohmann::json& b) {
  auto sign = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  if (a.is_number_integer() && b.is_number_integer()) return sign(a.get<int64_t>(), b.get<int64_t>());
  if (a.is_number() && b.is_number() && !a.is_number_integer() && !b.is_number_integer()) {
    const double x = a.get<double>(), y = b.get<double>();
    if (x != x || y != y) return std::nullopt;  // NaN orders nowhere
    return sign(x, y);
  }
  if (a.is_string() && b.is_string()) {
    const int c = a.get_ref<const std::string&>().compare(b.get_ref<const std::string&>());
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  if (a.is_boolean() && b.is_boolean()) return sign(a.get<bool>(), b.get<bool>());
  return std::nullopt;
}
}  // namespace

nlohmann::json MergeColumnStatsRecords(const nlohmann::json& older, const nlohmann::json& newer) {
  auto stats_of = [](const nlohmann::json& r) -> const nlohmann::json* {
    if (!r.is_object()) return nullptr;
    auto it = r.find("ColumnStatsMetadata");
    return it != r.end() && it->is_object() ? &*it : nullptr;
  };
  const nlohmann::json* a = stats_of(older);
  const nlohmann::json* b = stats_of(newer);
  if (a == nullptr || b == nullptr) return newer;
  if (a->value("isDeleted", false) || b->value("isDeleted", false) || b->value("isTightBound", false)) return newer;
  auto count = [](const nlohmann::json& s, const char* name) -> std::optional<int64_t> {
    auto it = s.find(name);
    if (it == s.end() || !it->is_number_integer()) return std::nullopt;
    return it->get<int64_t>();
  };
  // A side without a bound says nothing about its values unless every one of them is null.
  auto only_nulls = [&](const nlohmann::json& s) {
    auto values = count(s, "valueCount"), nulls = count(s, "nullCount");
    return values && nulls && *values == *nulls;
  };
  auto bound = [&](const char* name, bool lower) -> nlohmann::json {
    auto value_of = [&](const nlohmann::json& s) -> const nlohmann::json* {
      auto it = s.find(name);
      if (it == s.end() || !it->is_object()) return nullptr;
      auto v = it->find("value");
      return v == it->end() || v->is_null() ? nullptr : &*it;
    };
    const nlohmann::json* x = value_of(*a);
    const nlohmann::json* y = value_of(*b);
    if (x == nullptr) return y != nullptr && only_nulls(*a) ? *y : nlohmann::json();
    if (y == nullptr) return only_nulls(*b) ? *x : nlohmann::json();
    auto order = CompareWrapped((*x)["value"], (*y)["value"]);
    if (!order) return nlohmann::json();
    return (lower ? *order <= 0 : *order >= 0) ? *x : *y;
  };
  nlohmann::json merged = newer;
  nlohmann::json& out = merged["ColumnStatsMetadata"];
  out["minValue"] = bound("minValue", true);
  out["maxValue"] = bound("maxValue", false);
  for (const char* name : {"valueCount", "nullCount", "totalSize", "totalUncompressedSize"}) {
    auto x = count(*a, name), y = count(*b, name);
    out[name] = x && y ? nlohmann::json(*x + *y) : nlohmann::json();
  }
  return merged;
}

namespace {
/// A column_stats (`name`: the file's) or partition_stats (`name`: the partition's) value.
std::string EncodeStatsRecord(MetadataRecordType type, std::string_view key, std::string_view file_name,
                              std::string_view column, const ColumnStatsValue& stats) {
  std::string out;
  AvroWriter w(&out);
  Head(w, key, type);
  w.Branch(0);  // filesystemMetadata
  w.Branch(0);  // BloomFilterMetadata
  w.Branch(1);  // ColumnStatsMetadata
  w.Branch(1);
  w.String(file_name);
  w.Branch(1);
  w.String(column);
  const bool bounded = stats.min && stats.max && stats.min->is_valid && stats.max->is_valid &&
                       HasStatsWrapper(*stats.min->type) && HasStatsWrapper(*stats.max->type);
  if (!bounded || !WriteWrapped(w, *stats.min)) w.Branch(0);
  if (!bounded || !WriteWrapped(w, *stats.max)) w.Branch(0);
  for (int64_t v : {stats.value_count, stats.null_count, stats.total_size, stats.total_uncompressed_size}) {
    w.Branch(1);
    w.Long(v);
  }
  w.Boolean(false);  // isDeleted
  w.Boolean(true);   // isTightBound: the footer's statistics of this file
  if (bounded && stats.min->type->id() == arrow::Type::TIMESTAMP) {
    // The bounds are TimestampMicrosWrapper's microseconds whatever the column's unit: said
    // with Hudi 1.1's value type (TIMESTAMP_MICROS), which readers of index version V2 follow
    // and older ones skip, so no reader takes them in the column's own unit.
    w.Branch(1);
    w.Long(kTimestampMicros);  // typeOrdinal: an Avro int, the same zigzag varint
    w.Branch(0);                      // additionalInfo
  } else {
    w.Branch(0);  // valueType: V1, the wrapper says
  }
  w.Branch(0);  // recordIndexMetadata
  w.Branch(0);  // SecondaryIndexMetadata
  return out;
}
}  // namespace

std::string EncodeColumnStatsRecord(std::string_view key, std::string_view file_name, std::string_view column,
                                    const ColumnStatsValue& stats) {
  return EncodeStatsRecord(MetadataRecordType::kColumnStats, key, file_name, column, stats);
}

std::string EncodePartitionStatsRecord(std::string_view key, std::string_view partition_path, std::string_view column,
                                       const ColumnStatsValue& stats) {
  return EncodeStatsRecord(MetadataRecordType::kPartitionStats, key, MetadataPartitionName(partition_path), column,
                           stats);
}

std::string EncodeBloomFilterRecord(std::string_view key, std::string_view type_code, std::string_view instant_time,
                                    std::string_view serialized_filter) {
  std::string out;
  out.reserve(key.size() + serialized_filter.size() + 64);
  AvroWriter w(&out);
  Head(w, key, MetadataRecordType::kBloomFilter);
  w.Branch(0);  // filesystemMetadata
  w.Branch(1);  // BloomFilterMetadata
  w.String(type_code);
  w.String(instant_time);
  w.String(serialized_filter);  // bytes: the same length-prefixed encoding
  w.Boolean(false);             // isDeleted
  w.Branch(0);  // ColumnStatsMetadata
  w.Branch(0);  // recordIndexMetadata
  w.Branch(0);  // SecondaryIndexMetadata
  return out;
}

std::string EncodeSecondaryIndexRecord(bool is_deleted) {
  std::string out;
  AvroWriter w(&out);
  Head(w, "", MetadataRecordType::kSecondaryIndex);  // the key is the HFile's (Spark stores "" here too)
  w.Branch(0);  // filesystemMetadata
  w.Branch(0);  // BloomFilterMetadata
  w.Branch(0);  // ColumnStatsMetadata
  w.Branch(0);  // recordIndexMetadata
  w.Branch(1);  // SecondaryIndexMetadata
  w.Boolean(is_deleted);
  return out;
}

}  // namespace lakeshore::format
