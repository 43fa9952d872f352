// Record-location indexes: where does each incoming record already live?
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lakeshore/engine/engine.h"
#include "lakeshore/storage/storage.h"
#include "lakeshore/table/tagging_metrics.h"
#include "index/key_lookup.h"
#include "index/stored_keys.h"
#include "table/file_system_view.h"
#include "table/partition_path.h"

namespace lakeshore {

/// The keys to tag: parallel arrays, one entry per incoming record.
struct KeysToTag {
  const PartitionedRows* partitions = nullptr;
  const std::vector<std::string_view>* record_keys = nullptr;
  /// Indices into the arrays of the records to tag (others are left untagged).
  std::vector<int64_t> rows;
  /// True for a data instant whose metadata-table entries count (Hudi's valid-instants filter):
  /// what the record index reads through. Unused by the simple index.
  std::function<bool(const std::string&)> is_valid_data_instant;
  /// For a merge-on-read table: the keys live in a slice with log files, merged as reads merge
  /// them, so a key deleted there is not found and one only its logs hold is (RowsStoredIn).
  /// Null: the base files' keys count (copy-on-write). Unused by the record index.
  MergedSliceKeys merged_slice_keys;
  /// The rows are deletes: under a global index a key may come in several partitions (a row
  /// per stored copy, as LocateKeysToDelete finds them), and each row takes the copy in its own
  /// partition.
  bool deletes = false;
};

/// What tagging found of a batch's keys.
struct KeyLocations {
  /// For each row, the file id of the live file group of its scope that holds its key, or
  /// nullopt for a new record; indexed like the full arrays (rows not asked for stay nullopt).
  std::vector<std::optional<std::string>> file_ids;
  /// (row, file id) of each further live file group of the row's partition that holds the row's
  /// key: a key inserted twice (insert and bulk_insert store a repeated key again) can live in
  /// several. An update or a delete applies to each copy, as Hudi's simple and bloom indexes
  /// (a join of the batch's keys with the stored ones) tag every one.
  std::vector<std::pair<int64_t, std::string>> more_copies;

  /// Records that group `file_id` holds row `r`'s key.
  void Add(int64_t r, const std::string& file_id) {
    auto& tag = file_ids[static_cast<size_t>(r)];
    if (!tag) {
      tag = file_id;
    } else if (*tag != file_id) {
      more_copies.emplace_back(r, file_id);
    }
  }
};

/// A record-location index. Implementations: the simple index (reads the key column of the
/// candidate files) and the record index (the metadata table's key → location map).
class Index {
 public:
  virtual ~Index() = default;
  virtual const char* name() const = 0;

  /// For each row of `keys.rows`, the live file groups in the record's scope that hold its
  /// key (none for a new record). Must never miss a stored key, nor a stored copy of one.
  virtual Result<KeyLocations> TagLocations(
      const KeysToTag& keys, const FileSystemView& view, Storage& storage, Engine& engine) = 0;

  /// What the last TagLocations call did (index name, files pruned per level, filters loaded,
  /// candidates checked, false positives, files read).
  const TaggingMetrics& metrics() const { return metrics_; }

  /// A global index finds a key in any partition (a key lives in one partition: an incoming
  /// record whose key is stored in another partition is refused); a partitioned one looks in the
  /// record's own partition only.
  bool global() const { return global_; }

 protected:
  explicit Index(bool global = false) : global_(global) {}

  /// Where the index looks for row `r`'s key: its partition, or "" (every partition) when global.
  std::string ScopeOf(const KeysToTag& keys, int64_t r) const { return global_ ? std::string() : keys.partitions->PathOf(r); }
  /// The live file groups of a scope.
  std::vector<const FileGroup*> LiveGroupsIn(const FileSystemView& view, const std::string& scope) const {
    return global_ ? view.LiveFileGroups() : view.LiveFileGroupsIn(scope);
  }
  /// The row that takes a copy of row `r`'s key found in partition `stored`: `r` in its own
  /// partition. In another (a global index does not move records between partitions, nor
  /// store a key twice): kInvalid, except for deletes, where the copy goes to the row deleting
  /// the key in that partition (a key stored in several partitions: LocateKeysToDelete gave a
  /// row per copy), or to none (-1); a delete row whose key is found only elsewhere is refused by
  /// CheckDeletesFound.
  Result<int64_t> RowTakingCopy(const KeysToTag& keys, int64_t r, const std::string& stored) {
    if (stored == keys.partitions->PathOf(r)) return r;
    if (!keys.deletes) return ElsewhereError(keys, r, stored);
    if (delete_rows_.empty()) {
      for (int64_t d : keys.rows) delete_rows_.emplace(PartitionAndKey(keys.partitions->PathOf(d), keys, d), d);
    }
    auto other = delete_rows_.find(PartitionAndKey(stored, keys, r));
    if (other != delete_rows_.end()) return other->second;
    stored_elsewhere_.emplace_back(r, stored);
    return -1;
  }

  /// After tagging deletes: kInvalid (as RowTakingCopy for other writes) for a row whose key is
  /// stored, but not in the row's partition: found only elsewhere, or taken elsewhere by another
  /// row of the batch. O(rows).
  Status CheckDeletesFound(const KeysToTag& keys, const KeyLocations& found) const {
    if (!keys.deletes || !global_) return Status::OK();
    std::unordered_map<std::string_view, int64_t> found_row;  // a row of each found key
    for (int64_t r : keys.rows) {
      if (found.file_ids[static_cast<size_t>(r)]) found_row.emplace((*keys.record_keys)[static_cast<size_t>(r)], r);
    }
    for (const auto& [r, stored] : stored_elsewhere_) {
      if (!found.file_ids[static_cast<size_t>(r)]) return ElsewhereError(keys, r, stored);
    }
    for (int64_t r : keys.rows) {
      if (found.file_ids[static_cast<size_t>(r)]) continue;
      auto other = found_row.find((*keys.record_keys)[static_cast<size_t>(r)]);
      if (other != found_row.end()) return ElsewhereError(keys, r, keys.partitions->PathOf(other->second));
    }
    return Status::OK();
  }

  /// For a global index: kInvalid when two rows carry one key (in different partitions: the key
  /// would be stored twice). Deletes may (CheckDeletesFound).
  Status CheckKeysUnique(const KeysToTag& keys) const {
    if (!global_ || keys.deletes) return Status::OK();
    // The lookup keeps the first row of each key: a row that finds another has a twin.
    const KeyLookup first_of(*keys.record_keys, keys.rows);
    constexpr size_t kBatch = 1024;
    std::string_view views[kBatch];
    int64_t found[kBatch];
    for (size_t start = 0; start < keys.rows.size(); start += kBatch) {
      const size_t n = std::min(kBatch, keys.rows.size() - start);
      for (size_t j = 0; j < n; ++j) views[j] = (*keys.record_keys)[static_cast<size_t>(keys.rows[start + j])];
      first_of.FindMany(views, n, found);
      for (size_t j = 0; j < n; ++j) {
        const int64_t r = keys.rows[start + j];
        if (found[j] == r) continue;
        const std::string& first = keys.partitions->PathOf(found[j]);
        if (first == keys.partitions->PathOf(r)) {  // an insert's batch (an upsert's is combined)
          return Status::Invalid("record key '", views[j], "' comes twice in partition '", first,
                                 "' of one write; the ", name(), " index keeps one copy of a key");
        }
        return Status::Invalid("record key '", views[j], "' comes in partitions '", first, "' and '",
                               keys.partitions->PathOf(r), "' of one write; the ", name(),
                               " index is global (a key lives in one partition)");
      }
    }
    return Status::OK();
  }

  /// Starts the metrics of a TagLocations call over `keys`.
  void StartMetrics(const KeysToTag& keys) {
    stored_elsewhere_.clear();
    delete_rows_.clear();
    metrics_ = TaggingMetrics{};
    metrics_.index = name();
    metrics_.keys = static_cast<int64_t>(keys.rows.size());
    started_ = std::chrono::steady_clock::now();
  }
  /// Ends them: the keys `found` holds, the time since StartMetrics.
  void FinishMetrics(const KeyLocations& found) {
    metrics_.found = 0;
    for (const auto& tag : found.file_ids) metrics_.found += tag.has_value();
    metrics_.duration_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started_).count();
  }

  TaggingMetrics metrics_;

 private:
  Status ElsewhereError(const KeysToTag& keys, int64_t r, const std::string& stored) const {
    return Status::Invalid("record key '", (*keys.record_keys)[static_cast<size_t>(r)], "' is stored in partition '",
                           stored, "', and this write puts it in partition '", keys.partitions->PathOf(r), "'; the ",
                           name(),
                           " index is global (a key lives in one partition): to move it, delete it there first; to "
                           "delete it, name that partition or give the key alone");
  }

  static std::string PartitionAndKey(const std::string& partition, const KeysToTag& keys, int64_t r) {
    std::string out = partition;
    out.push_back('\0');
    out.append((*keys.record_keys)[static_cast<size_t>(r)]);
    return out;
  }

  bool global_ = false;
  /// (row, partition) of each copy a delete row's key has outside the row's partition that no
  /// delete row of that partition takes.
  std::vector<std::pair<int64_t, std::string>> stored_elsewhere_;
  /// Deletes: the row of each (partition, key), built when a copy is found elsewhere.
  std::unordered_map<std::string, int64_t> delete_rows_;
  std::chrono::steady_clock::time_point started_;
};

/// The index named by `hoodie.index.type` (SIMPLE, RECORD_INDEX; upper case).
Result<std::unique_ptr<Index>> MakeIndex(const std::string& type);

}  // namespace lakeshore
