// Base files: Parquet files of meta columns plus user columns, readable by any Parquet tool.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <arrow/table.h>

#include "lakeshore/storage/storage.h"

namespace lakeshore {

/// How base files are encoded.
struct ParquetWriteSettings {
  int64_t row_group_rows = 1 << 20;
  std::string compression = "snappy";
};

/// What writing a base file produced.
struct BaseFileWriteResult {
  int64_t size = 0;
  int64_t num_records = 0;
  std::string min_record_key;
  std::string max_record_key;
};

/// Writes `rows` (meta columns first, then the user columns) as one Parquet file at `path`
/// with the Arrow schema stored, so every type round-trips. One mutating storage call.
Result<BaseFileWriteResult> WriteBaseFile(Storage& storage, const std::string& path,
                                          const arrow::Table& rows,
                                          const ParquetWriteSettings& settings);

/// The Arrow schema of a base file, from its footer alone.
Result<std::shared_ptr<arrow::Schema>> ReadBaseFileSchema(Storage& storage, const std::string& path,
                                                          std::optional<int64_t> size_hint = std::nullopt);

/// Reads the named columns (empty: all) of a base file. Cost: the footer plus the column
/// chunks of the named columns.
Result<std::shared_ptr<arrow::Table>> ReadBaseFile(Storage& storage, const std::string& path,
                                                   const std::vector<std::string>& columns = {},
                                                   std::optional<int64_t> size_hint = std::nullopt);

}  // namespace lakeshore
