// Which of a batch's record keys a file group holds: the key column of its latest base file,
// or, for a merge-on-read slice with log files, the keys live once its logs are merged.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <arrow/chunked_array.h>

#include "index/key_lookup.h"
#include "lakeshore/status.h"
#include "lakeshore/storage/storage.h"
#include "table/file_system_view.h"

namespace lakeshore {

/// The record keys live in `slice` once its log files are merged over its base file, as a
/// snapshot read merges them (deleted keys left out, keys only the logs hold included).
/// Supplied by the write path, which knows the table's merge rules; the index layer only calls
/// it.
using MergedSliceKeys = std::function<Result<std::shared_ptr<arrow::ChunkedArray>>(const FileSlice& slice)>;

/// The rows of `lookup` whose keys `keys` holds (nulls skipped), each once, in row order. A key
/// the column holds twice is reported once. Cost: one probe per stored key.
std::vector<int64_t> RowsWithKeysIn(const arrow::ChunkedArray& keys, const KeyLookup& lookup);

/// The rows of `lookup` whose keys file group `group` holds now: its latest slice merged by
/// `merged` when that slice has log files (or no base file) and `merged` is set; else its base
/// file's `_hoodie_record_key` column, read alone (kCorruptMetadata when it has none;
/// kUnsupportedFeature for a slice without a base file and no `merged`: its records are only
/// in log files). Cost: one key-column read, or one merged read of the slice.
Result<std::vector<int64_t>> RowsStoredIn(Storage& storage, const FileGroup& group, const KeyLookup& lookup,
                                          const MergedSliceKeys& merged);

}  // namespace lakeshore
