#include "index/bloom_index.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>

#include <arrow/array.h>

#include "format/bloom_filter.h"
#include "index/key_lookup.h"
#include "io/base_file.h"
#include "table/meta_columns.h"

namespace lakeshore {
namespace {

/// A live file group whose key range holds some of the batch's keys.
struct Candidate {
  const FileGroup* group = nullptr;
  std::string partition;
  std::string file_name;
  std::vector<int64_t> rows;  ///< the batch's rows whose keys fall in the file's range
  std::vector<int64_t> passed;  ///< those its bloom filter let through (level 2)
};

constexpr const char* kFooterFilterKey = "org.apache.hudi.bloomfilter";
constexpr const char* kFooterTypeKey = "hoodie_bloom_filter_type_code";
/// Assumed size of a filter before any was loaded: Hudi's default DYNAMIC_V0 (60,000 keys at
/// 1e-9) takes about 320 KiB per row of filters.
constexpr int64_t kAssumedFilterBytes = 512 << 10;

}  // namespace

Result<KeyLocations> BloomIndex::TagLocations(const KeysToTag& keys,
                                                                         const FileSystemView& view,
                                                                         Storage& storage, Engine& engine) {
  StartMetrics(keys);
  ARROW_RETURN_NOT_OK(CheckKeysUnique(keys));
  const auto& record_keys = *keys.record_keys;
  KeyLocations out;
  out.file_ids.resize(record_keys.size());

  // Level 1: key ranges.
  std::map<std::string, std::vector<int64_t>> rows_by_partition;
  for (int64_t r : keys.rows) rows_by_partition[ScopeOf(keys, r)].push_back(r);
  std::vector<Candidate> candidates;
  for (auto& [partition, rows] : rows_by_partition) {
    std::sort(rows.begin(), rows.end(), [&](int64_t a, int64_t b) {
      return record_keys[static_cast<size_t>(a)] < record_keys[static_cast<size_t>(b)];
    });
    auto key_of = [&](int64_t r) { return record_keys[static_cast<size_t>(r)]; };
    const auto live = LiveGroupsIn(view, partition);
    metrics_.files_considered += static_cast<int64_t>(live.size());
    for (const FileGroup* group : live) {
      if (!group->latest().base_file) {
        // Records only in log files: no key range or filter; validated merged, or refused
        // (RowsStoredIn).
        Candidate c;
        c.group = group;
        c.partition = group->partition;
        c.rows = rows;
        candidates.push_back(std::move(c));
        continue;
      }
      const BaseFile& base = *group->latest().base_file;
      auto first = rows.begin(), last = rows.end();
      if (!base.min_record_key.empty() || !base.max_record_key.empty()) {  // empty: range unknown
        first = std::lower_bound(rows.begin(), rows.end(), std::string_view(base.min_record_key),
                                 [&](int64_t r, std::string_view k) { return key_of(r) < k; });
        last = std::upper_bound(first, rows.end(), std::string_view(base.max_record_key),
                                [&](std::string_view k, int64_t r) { return k < key_of(r); });
      }
      if (first == last) {
        ++metrics_.files_pruned_by_range;
        continue;
      }
      Candidate c;
      c.group = group;
      c.partition = group->partition;
      c.file_name = std::string(BaseName(base.path));
      c.rows.assign(first, last);
      candidates.push_back(std::move(c));
    }
  }

  // Level 2: bloom filters, in batches under the memory budget. The first bit positions of
  // every key are hashed once per filter shape and shared by all filters of that shape (with
  // random keys, every key meets every filter).
  int64_t filter_bytes = kAssumedFilterBytes;
  int64_t filters_seen = 0, filters_total_bytes = 0;
  std::map<std::pair<int32_t, int32_t>, std::vector<uint32_t>> prefixes;  // (hashes, bits) → per key
  size_t next = 0;
  while (next < candidates.size()) {
    const int64_t per_batch = std::max<int64_t>(1, settings_.filter_memory_bytes / std::max<int64_t>(1, filter_bytes));
    const size_t end = std::min(candidates.size(), next + static_cast<size_t>(per_batch));
    ++metrics_.filter_batches;
    std::map<std::pair<std::string, std::string>, std::pair<std::string, std::string>> from_metadata;
    if (settings_.metadata) {
      std::vector<std::pair<std::string, std::string>> files;
      for (size_t i = next; i < end; ++i) {
        if (!candidates[i].file_name.empty()) files.emplace_back(candidates[i].partition, candidates[i].file_name);
      }
      ARROW_ASSIGN_OR_RAISE(from_metadata, settings_.metadata->lookup(files));
    }
    std::vector<std::optional<format::BloomFilter>> filters(end - next);
    ARROW_ASSIGN_OR_RAISE(
        auto loaded, engine.Map<int64_t>(static_cast<int64_t>(end - next), [&](int64_t i) -> Result<int64_t> {
          Candidate& c = candidates[next + static_cast<size_t>(i)];
          if (!c.group->latest().base_file) {
            c.passed = c.rows;
            return int64_t{0};
          }
          const BaseFile& base = *c.group->latest().base_file;
          std::string serialized, type_code;
          auto found = from_metadata.find({c.partition, c.file_name});
          if (found != from_metadata.end()) {
            std::tie(serialized, type_code) = found->second;
          } else {
            ARROW_ASSIGN_OR_RAISE(auto footer, ReadBaseFileFooter(storage, base.path, base.size));
            auto filter = footer.key_value.find(kFooterFilterKey);
            if (filter != footer.key_value.end()) serialized = filter->second;
            auto type = footer.key_value.find(kFooterTypeKey);
            if (type != footer.key_value.end()) type_code = type->second;
          }
          if (serialized.empty()) {  // no filter: every candidate goes to validation
            c.passed = c.rows;
            return int64_t{0};
          }
          ARROW_ASSIGN_OR_RAISE(filters[static_cast<size_t>(i)],
                                format::BloomFilter::Deserialize(serialized, type_code, base.path));
          return static_cast<int64_t>(serialized.size());
        }));
    for (const auto& f : filters) {
      if (!f) continue;
      const std::pair<int32_t, int32_t> shape{f->num_hashes(), f->vector_size()};
      if (!prefixes.count(shape)) {
        prefixes[shape] = format::BloomFilter::ProbePrefixes(record_keys.data(), record_keys.size(), shape.first,
                                                             shape.second);
      }
    }
    ARROW_RETURN_NOT_OK(
        engine.Map<int64_t>(static_cast<int64_t>(end - next), [&](int64_t i) -> Result<int64_t> {
              const auto& filter = filters[static_cast<size_t>(i)];
              if (!filter) return int64_t{0};
              Candidate& c = candidates[next + static_cast<size_t>(i)];
              const auto& prefix = prefixes.at({filter->num_hashes(), filter->vector_size()});
              for (int64_t r : c.rows) {
                const auto row = static_cast<size_t>(r);
                if (filter->MightContain(record_keys[row], prefix.data() + row * format::BloomFilter::kProbePrefix)) {
                  c.passed.push_back(r);
                }
              }
              return int64_t{0};
            })
            .status());
    for (int64_t bytes : loaded) {
      if (bytes == 0) continue;
      ++metrics_.filters_loaded;
      ++filters_seen;
      filters_total_bytes += bytes * 3 / 4;  // Base64 → bytes
    }
    if (filters_seen > 0) filter_bytes = std::max<int64_t>(1, filters_total_bytes / filters_seen);
    next = end;
  }

  // Level 3: validation against the remaining files' key columns.
  std::vector<Candidate*> to_read;
  for (auto& c : candidates) {
    if (c.passed.empty()) {
      ++metrics_.files_pruned_by_bloom;
    } else {
      to_read.push_back(&c);
      metrics_.keys_checked += static_cast<int64_t>(c.passed.size());
    }
  }
  metrics_.files_read = static_cast<int64_t>(to_read.size());
  ARROW_ASSIGN_OR_RAISE(
      auto hits, engine.Map<std::vector<int64_t>>(
                     static_cast<int64_t>(to_read.size()), [&](int64_t i) -> Result<std::vector<int64_t>> {
                       const Candidate& c = *to_read[static_cast<size_t>(i)];
                       const KeyLookup wanted(record_keys, c.passed);
                       return RowsStoredIn(storage, *c.group, wanted, keys.merged_slice_keys);
                     }));
  for (size_t i = 0; i < to_read.size(); ++i) {
    metrics_.false_positives += static_cast<int64_t>(to_read[i]->passed.size() - hits[i].size());
    for (int64_t r : hits[i]) {
      ARROW_ASSIGN_OR_RAISE(int64_t row, RowTakingCopy(keys, r, to_read[i]->group->partition));
      if (row >= 0) out.Add(row, to_read[i]->group->file_id);
    }
  }
  ARROW_RETURN_NOT_OK(CheckDeletesFound(keys, out));
  FinishMetrics(out);
  return out;
}

}  // namespace lakeshore
