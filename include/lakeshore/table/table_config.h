// What a table is created with; stored as Hudi's hoodie.properties (see table/hoodie_table_config.h).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <arrow/type.h>

#include "lakeshore/status.h"

namespace lakeshore {

/// Copy-on-write (every update rewrites the base file) or merge-on-read (updates append log
/// files that compaction folds).
enum class TableType { kCopyOnWrite, kMergeOnRead };

/// "cow" / "mor".
const char* TableTypeName(TableType type);
/// Parses "cow", "mor", "copy_on_write", "merge_on_read" (case-insensitive).
Result<TableType> ParseTableType(const std::string& name);

/// Everything that defines a table. Immutable once the table is created (except `properties`).
struct TableConfig {
  static constexpr int kFormatVersion = 1;

  std::string name;
  int format_version = kFormatVersion;
  /// The user columns (no meta columns). Blob columns have type BlobType().
  std::shared_ptr<arrow::Schema> schema;
  /// Record key fields; several make a composite key. Required, non-empty.
  std::vector<std::string> record_key_fields;
  /// Partition fields, in path order; empty for an unpartitioned table.
  std::vector<std::string> partition_fields;
  /// Partition folders named `field=value` (hoodie.datasource.write.hive_style_partitioning);
  /// else the value alone. Tables Lakeshore creates are hive-style.
  bool hive_style_partitioning = true;
  /// Partition values Hive-escaped in folder names (hoodie.datasource.write.partitionpath.urlencode).
  /// Tables Lakeshore creates url-encode.
  bool url_encode_partitions = true;
  /// The field whose larger value wins among records with the same key; empty means the
  /// latest write wins.
  std::string ordering_field;
  TableType table_type = TableType::kCopyOnWrite;
  /// Typed settings by key (see table_options.h); unknown keys are refused on create.
  std::map<std::string, std::string> properties;
  /// How record keys are encoded: Hudi's complex `f1:v1,f2:v2` or the bare value.
  enum class KeyEncoding {
    kByFieldCounts,  ///< complex with several key or partition fields, as Table::Create chooses
    kComplex,
    kPlain,
    kUnknown,  ///< the table cannot say (HUDI-7001: a version-8 COMPLEX key generator over one field)
  };
  /// Set from hoodie.properties when a table is opened; ignored by Table::Create.
  KeyEncoding record_key_encoding = KeyEncoding::kByFieldCounts;

  /// Whether record keys use the complex encoding; kUnsupportedFeature for kUnknown, saying
  /// which key the table needs.
  Result<bool> ComplexRecordKeys() const;

  /// The names of the blob columns (top-level fields of BlobType()).
  std::vector<std::string> BlobColumns() const;

  /// Checks the config: a schema whose types Hudi's Avro can hold, key fields present and of a
  /// primitive type, partition fields present and primitive, ordering field present and
  /// orderable, no field named like a meta column, known properties with valid values. Errors
  /// name the field and the problem.
  Status Validate() const;

};

}  // namespace lakeshore
