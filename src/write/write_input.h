// The input of a write, checked against the table and keyed.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <arrow/record_batch.h>
#include <arrow/table.h>

#include "lakeshore/table/table.h"
#include "lakeshore/table/table_config.h"
#include "table/partition_path.h"

namespace lakeshore {

/// An incoming batch, conformed to the table schema, with its keys and partition paths.
struct WriteInput {
  /// The user columns in table-schema order (for deletes: only key and partition fields).
  std::shared_ptr<arrow::Table> table;
  /// The record key of every row (utf8), and views into it.
  std::shared_ptr<arrow::ChunkedArray> key_column;
  std::vector<std::string_view> record_keys;
  PartitionedRows partitions;
  /// The rows that take part, in input order: all rows, or for upserts and deletes the one
  /// winner per (partition, key) — the largest ordering value, the last row on ties.
  std::vector<int64_t> rows;
  int64_t records_in = 0;
  /// In-memory bytes per input row: an upper bound of the stored size, used for file sizing
  /// while the table has no statistics.
  int64_t bytes_per_record = 0;
};

/// Reads the whole input and checks it: every table column present with the table's type (a
/// delete needs only the key and partition fields), no unknown columns, no nulls in a
/// non-nullable column, no null key, no blob referencing a file a vacuum of the table at
/// `table_root` may delete ("" skips that check). Errors are kSchemaMismatch naming the column.
Result<WriteInput> PrepareWriteInput(const TableConfig& config, WriteOperation op,
                                     const std::shared_ptr<arrow::RecordBatchReader>& reader,
                                     const std::string& table_root = "");

/// Stable ranks of `values` (nulls smallest, NaN above every number and -0.0 below 0.0 as
/// Java's Double.compareTo orders them; equal values rank by position), so that
/// comparing ranks compares values with ties broken by position.
Result<std::vector<int64_t>> StableRanks(const std::shared_ptr<arrow::ChunkedArray>& values);

}  // namespace lakeshore
