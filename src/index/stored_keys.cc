#include "index/stored_keys.h"

#include <algorithm>
#include <string_view>

#include <arrow/array.h>

#include "io/base_file.h"
#include "table/meta_columns.h"

namespace lakeshore {

std::vector<int64_t> RowsWithKeysIn(const arrow::ChunkedArray& keys, const KeyLookup& lookup) {
  std::vector<int64_t> found;
  constexpr size_t kBatch = 1024;
  std::string_view views[kBatch];
  int64_t rows_found[kBatch];
  for (const auto& chunk : keys.chunks()) {
    const auto& arr = static_cast<const arrow::StringArray&>(*chunk);
    size_t n = 0;
    auto flush = [&] {
      lookup.FindMany(views, n, rows_found);
      for (size_t j = 0; j < n; ++j)
        if (rows_found[j] >= 0) found.push_back(rows_found[j]);
      n = 0;
    };
    for (int64_t k = 0; k < arr.length(); ++k) {
      if (arr.IsNull(k)) continue;
      views[n++] = arr.GetView(k);
      if (n == kBatch) flush();
    }
    flush();
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

Result<std::vector<int64_t>> RowsStoredIn(Storage& storage, const FileGroup& group, const KeyLookup& lookup,
                                          const MergedSliceKeys& merged) {
  const FileSlice& slice = group.latest();
  std::shared_ptr<arrow::ChunkedArray> keys;
  std::string source;
  if ((!slice.log_files.empty() || !slice.base_file) && merged) {
    ARROW_ASSIGN_OR_RAISE(keys, merged(slice));
    source = "file slice " + group.file_id + "@" + slice.base_instant + " in partition '" + group.partition + "'";
  } else if (!slice.base_file) {
    return UnsupportedFeature("file group " + group.file_id + " in partition '" + group.partition +
                              "' has no base file (its records are only in log files), which this index cannot "
                              "locate records in; compact the table first");
  } else {
    const BaseFile& base = *slice.base_file;
    ARROW_ASSIGN_OR_RAISE(auto table, ReadBaseFile(storage, base.path, {meta_columns::kRecordKey}, base.size));
    if (table->num_columns() == 1) keys = table->column(0);
    source = "base file '" + base.path + "'";
  }
  if (keys == nullptr || keys->type()->id() != arrow::Type::STRING) {
    return CorruptMetadata(source + " has no string column " + meta_columns::kRecordKey);
  }
  return RowsWithKeysIn(*keys, lookup);
}

}  // namespace lakeshore
