#include "index/simple_index.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include <arrow/array.h>

#include "io/base_file.h"
#include "table/meta_columns.h"

namespace lakeshore {

Result<std::unique_ptr<Index>> MakeIndex(const std::string& type) {
  if (type == "simple") return std::unique_ptr<Index>(std::make_unique<SimpleIndex>());
  return Status::Invalid("unknown index type '", type, "'");
}

Result<std::vector<std::optional<std::string>>> SimpleIndex::TagLocations(
    const KeysToTag& keys, const FileSystemView& view, Storage& storage, Engine& engine) {
  const auto& partitions = *keys.partitions;
  const auto& record_keys = *keys.record_keys;
  std::vector<std::optional<std::string>> out(record_keys.size());

  // Incoming rows by partition, with their keys sorted for range pruning.
  std::map<std::string, std::vector<int64_t>> rows_by_partition;
  for (int64_t r : keys.rows) rows_by_partition[partitions.PathOf(r)].push_back(r);

  struct Probe {
    const FileGroup* group;
    const std::vector<int64_t>* rows;
  };
  std::vector<Probe> probes;
  std::map<std::string, std::vector<std::string_view>> sorted_keys;
  for (auto& [partition, rows] : rows_by_partition) {
    auto& sorted = sorted_keys[partition];
    for (int64_t r : rows) sorted.emplace_back(record_keys[r]);
    std::sort(sorted.begin(), sorted.end());
    for (const FileGroup* group : view.LiveFileGroupsIn(partition)) {
      const auto& base = *group->latest().base_file;
      // Skip files whose key range holds none of the incoming keys (empty range: unknown).
      if (!base.min_record_key.empty() || !base.max_record_key.empty()) {
        auto it = std::lower_bound(sorted.begin(), sorted.end(), std::string_view(base.min_record_key));
        if (it == sorted.end() || *it > std::string_view(base.max_record_key)) continue;
      }
      probes.push_back({group, &rows});
    }
  }

  // Each probe reads one key column and reports the rows whose key it holds.
  ARROW_ASSIGN_OR_RAISE(
      auto hits, engine.Map<std::vector<int64_t>>(
                     static_cast<int64_t>(probes.size()), [&](int64_t i) -> Result<std::vector<int64_t>> {
                       const Probe& probe = probes[static_cast<size_t>(i)];
                       const auto& base = *probe.group->latest().base_file;
                       ARROW_ASSIGN_OR_RAISE(auto table, ReadBaseFile(storage, base.path,
                                                                      {meta_columns::kRecordKey}, base.size));
                       if (table->num_columns() != 1 || table->column(0)->type()->id() != arrow::Type::STRING) {
                         return CorruptMetadata("base file '" + base.path + "' has no string column " +
                                                meta_columns::kRecordKey);
                       }
                       std::unordered_map<std::string_view, bool> stored;
                       stored.reserve(static_cast<size_t>(table->num_rows()));
                       for (const auto& chunk : table->column(0)->chunks()) {
                         const auto& arr = static_cast<const arrow::StringArray&>(*chunk);
                         for (int64_t k = 0; k < arr.length(); ++k) stored.emplace(arr.GetView(k), true);
                       }
                       std::vector<int64_t> found;
                       for (int64_t r : *probe.rows)
                         if (stored.count(record_keys[r]) > 0) found.push_back(r);
                       return found;
                     }));
  for (size_t i = 0; i < probes.size(); ++i)
    for (int64_t r : hits[i]) out[r] = probes[i].group->file_id;
  return out;
}

}  // namespace lakeshore
