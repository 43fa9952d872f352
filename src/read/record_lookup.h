// Where records live: record keys → (partition, file id), answered by the metadata table's
// record index when the table has one, else by the latest snapshot's meta columns.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>

#include <arrow/record_batch.h>
#include <arrow/table.h>

#include "actions/table_context.h"
#include "common/path_set.h"

namespace lakeshore {

/// Where a stored record is.
struct StoredLocation {
  std::string partition;
  std::string file_id;
};

/// Record key → location; looked up by std::string_view without building a string.
using StoredLocations = std::unordered_map<std::string, StoredLocation, TransparentStringHash, std::equal_to<>>;

/// Every row of `table` → its location, from the key, partition and file-name meta columns (a
/// log record names its file id; a base record its file). Of a key stored in two file groups
/// (an insert that repeated it, or a partitioned index that let it into two partitions), the
/// one read last; with `refuse_twins` such a key is kInvalid instead, naming both places of
/// table `uri` (the record index and secondary indexes keep one place per key and cannot be
/// built over it). A missing meta column is kInvalid.
Result<StoredLocations> RecordLocationsOf(const arrow::Table& table, bool refuse_twins, const std::string& uri);

/// RecordLocationsOf the latest snapshot (its key, partition and file-name columns); with
/// `only_keys` (record keys), of the rows holding those keys alone, each file filtered as it is
/// read (a lookup of a few keys holds them, not the table's every key).
Result<StoredLocations> ScanRecordLocations(TableContext& ctx, bool refuse_twins = false,
                                            const std::shared_ptr<arrow::Array>& only_keys = nullptr);

/// Table::Lookup. The record index is used when hoodie.table.metadata.partitions lists
/// record_index; its entries count only for data instants that completed (and the metadata
/// table's own bootstrap instants, older than every instant on the data timeline). Cost: the
/// record index file groups the keys hash to (their logs, and the base file blocks holding the
/// keys), or the snapshot's key, partition and file columns (scan); then one hash lookup per key.
Result<std::shared_ptr<arrow::Table>> LookupRecords(TableContext& ctx,
                                                    const std::shared_ptr<arrow::RecordBatchReader>& keys);

}  // namespace lakeshore
