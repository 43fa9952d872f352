// The record index: the metadata table's record_index partition (record key → partition and
// file group), looked up directly.
#pragma once

#include "index/index.h"

namespace lakeshore {

/// Cost: the record index file groups the batch's keys hash to — their log files, and the
/// blocks of their base HFiles that hold the keys (one sorted forward pass per group) —,
/// whatever the size of the data table. Global, as Hudi's: a key lives in one partition; an
/// incoming record whose key the index places in another partition is refused (kInvalid naming
/// both), never written twice. The caller makes sure the record index is built.
class RecordIndex : public Index {
 public:
  const char* name() const override { return "record_index"; }
  Result<KeyLocations> TagLocations(const KeysToTag& keys, const FileSystemView& view,
                                                               Storage& storage, Engine& engine) override;
  /// Tagging needs the table's storage as a shared pointer (the metadata table is a sub-tree).
  explicit RecordIndex(std::shared_ptr<Storage> table) : Index(/*global=*/true), table_(std::move(table)) {}

 private:
  std::shared_ptr<Storage> table_;
};

}  // namespace lakeshore
