// Base files: Parquet files of meta columns plus user columns, readable by any Parquet tool.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <arrow/buffer.h>
#include <arrow/scalar.h>
#include <arrow/table.h>
#include <parquet/properties.h>

#include "format/metadata_record.h"
#include "lakeshore/storage/storage.h"

namespace parquet {
class FileMetaData;
}  // namespace parquet

namespace lakeshore {

/// How base files are encoded.
struct ParquetWriteSettings {
  int64_t row_group_rows = 1 << 20;
  std::string compression = "snappy";
  /// The file's Avro schema with the meta fields, for the footer's `parquet.avro.schema` (Hudi
  /// and parquet-avro readers take it from there); "" writes none.
  std::string avro_schema;
  /// Hudi's record-key bloom filter (DYNAMIC_V0, Hudi's defaults) in the footer.
  bool bloom_filter = true;
  /// Whether one file's work is spread over the cores: its columns encoded side by side on
  /// Arrow's CPU pool, its bloom filter hashed on several threads. Side-by-side columns hold the
  /// whole row group in memory until it is complete (growing buffers, then one copy to the
  /// file). When as many files are written at once as there are cores, the files keep the cores
  /// busy: false streams each page to the file as it is encoded and hashes on one thread.
  bool parallel_within_file = true;
};

/// `settings` for one of `files` base files written by an engine of `parallelism` workers: a
/// file's work is spread over the cores only while fewer files are written at once than there
/// are cores (see `parallel_within_file`). The one rule the writes, compaction and clustering
/// follow.
ParquetWriteSettings ForFilesAtOnce(ParquetWriteSettings settings, int64_t files, int parallelism);

/// What writing a base file produced.
struct BaseFileWriteResult {
  int64_t size = 0;
  int64_t num_records = 0;
  std::string min_record_key;
  std::string max_record_key;
};

/// Writes `rows` (meta columns first, then the user columns) as one Parquet file at `path`, with
/// the footer Hudi writes: `hoodie_min_record_key` / `hoodie_max_record_key`, the bloom filter
/// of the record keys (`org.apache.hudi.bloomfilter`, `hoodie_bloom_filter_type_code`) and
/// `parquet.avro.schema`. No Arrow schema is stored: every reader (hudi-rs, Spark, DuckDB, this
/// one) sees the Parquet types, so dictionary-typed meta columns read back as utf8. One
/// mutating storage call.
Result<BaseFileWriteResult> WriteBaseFile(Storage& storage, const std::string& path,
                                          const arrow::Table& rows,
                                          const ParquetWriteSettings& settings);

/// A log file's Parquet data block, encoded.
struct EncodedDataBlock {
  std::shared_ptr<arrow::Buffer> bytes;
  /// Its columns' statistics (ParquetColumnStats), from the metadata the writer closed it with.
  std::vector<format::FileColumnStats> column_stats;
};

/// `rows` encoded as WriteBaseFile encodes them, in memory, with only the Avro schema in the
/// footer: the content of a log file's Parquet data block (HoodieParquetDataBlock).
Result<EncodedDataBlock> EncodeParquetDataBlock(const arrow::Table& rows, const ParquetWriteSettings& settings);

/// The reader properties every Parquet read of table data uses (base files and log files'
/// Parquet data blocks): pages that carry a CRC (parquet-mr writes them, so Spark's files do)
/// are verified, so a flipped byte in a page reads as damage, not as other values.
parquet::ReaderProperties DataReaderProperties();

/// The Arrow schema of a base file, from its footer alone.
Result<std::shared_ptr<arrow::Schema>> ReadBaseFileSchema(Storage& storage, const std::string& path,
                                                          std::optional<int64_t> size_hint = std::nullopt);

/// A base file's Parquet footer: its row count and key-value metadata (Hudi's
/// `hoodie_min_record_key`, `hoodie_max_record_key`, `org.apache.hudi.bloomfilter`,
/// `hoodie_bloom_filter_type_code`, `parquet.avro.schema`).
struct BaseFileFooter {
  int64_t num_rows = 0;
  std::map<std::string, std::string> key_value;
  /// Statistics of each top-level primitive column (ParquetColumnStats).
  std::vector<format::FileColumnStats> columns;
};

/// Statistics of each top-level primitive column of a Parquet file (nested ones are left out),
/// over its row groups, from its metadata alone: min and max (absent when a row group has none,
/// or every value is null), nulls, values, and the column chunks' sizes. One extraction serves
/// base files and the Parquet data blocks of log files, so both index alike. Statistics that do
/// not decode → kCorruptMetadata naming `source`.
Result<std::vector<format::FileColumnStats>> ParquetColumnStats(const parquet::FileMetaData& metadata,
                                                                const std::string& source);

/// Reads the footer of a base file only. A file that is not Parquet → kCorruptMetadata naming
/// it. Cost: the footer's bytes (one or two range reads).
Result<BaseFileFooter> ReadBaseFileFooter(Storage& storage, const std::string& path,
                                          std::optional<int64_t> size_hint = std::nullopt);

/// `table` with the columns of `schema`, by name: cast where the types differ, nulls where a
/// column is missing. Invalid (naming the column and `source`) when a cast is impossible or
/// changes a value (CastColumnKeepingValues: keys to delete or look up must name exactly what
/// they name; a file read under a widened schema always passes, at the cost of one cast back).
/// A float column under a double field widens as Hudi widens it (FloatAsDouble: 0.1f reads 0.1).
Result<std::shared_ptr<arrow::Table>> ConformToSchema(const std::shared_ptr<arrow::Table>& table,
                                                      const std::shared_ptr<arrow::Schema>& schema,
                                                      const std::string& source);

/// Reads the named columns (empty: all) of a base file. A named column the file does not have
/// is Invalid, or with `missing_ok` left out (a file written before a schema evolution added it:
/// the caller conforms the result; when none is there, a table of no columns and the file's
/// row count). Cost: the footer plus the column chunks of the named columns.
Result<std::shared_ptr<arrow::Table>> ReadBaseFile(Storage& storage, const std::string& path,
                                                   const std::vector<std::string>& columns = {},
                                                   std::optional<int64_t> size_hint = std::nullopt,
                                                   bool missing_ok = false);

}  // namespace lakeshore
