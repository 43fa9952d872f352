// The simple index: read the record-key column of every live base file in the partitions an
// incoming batch touches.
#pragma once

#include "index/index.h"

namespace lakeshore {

/// Cost: one key-column read per live file group in the touched partitions, in parallel;
/// files whose [min, max] key range (from commit stats) holds none of the batch's keys in that
/// partition are skipped without being opened.
class SimpleIndex : public Index {
 public:
  explicit SimpleIndex(bool global = false) : Index(global) {}
  const char* name() const override { return global() ? "global_simple" : "simple"; }
  Result<std::vector<std::optional<std::string>>> TagLocations(const KeysToTag& keys,
                                                               const FileSystemView& view,
                                                               Storage& storage, Engine& engine) override;
};

/// The rows of `lookup` whose keys base file `base` stores, each once, in row order: its
/// `_hoodie_record_key` column read alone (kCorruptMetadata when it has none). Cost: one
/// key-column read and one probe per stored key. The simple index's probe, and the commit's
/// check that a write's new keys were not stored meanwhile.
Result<std::vector<int64_t>> RowsStoredIn(Storage& storage, const BaseFile& base, const KeyLookup& lookup);

}  // namespace lakeshore
