// Internal: the typed view of a Hudi table's `.hoodie/hoodie.properties` (Hudi's
// HoodieTableConfig), for table versions 6, 8 and 9.
#pragma once

#include <algorithm>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/java_properties.h"
#include "lakeshore/config.h"
#include "lakeshore/status.h"
#include "lakeshore/storage/storage.h"
#include "lakeshore/table/table_config.h"

namespace lakeshore {

enum class HoodieTableType { kCopyOnWrite, kMergeOnRead };

/// How a snapshot read picks between versions of one record key (hoodie.record.merge.mode).
enum class RecordMergeMode {
  kEventTimeOrdering,   ///< the larger ordering-field value wins; ties go to the later write
  kCommitTimeOrdering,  ///< the later write wins
  kCustom,              ///< a payload or merger class decides: not supported for merging
};

/// The key generator that made record keys and partition paths.
enum class KeyGeneratorKind {
  kSimple,          ///< one key field, partition path from one field
  kComplex,         ///< "f1:v1,f2:v2" keys, partition path from several fields
  kNonPartitioned,  ///< no partition path
  kTimestampBased,  ///< partition path formatted from a time field (read-only here)
  kCustom,          ///< per-field "name:SIMPLE|TIMESTAMP" partition fields (read-only here)
  kOther,           ///< a class this build does not know (read-only, paths read from storage)
};

/// Where the folders of a table live, relative to its root.
struct HoodiePaths {
  static constexpr const char* kMetaFolder = ".hoodie";
  static constexpr const char* kPropertiesFile = ".hoodie/hoodie.properties";
  static constexpr const char* kPropertiesBackupFile = ".hoodie/hoodie.properties.backup";
  static constexpr const char* kPartitionMetadataFile = ".hoodie_partition_metadata";
  static constexpr const char* kMetadataTableFolder = ".hoodie/metadata";
  static constexpr const char* kTempFolder = ".hoodie/.temp";
  static constexpr const char* kHeartbeatFolder = ".hoodie/.heartbeat";
};

/// hoodie.properties, parsed and checked. Every key of the file is kept in `properties`, so a
/// rewrite keeps keys this build does not know.
struct HoodieTableConfig {
  format::JavaProperties properties;

  std::string name;
  std::string database;  ///< "" when absent
  HoodieTableType table_type = HoodieTableType::kCopyOnWrite;
  int table_version = 0;          ///< 6, 8 or 9
  int timeline_layout_version = 0;  ///< 1 (versions 6) or 2 (versions 8, 9)
  /// The active timeline folder: ".hoodie" (layout 1) or ".hoodie/timeline" (layout 2).
  std::string timeline_folder;
  /// The archived timeline: ".hoodie/archived" (layout 1) or ".hoodie/timeline/history".
  std::string archive_folder;
  std::vector<std::string> record_key_fields;
  /// Partition field names (a custom key generator's ":TYPE" suffixes removed).
  std::vector<std::string> partition_fields;
  /// The ordering (precombine) fields; empty when none.
  std::vector<std::string> ordering_fields;
  KeyGeneratorKind key_generator = KeyGeneratorKind::kSimple;
  /// How _hoodie_record_key is encoded (kComplex, kPlain, or kUnknown: HUDI-7001); see
  /// RecordKeyEncodingOf.
  TableConfig::KeyEncoding record_key_encoding = TableConfig::KeyEncoding::kPlain;
  bool hive_style_partitioning = false;
  bool url_encode_partitions = false;
  bool populate_meta_fields = true;
  bool drop_partition_columns = false;
  RecordMergeMode merge_mode = RecordMergeMode::kEventTimeOrdering;
  std::string create_schema;  ///< Avro schema JSON; "" when absent
  std::vector<std::string> metadata_partitions;           ///< completed MDT partitions
  std::vector<std::string> metadata_partitions_inflight;  ///< MDT partitions being built

  /// True when `partition` is a completed metadata table partition (listed, not in flight).
  bool HasMetadataPartition(std::string_view partition) const {
    return std::find(metadata_partitions.begin(), metadata_partitions.end(), partition) != metadata_partitions.end();
  }

  /// Parses and checks a hoodie.properties document: Java properties syntax, Hudi's checksum,
  /// a known table version (6, 8, 9) and type, and a base file format of PARQUET. Missing keys
  /// take Hudi's defaults. `source` names the file in errors (kCorruptMetadata for a malformed
  /// or mis-checksummed file, kUnsupportedFeature for a version or format this build lacks).
  static Result<HoodieTableConfig> Parse(std::string_view text, const std::string& source);

  /// Reads `.hoodie/hoodie.properties` of the table rooted at `storage`, as Hudi does: when it
  /// is missing or fails its checksum (a writer died mid-update), `hoodie.properties.backup` is
  /// read instead. No file at all → kCorruptMetadata "not a Hudi table".
  static Result<HoodieTableConfig> Load(Storage& storage);
  /// As Load, but nullopt when neither file is there (a table deleted since it was opened).
  static Result<std::optional<HoodieTableConfig>> LoadIfExists(Storage& storage);

  /// True when `storage` holds a `.hoodie/hoodie.properties` (or its backup).
  static Result<bool> Exists(Storage& storage);

  bool is_merge_on_read() const { return table_type == HoodieTableType::kMergeOnRead; }
  /// Lakeshore's typed table options (table_options.h) set in the file, beside Hudi's keys.
  Properties TableOptions() const;
  bool is_partitioned() const { return !partition_fields.empty(); }
  /// True when partition folders hold the partition columns' own text (SIMPLE and COMPLEX key
  /// generators, KeyGenUtils: "" in the null folder) and the files hold the columns too; a
  /// timestamp-based or custom key generator formats its folders instead.
  bool FoldersHoldColumnValues() const {
    return !drop_partition_columns &&
           (key_generator == KeyGeneratorKind::kSimple || key_generator == KeyGeneratorKind::kComplex);
  }
};

/// True when record keys use Hudi's complex encoding "f1:v1,f2:v2" (several key fields, or
/// several partition fields, as Hudi's COMPLEX key generator); false for the plain value of a
/// SIMPLE or NON_PARTITION table. The rule Lakeshore creates tables by; an opened table's
/// encoding is RecordKeyEncodingOf's.
bool UsesComplexKeyEncoding(size_t key_fields, size_t partition_fields);

/// Hudi's key for how a COMPLEX key generator over one field encodes its keys (Hudi 1.1).
inline constexpr const char* kComplexKeyGenEncodingKey = "hoodie.table.complex.keygen.encoding";

/// How a table's record keys are encoded: the complex `f1:v1,...` with several key fields; for a
/// COMPLEX key generator over one field as hoodie.table.complex.keygen.encoding says
/// (FIELD_PREFIXED or VALUE_ONLY), and when it is absent FIELD_PREFIXED at table version 9 and
/// nullopt below it (Hudi 0.14.1 to 1.0.2 wrote bare values there, older releases prefixed
/// ones: HUDI-7001); otherwise by UsesComplexKeyEncoding. kCorruptMetadata naming `source` for
/// another value of the key.
Result<TableConfig::KeyEncoding> RecordKeyEncodingOf(const HoodieTableConfig& table, const std::string& source);

/// Why a table of TableConfig::KeyEncoding::kUnknown cannot be keyed: the one text writes and
/// lookups give.
std::string UnknownKeyEncodingReason();

/// What Lakeshore needs to create a table.
struct NewHoodieTable {
  std::string name;
  HoodieTableType table_type = HoodieTableType::kCopyOnWrite;
  std::vector<std::string> record_key_fields;
  std::vector<std::string> partition_fields;
  std::string ordering_field;  ///< "" for none
  std::string avro_schema;     ///< the create schema (no meta fields)
  /// Further keys stored as they are (Lakeshore's typed table options).
  std::vector<std::pair<std::string, std::string>> extra;
};

/// The hoodie.properties of a new table version 9 (timeline layout 2, hive-style partition
/// paths, meta fields on, UTC instant times, no metadata table), with Hudi's checksum.
format::JavaProperties NewTableProperties(const NewHoodieTable& table);

const char* HoodieTableTypeName(HoodieTableType type);
const char* RecordMergeModeName(RecordMergeMode mode);

}  // namespace lakeshore
