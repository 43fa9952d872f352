#include "index/simple_index.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <unordered_map>

#include <arrow/array.h>

#include "index/key_lookup.h"
#include "index/stored_keys.h"

namespace lakeshore {

Result<KeyLocations> SimpleIndex::TagLocations(
    const KeysToTag& keys, const FileSystemView& view, Storage& storage, Engine& engine) {
  const auto& record_keys = *keys.record_keys;
  KeyLocations out;
  out.file_ids.resize(record_keys.size());
  StartMetrics(keys);
  ARROW_RETURN_NOT_OK(CheckKeysUnique(keys));

  // Incoming rows by partition.
  std::map<std::string, std::vector<int64_t>> rows_by_partition;
  for (int64_t r : keys.rows) rows_by_partition[ScopeOf(keys, r)].push_back(r);

  // Per partition: a lookup from key to row, built once over the smaller side (the incoming
  // batch, not the stored files) and shared read-only by the probes of that partition.
  struct Probe {
    const FileGroup* group;
    const KeyLookup* keys;
  };
  std::vector<Probe> probes;
  std::map<std::string, KeyLookup> by_partition;
  for (auto& [partition, rows] : rows_by_partition) {
    const KeyLookup& lookup =
        by_partition.try_emplace(partition, record_keys, rows).first->second;  // keys are unique per partition
    // Files whose key range (from the commit stats) misses the batch's are skipped: first by the
    // batch's own range; when many files remain, by the sorted keys (a key inside each range).
    std::string_view lo = record_keys[rows.front()], hi = lo;
    for (int64_t r : rows) {
      lo = std::min(lo, record_keys[r]);
      hi = std::max(hi, record_keys[r]);
    }
    std::vector<const FileGroup*> candidates;
    const auto live = LiveGroupsIn(view, partition);
    metrics_.files_considered += static_cast<int64_t>(live.size());
    for (const FileGroup* group : live) {
      if (!group->latest().base_file) {
        // Records only in log files (a log-only slice, as a record-level or bucket index writes
        // them): read merged when the table's merge is known, else refused (RowsStoredIn).
        candidates.push_back(group);
        continue;
      }
      const auto& base = *group->latest().base_file;
      const bool known = !base.min_record_key.empty() || !base.max_record_key.empty();  // empty: unknown
      if (known && (hi < std::string_view(base.min_record_key) || lo > std::string_view(base.max_record_key))) continue;
      candidates.push_back(group);
    }
    constexpr size_t kSortAbove = 8;  // a sort of the batch costs about as much as reading this many key columns
    if (candidates.size() > kSortAbove) {
      std::vector<std::string_view> sorted;
      sorted.reserve(rows.size());
      for (int64_t r : rows) sorted.push_back(record_keys[r]);
      std::sort(sorted.begin(), sorted.end());
      std::vector<const FileGroup*> kept;
      for (const FileGroup* group : candidates) {
        if (!group->latest().base_file) {
          kept.push_back(group);
          continue;
        }
        const auto& base = *group->latest().base_file;
        if (!base.min_record_key.empty() || !base.max_record_key.empty()) {
          auto it = std::lower_bound(sorted.begin(), sorted.end(), std::string_view(base.min_record_key));
          if (it == sorted.end() || *it > std::string_view(base.max_record_key)) continue;
        }
        kept.push_back(group);
      }
      candidates = std::move(kept);
    }
    for (const FileGroup* group : candidates) probes.push_back({group, &lookup});
  }
  metrics_.files_pruned_by_range = metrics_.files_considered - static_cast<int64_t>(probes.size());
  metrics_.files_read = static_cast<int64_t>(probes.size());

  // Each probe reads one key column and reports the rows whose key it holds.
  ARROW_ASSIGN_OR_RAISE(
      auto hits, engine.Map<std::vector<int64_t>>(
                     static_cast<int64_t>(probes.size()), [&](int64_t i) -> Result<std::vector<int64_t>> {
                       const Probe& probe = probes[static_cast<size_t>(i)];
                       return RowsStoredIn(storage, *probe.group, *probe.keys, keys.merged_slice_keys);
                     }));
  for (size_t i = 0; i < probes.size(); ++i) {
    for (int64_t r : hits[i]) {
      ARROW_ASSIGN_OR_RAISE(int64_t row, RowTakingCopy(keys, r, probes[i].group->partition));
      if (row >= 0) out.Add(row, probes[i].group->file_id);
    }
  }
  ARROW_RETURN_NOT_OK(CheckDeletesFound(keys, out));
  FinishMetrics(out);
  return out;
}

}  // namespace lakeshore
