#include "read/column_stats_pruning.h"

#include <algorithm>
#include <map>
#include <set>

#include "format/metadata_keys.h"
#include "format/metadata_record.h"
#include "io/metadata_files.h"
#include "table/hoodie_table_config.h"
#include "table/meta_columns.h"

namespace lakeshore {
namespace {
/// The metadata partitions read here (services/metadata writes column_stats; Spark's writer
/// partition_stats).
constexpr const char* kColumnStatsPartition = "column_stats";
constexpr const char* kPartitionStatsPartition = "partition_stats";

/// The statistics `records` hold for the filter's columns under `keys[*k]`, `keys[*k + 1]`, …
/// (one key per filtered column, in `filter.columns()` order), moving `*k` past them.
std::map<std::string, format::ColumnStatsValue> StatsAt(const TableContext& ctx,
                                                        const std::map<std::string, nlohmann::json>& records,
                                                        const std::vector<std::string>& keys, const RowFilter& filter,
                                                        size_t* k) {
  std::map<std::string, format::ColumnStatsValue> stats;
  for (const auto& column : filter.columns()) {
    auto record = records.find(keys[(*k)++]);
    auto field = ctx.full_schema->GetFieldByName(column);
    if (record == records.end() || field == nullptr) continue;
    if (auto value = format::ColumnStatsFromRecord(record->second, *field->type())) stats.emplace(column, *value);
  }
  return stats;
}

/// `groups` without those of the partitions partition_stats rules out.
Result<std::vector<const FileGroup*>> PruneByPartitionStats(TableContext& ctx, const Timeline& timeline,
                                                            const std::vector<const FileGroup*>& groups,
                                                            const RowFilter& filter, ColumnStatsPruning* pruning) {
  std::set<std::string> partitions;
  for (const FileGroup* g : groups) partitions.insert(g->partition);
  std::vector<std::string> keys;
  for (const auto& partition : partitions) {
    for (const auto& column : filter.columns()) keys.push_back(format::PartitionStatsIndexKey(partition, column));
  }
  ARROW_ASSIGN_OR_RAISE(auto records, ReadMetadataRecords(ctx.storage, *ctx.engine, kPartitionStatsPartition,
                                                          ValidDataInstants(timeline), &keys));
  std::set<std::string> ruled_out;
  size_t k = 0;
  for (const auto& partition : partitions) {
    if (!filter.MayMatch(StatsAt(ctx, records, keys, filter, &k))) ruled_out.insert(partition);
  }
  pruning->partitions_pruned = static_cast<int64_t>(ruled_out.size());
  std::vector<const FileGroup*> kept;
  for (const FileGroup* g : groups) {
    if (ruled_out.count(g->partition)) {
      ++pruning->groups_pruned;
    } else {
      kept.push_back(g);
    }
  }
  return kept;
}
}  // namespace

std::string ColumnStatsPruning::PrunedBy() const {
  std::string out;
  for (const auto& [on, name] : {std::pair<bool, const char*>{used_key_range, "key_range"},
                                 {used_partition_stats, kPartitionStatsPartition},
                                 {used, kColumnStatsPartition}}) {
    if (!on) continue;
    if (!out.empty()) out += ",";
    out += name;
  }
  return out.empty() ? "none" : out;
}

namespace {
/// The groups of `groups` whose rows may match `filter` by their base file's record key range
/// alone (see PruneByColumnStats); counts the skipped ones in `pruning`.
std::vector<const FileGroup*> PruneByKeyRange(const std::vector<const FileGroup*>& groups, const RowFilter& filter,
                                              bool read_optimized, ColumnStatsPruning* pruning) {
  const auto& columns = filter.columns();
  if (std::find(columns.begin(), columns.end(), meta_columns::kRecordKey) == columns.end()) return groups;
  pruning->used_key_range = true;
  std::vector<const FileGroup*> kept;
  kept.reserve(groups.size());
  for (const FileGroup* group : groups) {
    const FileSlice& slice = group->latest();
    const bool base_alone = slice.base_file && (read_optimized || slice.log_files.empty());
    if (base_alone && !slice.base_file->min_record_key.empty() && !slice.base_file->max_record_key.empty()) {
      // Byte order (Arrow's string comparison), as the bloom and simple indexes compare keys
      // with these ranges.
      format::ColumnStatsValue range;
      range.min = std::make_shared<arrow::StringScalar>(slice.base_file->min_record_key);
      range.max = std::make_shared<arrow::StringScalar>(slice.base_file->max_record_key);
      range.value_count = slice.base_file->num_records;
      if (!filter.MayMatch({{meta_columns::kRecordKey, range}})) {
        ++pruning->groups_pruned;
        continue;
      }
    }
    kept.push_back(group);
  }
  return kept;
}
}  // namespace

Result<std::vector<const FileGroup*>> PruneByColumnStats(TableContext& ctx, const Timeline& timeline,
                                                         const std::vector<const FileGroup*>& all_groups,
                                                         const RowFilter& filter, bool read_optimized, bool latest,
                                                         ColumnStatsPruning* pruning) {
  *pruning = ColumnStatsPruning{};
  pruning->groups_in = static_cast<int64_t>(all_groups.size());
  if (filter.empty() || all_groups.empty()) return all_groups;
  std::vector<const FileGroup*> groups = PruneByKeyRange(all_groups, filter, read_optimized, pruning);
  if (groups.empty()) return groups;
  ARROW_ASSIGN_OR_RAISE(auto config, HoodieTableConfig::Load(*ctx.storage));
  if (latest && config.HasMetadataPartition(kPartitionStatsPartition)) {
    pruning->used_partition_stats = true;
    ARROW_ASSIGN_OR_RAISE(groups, PruneByPartitionStats(ctx, timeline, groups, filter, pruning));
  }
  if (!config.HasMetadataPartition(kColumnStatsPartition) || groups.empty()) return groups;
  pruning->used = true;
  // The files each group's read opens: its base file, and its log files unless read-optimized.
  std::vector<std::vector<std::string>> names(groups.size());
  std::vector<std::string> keys;
  for (size_t g = 0; g < groups.size(); ++g) {
    const FileSlice& slice = groups[g]->latest();
    if (slice.base_file) names[g].emplace_back(BaseName(slice.base_file->path));
    if (!read_optimized) {
      for (const auto& log : slice.log_files) names[g].emplace_back(BaseName(log));
    }
    for (const auto& name : names[g]) {
      for (const auto& column : filter.columns()) {
        keys.push_back(format::ColumnStatsIndexKey(groups[g]->partition, name, column));
      }
    }
  }
  if (keys.empty()) return groups;
  ARROW_ASSIGN_OR_RAISE(auto records, ReadMetadataRecords(ctx.storage, *ctx.engine, kColumnStatsPartition,
                                                          ValidDataInstants(timeline), &keys));
  // A group is skipped when no file of it may hold a match: every row a slice's read returns is
  // one whole record of one of its files (merging picks records, never mixes their fields), and
  // deletes only take rows away. A file without entries may hold anything.
  std::vector<bool> skip(groups.size(), false);
  size_t k = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    bool may_match = false;
    for (size_t f = 0; f < names[g].size(); ++f) {
      may_match = filter.MayMatch(StatsAt(ctx, records, keys, filter, &k)) || may_match;
    }
    skip[g] = !names[g].empty() && !may_match;
  }
  std::vector<const FileGroup*> kept;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (skip[g]) {
      ++pruning->groups_pruned;
    } else {
      kept.push_back(groups[g]);
    }
  }
  return kept;
}

}  // namespace lakeshore
