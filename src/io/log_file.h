// Internal: reading Hudi log files (the updates and deletes of a merge-on-read file slice) into
// Arrow record batches and delete keys, block by block.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <arrow/table.h>
#include <nlohmann/json.hpp>

#include "format/hfile.h"
#include "format/log_block.h"
#include "io/base_file.h"
#include "lakeshore/status.h"
#include "lakeshore/storage/storage.h"

namespace lakeshore {

/// One key deleted by a delete block.
struct LogDelete {
  std::string record_key;
  std::string partition_path;
  /// The ordering value the delete carries (a JSON scalar); null when it carries none.
  nlohmann::json ordering_value;
};

/// One decoded block of a log file.
struct LogFileBlock {
  format::LogBlockType type = format::LogBlockType::kCorrupt;
  std::string instant_time;         ///< the instant that wrote the block
  std::string target_instant_time;  ///< command blocks: the instant whose blocks it rolls back
  bool is_rollback = false;         ///< a command block of type ROLLBACK_BLOCK
  std::shared_ptr<arrow::Table> records;  ///< data blocks, in the block's own schema
  std::vector<LogDelete> deletes;         ///< delete blocks
  /// HFile data blocks (the metadata table's): each record's key and its Avro value decoded
  /// under the block's schema, in key order (ReadLogFile with decode_hfile).
  std::vector<std::pair<std::string, nlohmann::json>> keyed_records;
  /// HFile data blocks read raw (decode_hfile false): the block's HFile, for point lookups and
  /// scans of its undecoded values, and the block's schema (the values' Avro writer schema).
  std::shared_ptr<format::HFileReader> hfile;
  std::string hfile_schema;
};

/// Reads and decodes every block of the log file at `path`: Avro data blocks (records decoded
/// with the block's schema header), Parquet data blocks, HFile data blocks (an HFile whose
/// values are Avro records: keyed_records), delete blocks (format version 3: Avro
/// HoodieDeleteRecordList) and command blocks. Corrupt blocks come back as kCorrupt, for the
/// scanner to skip. A CDC data block, or a delete block written with Kryo (versions 1 and 2),
/// is kUnsupportedFeature naming the file; undecodable content is
/// kCorruptMetadata naming the file and the block. Cost: reads the whole file once.
Result<std::vector<LogFileBlock>> ReadLogFile(Storage& storage, const std::string& path, bool decode_hfile = true);

/// What one deltacommit writes to one file group: its records (upserts) and its deletes.
struct LogFileContent {
  std::string instant_time;
  /// The table's Avro schema with the meta fields: each block's SCHEMA header.
  std::string avro_schema;
  /// Rows in the table's full schema (meta columns first); null or empty: no data block.
  std::shared_ptr<arrow::Table> records;
  /// Keys deleted; empty: no delete block.
  std::vector<LogDelete> deletes;
};

/// What writing a log file produced.
struct WrittenLogFile {
  int64_t size = 0;
  /// The statistics of its records (LogFileColumnStats), from the data block's own Parquet
  /// metadata; empty when it holds no records.
  std::vector<format::FileColumnStats> column_stats;
};

/// Writes a new log file at `path` as Hudi 1.x does (format version 1): a Parquet data block
/// (HoodieParquetDataBlock, the rows encoded with `parquet`) and then a delete block (version 3,
/// an Avro HoodieDeleteRecordList; ordering values are written as absent, so a delete wins over
/// any earlier version), each with the INSTANT_TIME and SCHEMA headers. One mutating storage
/// call (the file appears whole). Invalid when there is nothing to write.
Result<WrittenLogFile> WriteLogFile(Storage& storage, const std::string& path, const LogFileContent& content,
                                    const ParquetWriteSettings& parquet);

/// The column statistics of the records of the log file at `path`, for the metadata table's
/// column_stats: defined when it holds one data block, with delete or corrupt blocks beside it
/// — a Parquet block's are its own (ParquetColumnStats, Hudi 1.x's blocks and ours), an Avro
/// block's (Spark's default) are computed from its decoded records, the same way for each
/// top-level primitive column. Empty — no entry, so a read never skips the file's slice — for
/// a file of deletes only, of several data blocks, or with command blocks. Cost: one read of
/// the file; an Avro block's records decoded. A file that is not a log file → kCorruptMetadata
/// naming it.
Result<std::vector<format::FileColumnStats>> LogFileColumnStats(Storage& storage, const std::string& path);

/// What one metadata-table deltacommit writes to one of its file groups: an HFile of keyed
/// Avro values (HoodieMetadataRecord) and the keys it deletes.
struct KeyedLogContent {
  std::string instant_time;
  /// The Avro schema of the HFile's values: the SCHEMA header of each block.
  std::string avro_schema;
  /// The bytes of an HFile (format/hfile_writer.h); empty: no data block.
  std::string hfile;
  /// Keys deleted; empty: no delete block.
  std::vector<LogDelete> deletes;
};

/// The bytes of a log file as Hudi's metadata table writer writes it: an HFile data block
/// (HoodieHFileDataBlock: the HFile bytes as the block's content), then a delete block as
/// WriteLogFile writes it, each with the INSTANT_TIME and SCHEMA headers. Invalid when there is
/// nothing to write.
Result<std::string> RenderKeyedLogFile(const KeyedLogContent& content);

}  // namespace lakeshore
