#include "format/avro_container.h"

#include <avro.h>

#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <type_traits>

namespace lakeshore::format {
namespace {

using nlohmann::json;

constexpr std::string_view kMagic("Obj\x01", 4);
constexpr size_t kSyncSize = 16;
// Values nest no deeper than this (Hudi's schemas nest a handful of levels).
constexpr int kMaxDepth = 64;
// A block may hold at most this many records per byte (deflate expands at most ~1032×): bounds
// the records a zero-width schema could make Avro C produce from a tiny file.
constexpr int64_t kMaxRecordsPerByte = 1100;

// --- Framing: checked before Avro C sees the bytes ------------------------------------------

/// Reads the Avro spec's zig-zag varint longs from a byte range, never past its end.
class FrameCursor {
 public:
  explicit FrameCursor(std::string_view bytes) : bytes_(bytes) {}

  bool ReadLong(int64_t* out) {
    uint64_t raw = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (pos_ >= bytes_.size()) return false;
      const auto byte = static_cast<uint8_t>(bytes_[pos_++]);
      if (shift == 63 && (byte & 0x7e) != 0) return false;  // more than 64 bits
      raw |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        *out = static_cast<int64_t>(raw >> 1) ^ -static_cast<int64_t>(raw & 1);
        return true;
      }
    }
    return false;
  }
  bool Skip(int64_t n) {
    if (n < 0 || static_cast<uint64_t>(n) > remaining()) return false;
    pos_ += static_cast<size_t>(n);
    return true;
  }
  std::string_view Take(size_t n) {
    if (n > remaining()) return {};
    std::string_view out = bytes_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  size_t remaining() const { return bytes_.size() - pos_; }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

Status FramingError(const std::string& source, const std::string& what) {
  return CorruptMetadata("Avro file " + source + " is not a well-formed object container file: " +
                         what);
}

/// One data block of a container: its record count and its (still encoded) bytes.
struct FramedBlock {
  int64_t count = 0;
  std::string_view data;
};

/// What the framing check found: the header's schema text and codec, and the data blocks.
struct Framing {
  std::string schema;
  std::string codec = "null";  ///< the header's avro.codec; absent means null
  std::vector<FramedBlock> blocks;
};

/// Checks magic, header map, sync marker and every block's count, length and trailing sync.
Result<Framing> CheckFraming(std::string_view bytes, const std::string& source) {
  if (bytes.size() < kMagic.size() || bytes.substr(0, kMagic.size()) != kMagic) {
    return FramingError(source, bytes.empty() ? "the file is empty" : "bad magic bytes");
  }
  FrameCursor cursor(bytes.substr(kMagic.size()));
  Framing framing;
  bool have_schema = false;
  for (;;) {
    int64_t count = 0;
    if (!cursor.ReadLong(&count)) return FramingError(source, "truncated header");
    if (count == 0) break;
    if (count < 0) {
      int64_t block_bytes = 0;
      if (!cursor.ReadLong(&block_bytes) || count == std::numeric_limits<int64_t>::min()) {
        return FramingError(source, "truncated header");
      }
      count = -count;
    }
    if (static_cast<uint64_t>(count) > cursor.remaining()) {
      return FramingError(source, "header claims more entries than the file holds");
    }
    for (int64_t i = 0; i < count; ++i) {
      int64_t key_len = 0, value_len = 0;
      if (!cursor.ReadLong(&key_len) || key_len < 0 ||
          static_cast<uint64_t>(key_len) > cursor.remaining()) {
        return FramingError(source, "truncated header key");
      }
      const std::string_view key = cursor.Take(static_cast<size_t>(key_len));
      if (!cursor.ReadLong(&value_len) || value_len < 0 ||
          static_cast<uint64_t>(value_len) > cursor.remaining()) {
        return FramingError(source, "truncated header value");
      }
      const std::string_view value = cursor.Take(static_cast<size_t>(value_len));
      if (key == "avro.schema") {
        framing.schema.assign(value);
        have_schema = true;
      } else if (key == "avro.codec") {
        framing.codec.assign(value);
      }
    }
  }
  if (!have_schema) return FramingError(source, "the header has no avro.schema");
  const std::string_view sync = cursor.Take(kSyncSize);
  if (sync.size() != kSyncSize) return FramingError(source, "truncated sync marker");
  while (cursor.remaining() > 0) {
    int64_t count = 0, length = 0;
    if (!cursor.ReadLong(&count) || !cursor.ReadLong(&length)) {
      return FramingError(source, "truncated block header");
    }
    if (count < 0 || length < 0 || static_cast<uint64_t>(length) > cursor.remaining()) {
      return FramingError(source, "a block's length runs past the end of the file");
    }
    if (count > (length + 1) * kMaxRecordsPerByte) {
      return FramingError(source, "a block claims more records than its bytes can hold");
    }
    framing.blocks.push_back({count, cursor.Take(static_cast<size_t>(length))});
    if (cursor.Take(kSyncSize) != sync) {
      return FramingError(source, "a block does not end in the file's sync marker");
    }
  }
  return framing;
}

// --- Avro C handles ----------------------------------------------------------------------

struct SchemaRef {
  avro_schema_t schema = nullptr;
  ~SchemaRef() {
    if (schema != nullptr) avro_schema_decref(schema);
  }
};
struct IfaceRef {
  avro_value_iface_t* iface = nullptr;
  ~IfaceRef() {
    if (iface != nullptr) avro_value_iface_decref(iface);
  }
};
struct ValueRef {
  avro_value_t value{};
  bool live = false;
  ~ValueRef() {
    if (live) avro_value_decref(&value);
  }
};
struct ReaderRef {
  avro_file_reader_t reader = nullptr;
  ~ReaderRef() {
    if (reader != nullptr) avro_file_reader_close(reader);
  }
};

std::string AvroError() {
  const char* message = avro_strerror();
  return message != nullptr && message[0] != '\0' ? message : "unknown Avro C error";
}

/// A generic Avro value of a schema given as JSON, with everything it holds on to.
struct GenericValue {
  SchemaRef schema;
  IfaceRef iface;
  ValueRef value;
};

/// Parses `schema_json` and makes an empty value of it in `out`. Invalid when the schema does
/// not parse or cannot make values.
Status InitGenericValue(std::string_view schema_json, GenericValue* out) {
  // Avro C leaves its out-parameter pointing at a schema it already freed when a nested part
  // fails (a record field of an unknown type): only a parse that succeeded is kept.
  avro_schema_t parsed = nullptr;
  if (avro_schema_from_json_length(schema_json.data(), schema_json.size(), &parsed) != 0) {
    return Status::Invalid("Avro schema does not parse: ", AvroError());
  }
  out->schema.schema = parsed;
  out->iface.iface = avro_generic_class_from_schema(out->schema.schema);
  if (out->iface.iface == nullptr) return Status::Invalid("Avro schema is unusable: ", AvroError());
  if (avro_generic_value_new(out->iface.iface, &out->value.value) != 0) return Status::OutOfMemory(AvroError());
  out->value.live = true;
  return Status::OK();
}


// --- Avro value → JSON --------------------------------------------------------------------

Status ToJson(avro_value_t* value, int depth, json* out);

Status ChildrenToJson(avro_value_t* value, bool named, int depth, json* out) {
  size_t size = 0;
  if (avro_value_get_size(value, &size) != 0) return Status::Invalid(AvroError());
  *out = named ? json::object() : json::array();
  for (size_t i = 0; i < size; ++i) {
    avro_value_t child;
    const char* name = nullptr;
    if (avro_value_get_by_index(value, i, &child, named ? &name : nullptr) != 0) {
      return Status::Invalid(AvroError());
    }
    json converted;
    ARROW_RETURN_NOT_OK(ToJson(&child, depth + 1, &converted));
    if (named) {
      (*out)[name != nullptr ? name : ""] = std::move(converted);
    } else {
      out->push_back(std::move(converted));
    }
  }
  return Status::OK();
}

Status ToJson(avro_value_t* value, int depth, json* out) {
  if (depth > kMaxDepth) return Status::Invalid("values nest deeper than ", kMaxDepth);
  switch (avro_value_get_type(value)) {
    case AVRO_STRING: {
      const char* text = nullptr;
      size_t size = 0;  // includes the terminating NUL
      if (avro_value_get_string(value, &text, &size) != 0) return Status::Invalid(AvroError());
      *out = std::string(text, size > 0 ? size - 1 : 0);
      return Status::OK();
    }
    case AVRO_BYTES:
    case AVRO_FIXED: {
      const void* buf = nullptr;
      size_t size = 0;
      const int rc = avro_value_get_type(value) == AVRO_BYTES
                         ? avro_value_get_bytes(value, &buf, &size)
                         : avro_value_get_fixed(value, &buf, &size);
      if (rc != 0) return Status::Invalid(AvroError());
      const auto* begin = static_cast<const uint8_t*>(buf);
      *out = json::binary(std::vector<uint8_t>(begin, begin + size));
      return Status::OK();
    }
    case AVRO_INT32: {
      int32_t v = 0;
      if (avro_value_get_int(value, &v) != 0) return Status::Invalid(AvroError());
      *out = v;
      return Status::OK();
    }
    case AVRO_INT64: {
      int64_t v = 0;
      if (avro_value_get_long(value, &v) != 0) return Status::Invalid(AvroError());
      *out = v;
      return Status::OK();
    }
    case AVRO_FLOAT: {
      float v = 0;
      if (avro_value_get_float(value, &v) != 0) return Status::Invalid(AvroError());
      *out = v;
      return Status::OK();
    }
    case AVRO_DOUBLE: {
      double v = 0;
      if (avro_value_get_double(value, &v) != 0) return Status::Invalid(AvroError());
      *out = v;
      return Status::OK();
    }
    case AVRO_BOOLEAN: {
      int v = 0;
      if (avro_value_get_boolean(value, &v) != 0) return Status::Invalid(AvroError());
      *out = v != 0;
      return Status::OK();
    }
    case AVRO_NULL:
      *out = nullptr;
      return Status::OK();
    case AVRO_ENUM: {
      int index = 0;
      if (avro_value_get_enum(value, &index) != 0) return Status::Invalid(AvroError());
      const char* symbol = avro_schema_enum_get(avro_value_get_schema(value), index);
      if (symbol == nullptr) return Status::Invalid("enum index ", index, " has no symbol");
      *out = std::string(symbol);
      return Status::OK();
    }
    case AVRO_RECORD:
    case AVRO_MAP:
      return ChildrenToJson(value, /*named=*/true, depth, out);
    case AVRO_ARRAY:
      return ChildrenToJson(value, /*named=*/false, depth, out);
    case AVRO_UNION: {
      avro_value_t branch;
      if (avro_value_get_current_branch(value, &branch) != 0) return Status::Invalid(AvroError());
      return ToJson(&branch, depth + 1, out);
    }
    default:
      return Status::Invalid("an Avro value of an unsupported type");
  }
}

// --- JSON → Avro value --------------------------------------------------------------------

bool Fits(avro_schema_t schema, const json& v) {
  switch (avro_typeof(schema)) {
    case AVRO_NULL: return v.is_null();
    case AVRO_STRING: case AVRO_ENUM: return v.is_string();
    case AVRO_BYTES: case AVRO_FIXED: return v.is_binary() || v.is_string();
    case AVRO_INT32: case AVRO_INT64: return v.is_number_integer();
    case AVRO_FLOAT: case AVRO_DOUBLE: return v.is_number();
    case AVRO_BOOLEAN: return v.is_boolean();
    case AVRO_RECORD: case AVRO_MAP: return v.is_object();
    case AVRO_ARRAY: return v.is_array();
    default: return false;
  }
}

Status FromJson(const json& v, const std::string& path, int depth, avro_value_t* out);

Status Mismatch(const std::string& path, const char* expected) {
  return Status::Invalid("Avro value at '", path, "' is not ", expected);
}

Status FromJsonBytes(const json& v, const std::string& path, avro_value_t* out, bool fixed) {
  std::string_view data;
  if (v.is_binary()) {
    const auto& bin = v.get_binary();
    data = std::string_view(reinterpret_cast<const char*>(bin.data()), bin.size());
  } else if (v.is_string()) {
    data = v.get_ref<const std::string&>();
  } else {
    return Mismatch(path, "bytes");
  }
  void* buf = const_cast<char*>(data.data());
  const int rc = fixed ? avro_value_set_fixed(out, buf, data.size())
                       : avro_value_set_bytes(out, buf, data.size());
  return rc == 0 ? Status::OK() : Status::Invalid("'", path, "': ", AvroError());
}

Status FromJsonRecord(const json& v, const std::string& path, int depth, avro_value_t* out) {
  if (!v.is_object()) return Mismatch(path, "an object");
  size_t size = 0;
  avro_value_get_size(out, &size);
  for (size_t i = 0; i < size; ++i) {
    avro_value_t child;
    const char* name = nullptr;
    if (avro_value_get_by_index(out, i, &child, &name) != 0) return Status::Invalid(AvroError());
    const auto it = v.find(name);
    static const json kNull = nullptr;
    ARROW_RETURN_NOT_OK(FromJson(it == v.end() ? kNull : *it, path + "." + name, depth + 1, &child));
  }
  return Status::OK();
}

Status FromJson(const json& v, const std::string& path, int depth, avro_value_t* out) {
  if (depth > kMaxDepth) return Status::Invalid("values nest deeper than ", kMaxDepth);
  avro_schema_t schema = avro_value_get_schema(out);
  switch (avro_value_get_type(out)) {
    case AVRO_NULL:
      if (!v.is_null()) return Mismatch(path, "null");
      avro_value_set_null(out);
      return Status::OK();
    case AVRO_STRING: {
      if (!v.is_string()) return Mismatch(path, "a string");
      const auto& s = v.get_ref<const std::string&>();
      avro_value_set_string_len(out, s.c_str(), s.size() + 1);
      return Status::OK();
    }
    case AVRO_BYTES:
      return FromJsonBytes(v, path, out, /*fixed=*/false);
    case AVRO_FIXED:
      return FromJsonBytes(v, path, out, /*fixed=*/true);
    case AVRO_INT32: {
      if (!v.is_number_integer()) return Mismatch(path, "an integer");
      const auto n = v.get<int64_t>();
      if (n < std::numeric_limits<int32_t>::min() || n > std::numeric_limits<int32_t>::max()) {
        return Mismatch(path, "an int32");
      }
      avro_value_set_int(out, static_cast<int32_t>(n));
      return Status::OK();
    }
    case AVRO_INT64:
      if (!v.is_number_integer()) return Mismatch(path, "an integer");
      avro_value_set_long(out, v.get<int64_t>());
      return Status::OK();
    case AVRO_FLOAT:
      if (!v.is_number()) return Mismatch(path, "a number");
      avro_value_set_float(out, v.get<float>());
      return Status::OK();
    case AVRO_DOUBLE:
      if (!v.is_number()) return Mismatch(path, "a number");
      avro_value_set_double(out, v.get<double>());
      return Status::OK();
    case AVRO_BOOLEAN:
      if (!v.is_boolean()) return Mismatch(path, "a boolean");
      avro_value_set_boolean(out, v.get<bool>() ? 1 : 0);
      return Status::OK();
    case AVRO_ENUM: {
      if (!v.is_string()) return Mismatch(path, "an enum symbol");
      const int index = avro_schema_enum_get_by_name(schema, v.get_ref<const std::string&>().c_str());
      if (index < 0) return Mismatch(path, "a symbol of its enum");
      avro_value_set_enum(out, index);
      return Status::OK();
    }
    case AVRO_RECORD:
      return FromJsonRecord(v, path, depth, out);
    case AVRO_MAP: {
      if (!v.is_object()) return Mismatch(path, "an object");
      for (const auto& [key, item] : v.items()) {
        avro_value_t child;
        if (avro_value_add(out, key.c_str(), &child, nullptr, nullptr) != 0) {
          return Status::Invalid(AvroError());
        }
        ARROW_RETURN_NOT_OK(FromJson(item, path + "[" + key + "]", depth + 1, &child));
      }
      return Status::OK();
    }
    case AVRO_ARRAY: {
      if (!v.is_array()) return Mismatch(path, "an array");
      for (size_t i = 0; i < v.size(); ++i) {
        avro_value_t child;
        if (avro_value_append(out, &child, nullptr) != 0) return Status::Invalid(AvroError());
        ARROW_RETURN_NOT_OK(FromJson(v[i], path + "[" + std::to_string(i) + "]", depth + 1, &child));
      }
      return Status::OK();
    }
    case AVRO_UNION: {
      const size_t branches = avro_schema_union_size(schema);
      for (size_t i = 0; i < branches; ++i) {
        if (!Fits(avro_schema_union_branch(schema, static_cast<int>(i)), v)) continue;
        avro_value_t branch;
        if (avro_value_set_branch(out, static_cast<int>(i), &branch) != 0) {
          return Status::Invalid(AvroError());
        }
        return FromJson(v, path, depth + 1, &branch);
      }
      return Mismatch(path, "of any type its union allows");
    }
    default:
      return Status::Invalid("'", path, "' has an Avro type this encoder does not write");
  }
}

/// An in-memory FILE* that Avro C reads from or writes to.
struct FileRef {
  FILE* file = nullptr;
  ~FileRef() {
    if (file != nullptr) std::fclose(file);
  }
};

/// The parsed writer schemas of the containers this thread read last, each with a value to
/// decode into, by schema text. A table's instant files share a handful of schemas (a commit's,
/// a clean's, a rollback's ...); parsing one (jansson, then Avro C's schema and value classes)
/// cost more than decoding the record it framed: an open decoding every archived commit of a
/// long history spent most of its time there. At most kMaxSchemas are kept; more empties it.
class ThreadSchemaCache {
 public:
  static constexpr size_t kMaxSchemas = 16;

  /// The value for `schema_json`, parsed on first use. Invalid when the schema does not parse.
  Result<GenericValue*> Get(const std::string& schema_json) {
    auto it = values_.find(schema_json);
    if (it != values_.end()) return it->second.get();
    auto value = std::make_unique<GenericValue>();
    ARROW_RETURN_NOT_OK(InitGenericValue(schema_json, value.get()));
    if (values_.size() >= kMaxSchemas) values_.clear();
    GenericValue* out = value.get();
    values_.emplace(schema_json, std::move(value));
    return out;
  }
  /// Forgets `schema_json`'s value: a failed read can leave it half set, unfit to reset.
  void Discard(const std::string& schema_json) { values_.erase(schema_json); }
  void Clear() { values_.clear(); }

 private:
  std::map<std::string, std::unique_ptr<GenericValue>> values_;
};

ThreadSchemaCache& SchemaCacheOfThisThread() {
  thread_local ThreadSchemaCache cache;
  return cache;
}

/// Decodes the records of `framing`'s blocks into `value`, then into `out`: one memory reader
/// per block (Avro C bounds every read by the block's bytes).
Status DecodeBlocksInto(const Framing& framing, avro_value_t* value, const std::string& source, AvroContainer* out) {
  for (const FramedBlock& block : framing.blocks) {
    std::unique_ptr<std::remove_pointer_t<avro_reader_t>, decltype(&avro_reader_free)> reader(
        avro_reader_memory(block.data.data(), static_cast<int64_t>(block.data.size())), &avro_reader_free);
    if (reader == nullptr) return Status::OutOfMemory("cannot open an Avro block reader");
    for (int64_t i = 0; i < block.count; ++i) {
      avro_value_reset(value);
      if (avro_value_read(reader.get(), value) != 0) {
        return CorruptMetadata("Avro file " + source + ": record " + std::to_string(out->records.size()) +
                               " does not decode: " + AvroError());
      }
      json record;
      const Status st = ToJson(value, 0, &record);
      if (!st.ok()) {
        return CorruptMetadata("Avro file " + source + ": record " + std::to_string(out->records.size()) + ": " +
                               st.message());
      }
      out->records.push_back(std::move(record));
    }
  }
  return Status::OK();
}

/// The records of the null-codec blocks of `framing`, decoded into the thread's cached value of
/// its schema. A failed read discards that value (Avro C may leave it half set).
Status DecodeUncompressedBlocks(const Framing& framing, const std::string& source, AvroContainer* out) {
  auto generic = SchemaCacheOfThisThread().Get(framing.schema);
  if (!generic.ok()) {
    if (generic.status().IsOutOfMemory()) return generic.status();
    return CorruptMetadata("Avro file " + source + " has an unusable schema: " + generic.status().message());
  }
  Status st = DecodeBlocksInto(framing, &(*generic)->value.value, source, out);
  if (!st.ok()) SchemaCacheOfThisThread().Discard(framing.schema);
  return st;
}

}  // namespace

void ClearAvroSchemaCacheOfThisThread() { SchemaCacheOfThisThread().Clear(); }

Result<AvroContainer> ReadAvroContainer(std::string_view bytes, const std::string& source) {
  AvroContainer container;
  ARROW_ASSIGN_OR_RAISE(Framing framing, CheckFraming(bytes, source));
  container.schema_json = framing.schema;
  if (framing.codec == "null") {
    ARROW_RETURN_NOT_OK(DecodeUncompressedBlocks(framing, source, &container));
    return container;
  }
  // A compressed container (Hudi writes none of its instant files so): Avro C's file reader
  // inflates the blocks.
  // fmemopen needs a writable pointer even for reading; "rb" never writes through it.
  FILE* file = fmemopen(const_cast<char*>(bytes.data()), bytes.size(), "rb");
  if (file == nullptr) return Status::IOError("cannot open ", source, " in memory");
  ReaderRef reader;
  if (avro_file_reader_fp(file, source.c_str(), /*should_close=*/1, &reader.reader) != 0) {
    return CorruptMetadata("Avro file " + source + " cannot be opened: " + AvroError());
  }
  // Avro C hands out a reference of its own here (it increfs): one more leaked the whole parsed
  // schema, ~60 KB, per file read — every commit decoded at every open.
  SchemaRef schema{avro_file_reader_get_writer_schema(reader.reader)};
  IfaceRef iface{avro_generic_class_from_schema(schema.schema)};
  if (iface.iface == nullptr) {
    return CorruptMetadata("Avro file " + source + " has an unusable schema: " + AvroError());
  }
  ValueRef value;
  if (avro_generic_value_new(iface.iface, &value.value) != 0) return Status::OutOfMemory(AvroError());
  value.live = true;
  for (;;) {
    avro_value_reset(&value.value);
    const int rc = avro_file_reader_read_value(reader.reader, &value.value);
    if (rc == EOF) break;
    if (rc != 0) {
      return CorruptMetadata("Avro file " + source + ": record " +
                             std::to_string(container.records.size()) +
                             " does not decode: " + AvroError());
    }
    json record;
    const Status st = ToJson(&value.value, 0, &record);
    if (!st.ok()) {
      return CorruptMetadata("Avro file " + source + ": record " +
                             std::to_string(container.records.size()) + ": " + st.message());
    }
    container.records.push_back(std::move(record));
  }
  return container;
}

struct AvroDatumReader::State {
  GenericValue generic;
};

AvroDatumReader::AvroDatumReader(std::string source) : state_(std::make_unique<State>()), source_(std::move(source)) {}
AvroDatumReader::~AvroDatumReader() = default;

Result<std::unique_ptr<AvroDatumReader>> AvroDatumReader::Make(std::string_view schema_json, std::string source) {
  std::unique_ptr<AvroDatumReader> reader(new AvroDatumReader(std::move(source)));
  const Status init = InitGenericValue(schema_json, &reader->state_->generic);
  if (init.IsOutOfMemory()) return init;
  if (!init.ok()) return CorruptMetadata(reader->source_ + ": the " + init.message());
  return reader;
}

Result<nlohmann::json> AvroDatumReader::Read(std::string_view datum) {
  const int64_t i = count_++;
  ValueRef& value = state_->generic.value;
  avro_reader_t reader = avro_reader_memory(datum.data(), static_cast<int64_t>(datum.size()));
  if (reader == nullptr) return Status::OutOfMemory("cannot open an Avro datum reader");
  avro_value_reset(&value.value);
  const int rc = avro_value_read(reader, &value.value);
  avro_reader_free(reader);
  if (rc != 0) return CorruptMetadata(source_ + ": record " + std::to_string(i) + " does not decode: " + AvroError());
  json record;
  const Status st = ToJson(&value.value, 0, &record);
  if (!st.ok()) return CorruptMetadata(source_ + ": record " + std::to_string(i) + ": " + st.message());
  return record;
}

Result<std::vector<nlohmann::json>> ReadAvroDatums(std::string_view schema_json,
                                                   const std::vector<std::string_view>& datums,
                                                   const std::string& source) {
  ARROW_ASSIGN_OR_RAISE(auto reader, AvroDatumReader::Make(schema_json, source));
  std::vector<json> out;
  out.reserve(datums.size());
  for (const auto& datum : datums) {
    ARROW_ASSIGN_OR_RAISE(auto record, reader->Read(datum));
    out.push_back(std::move(record));
  }
  return out;
}

Result<std::string> WriteAvroContainer(std::string_view schema_json,
                                       const std::vector<nlohmann::json>& records) {
  GenericValue generic;
  ARROW_RETURN_NOT_OK(InitGenericValue(schema_json, &generic));
  const SchemaRef& schema = generic.schema;
  ValueRef& value = generic.value;

  // Avro C refuses a record larger than the block: size the block from the records.
  size_t largest = 0;
  for (const auto& record : records) {
    largest = std::max(largest, record.dump(-1, ' ', false, json::error_handler_t::replace).size());
  }
  const size_t block_size = std::max<size_t>(64 * 1024, 2 * largest + 1024);

  char* buffer = nullptr;
  size_t length = 0;
  FileRef sink{open_memstream(&buffer, &length)};
  if (sink.file == nullptr) return Status::OutOfMemory("cannot open an in-memory Avro sink");
  std::unique_ptr<char, decltype(&std::free)> owned(nullptr, &std::free);
  avro_file_writer_t writer = nullptr;
  if (avro_file_writer_create_with_codec_fp(sink.file, "memory", /*should_close=*/0, schema.schema,
                                            &writer, "null", block_size) != 0) {
    return Status::Invalid("Avro writer cannot start: ", AvroError());
  }
  Status st;
  for (size_t i = 0; i < records.size() && st.ok(); ++i) {
    avro_value_reset(&value.value);
    st = FromJson(records[i], "record " + std::to_string(i), 0, &value.value);
    if (st.ok() && avro_file_writer_append_value(writer, &value.value) != 0) {
      st = Status::Invalid("Avro record ", i, " cannot be written: ", AvroError());
    }
  }
  const int closed = avro_file_writer_close(writer);
  std::fflush(sink.file);
  std::fclose(sink.file);
  sink.file = nullptr;
  owned.reset(buffer);
  ARROW_RETURN_NOT_OK(st);
  if (closed != 0) return Status::IOError("Avro writer cannot finish: ", AvroError());
  return std::string(buffer, length);
}

Result<std::string> WriteAvroDatum(std::string_view schema_json, const nlohmann::json& record) {
  GenericValue generic;
  ARROW_RETURN_NOT_OK(InitGenericValue(schema_json, &generic));
  ValueRef& value = generic.value;
  ARROW_RETURN_NOT_OK(FromJson(record, "record", 0, &value.value));
  size_t size = 0;
  if (avro_value_sizeof(&value.value, &size) != 0) return Status::Invalid("Avro datum cannot be sized: ", AvroError());
  std::string out(size, '\0');
  avro_writer_t writer = avro_writer_memory(out.data(), static_cast<int64_t>(out.size()));
  if (writer == nullptr) return Status::OutOfMemory("cannot open an Avro datum writer");
  const int rc = avro_value_write(writer, &value.value);
  avro_writer_free(writer);
  if (rc != 0) return Status::Invalid("Avro datum cannot be written: ", AvroError());
  return out;
}

}  // namespace lakeshore::format
