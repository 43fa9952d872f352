// The simple index: read the record keys of every live file group (its base file's key column,
// or its slice merged when it has log files: index/stored_keys.h) in the partitions an
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
  Result<KeyLocations> TagLocations(const KeysToTag& keys,
                                                               const FileSystemView& view,
                                                               Storage& storage, Engine& engine) override;
};

}  // namespace lakeshore
