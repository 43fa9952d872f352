// The bloom index (RFC-37's three levels): range pruning by each file's key range, bloom filter
// probing with filters loaded in batches under a memory budget (from the base files' footers,
// or from the metadata table's bloom_filters partition), then validation that reads only the
// candidate files' key columns.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "index/index.h"

namespace lakeshore {

/// Where a bloom index gets a base file's filter: its serialized form (Base64 text) and type
/// code, or "" when the source has none for the file (its footer is read then).
struct BloomFilterSource {
  /// Looks up the filters of `files` (partition, file name) at once; missing ones are absent.
  std::function<Result<std::map<std::pair<std::string, std::string>, std::pair<std::string, std::string>>>(
      const std::vector<std::pair<std::string, std::string>>& files)>
      lookup;
};

struct BloomIndexSettings {
  /// Bytes of deserialized filters held at once; files are probed in batches that fit.
  int64_t filter_memory_bytes = 256LL << 20;
  /// The metadata table's bloom_filters partition (hoodie.bloom.index.use.metadata); null: the
  /// base files' footers.
  std::shared_ptr<BloomFilterSource> metadata;
};

/// Level 1: per partition, the batch's keys sorted once; a file whose [min, max] key range
/// (commit stats) holds none of them is pruned (a binary search per file: O(F log K)); the keys
/// in its range are its candidates. Level 2: the candidate files' filters, loaded in batches
/// under `filter_memory_bytes` and probed in parallel; a file none of whose candidates passes
/// is pruned. Level 3: the key columns of the remaining files only, read in parallel; a passed
/// candidate the file does not hold is a false positive. Must never miss a stored key: a file
/// without a filter (footer or metadata) goes straight to validation.
class BloomIndex : public Index {
 public:
  explicit BloomIndex(BloomIndexSettings settings, bool global = false)
      : Index(global), settings_(std::move(settings)) {}
  const char* name() const override {
    if (global()) return settings_.metadata ? "global_bloom_metadata" : "global_bloom";
    return settings_.metadata ? "bloom_metadata" : "bloom";
  }
  Result<KeyLocations> TagLocations(const KeysToTag& keys, const FileSystemView& view,
                                                               Storage& storage, Engine& engine) override;

 private:
  BloomIndexSettings settings_;
};

}  // namespace lakeshore
