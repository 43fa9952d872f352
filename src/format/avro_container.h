// Internal: Avro object container files (the Avro spec's "Object Container Files"), the
// encoding of Hudi's layout-2 instant files and of the records in Avro log blocks.
//
// Decoding is Avro C's (Debian libavro-dev). Avro C trusts its input: a block length larger
// than the file, or negative, makes it read through a null or short buffer. So the container's
// framing (magic, header map, sync markers, block counts and lengths) is checked here first, and
// only a well-framed file is handed to Avro C. Values come out as nlohmann::json, the same tree
// layout 1's JSON instant files parse to, so one typed parser serves both layouts.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "lakeshore/status.h"

namespace lakeshore::format {

/// The records of one Avro object container file, decoded with the writer schema it carries.
struct AvroContainer {
  /// The writer schema, as the JSON text of the header's `avro.schema`.
  std::string schema_json;
  /// One JSON value per record. Mapping: record → object (field names as keys); map → object;
  /// array → array; union → the value of its branch (null for the null branch); enum → its
  /// symbol; string → string; bytes and fixed → binary; int/long → integer; float/double →
  /// number; boolean → boolean.
  std::vector<nlohmann::json> records;
};

/// Decodes the container file `bytes`. `source` names the file in errors. Codecs: null,
/// deflate, snappy and xz (as far as the linked Avro C supports them). A file that is truncated,
/// badly framed, or whose blocks do not decode under its schema → kCorruptMetadata naming
/// `source` and the problem. O(size of the file).
/// The null codec's blocks (every instant file Hudi writes) decode with the calling thread's
/// cached parse of the schema (up to 16 schemas a thread), so a run of files of one schema
/// parses it once.
Result<AvroContainer> ReadAvroContainer(std::string_view bytes, const std::string& source);

/// Releases the parsed schemas ReadAvroContainer keeps for the calling thread (they are
/// otherwise kept until the thread ends): for tests that count Avro C's allocations.
void ClearAvroSchemaCacheOfThisThread();

/// Decodes bare datums (Avro's binary encoding, no container) of one writer schema, one at a
/// time, with the schema parsed once: for records met one by one, as an HFile's values are.
/// Not thread-safe.
class AvroDatumReader {
 public:
  /// A reader of `schema_json`; a schema that does not parse → kCorruptMetadata naming `source`.
  static Result<std::unique_ptr<AvroDatumReader>> Make(std::string_view schema_json, std::string source);
  ~AvroDatumReader();

  /// The next datum as a JSON value (ReadAvroContainer's mapping); one that does not decode →
  /// kCorruptMetadata naming the source and the datum's number.
  Result<nlohmann::json> Read(std::string_view datum);

  /// Names `source` in the messages of the datums read from now on, numbered from 0: one reader
  /// (its schema parsed once) serves several files written with the same schema.
  void Rename(std::string source) {
    source_ = std::move(source);
    count_ = 0;
  }

 private:
  struct State;
  explicit AvroDatumReader(std::string source);
  std::unique_ptr<State> state_;
  std::string source_;
  int64_t count_ = 0;
};

/// Decodes `datums`, each one value in Avro's binary encoding (no container: how Hudi's Avro
/// data blocks and delete blocks store records), with the writer schema `schema_json`, into
/// JSON values as ReadAvroContainer maps them. A datum that does not decode, or a schema that
/// does not parse → kCorruptMetadata naming `source`. O(total size).
Result<std::vector<nlohmann::json>> ReadAvroDatums(std::string_view schema_json,
                                                   const std::vector<std::string_view>& datums,
                                                   const std::string& source);

/// Encodes `records` (JSON values in the mapping above; a union takes the first branch whose
/// type the value fits, null for JSON null) as an Avro object container file with `schema_json`
/// and the null codec. A value that does not fit the schema → Invalid naming the field path.
Result<std::string> WriteAvroContainer(std::string_view schema_json,
                                       const std::vector<nlohmann::json>& records);

/// Encodes one JSON value (the mapping of WriteAvroContainer) as a bare Avro datum in the binary
/// encoding under `schema_json`: what Hudi's delete blocks hold. Invalid as WriteAvroContainer.
Result<std::string> WriteAvroDatum(std::string_view schema_json, const nlohmann::json& record);

}  // namespace lakeshore::format
