// Record-location indexes: where does each incoming record already live?
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lakeshore/engine/engine.h"
#include "lakeshore/storage/storage.h"
#include "lakeshore/table/tagging_metrics.h"
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
};

/// A record-location index. Implementations: the simple index (reads the key column of the
/// candidate files) and the record index (the metadata table's key → location map).
class Index {
 public:
  virtual ~Index() = default;
  virtual const char* name() const = 0;

  /// For each row of `keys.rows`, the file id of the live file group in the record's
  /// partition that holds its key, or nullopt for a new record. The result is indexed like
  /// the full arrays (rows not asked for stay nullopt). Must never miss a stored key.
  virtual Result<std::vector<std::optional<std::string>>> TagLocations(
      const KeysToTag& keys, const FileSystemView& view, Storage& storage, Engine& engine) = 0;

  /// What the last TagLocations call did (index name, files pruned per level, filters loaded,
  /// candidates checked, false positives, files read).
  const TaggingMetrics& metrics() const { return metrics_; }

 protected:
  /// Starts the metrics of a TagLocations call over `keys`.
  void StartMetrics(const KeysToTag& keys) {
    metrics_ = TaggingMetrics{};
    metrics_.index = name();
    metrics_.keys = static_cast<int64_t>(keys.rows.size());
    started_ = std::chrono::steady_clock::now();
  }
  /// Ends them: the keys `tags` found, the time since StartMetrics.
  void FinishMetrics(const std::vector<std::optional<std::string>>& tags) {
    metrics_.found = 0;
    for (const auto& tag : tags) metrics_.found += tag.has_value();
    metrics_.duration_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started_).count();
  }

  TaggingMetrics metrics_;

 private:
  std::chrono::steady_clock::time_point started_;
};

/// The index named by `hoodie.index.type` (SIMPLE, RECORD_INDEX; upper case).
Result<std::unique_ptr<Index>> MakeIndex(const std::string& type);

}  // namespace lakeshore
