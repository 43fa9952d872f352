#include "read/column_stats_pruning.h"

#include <algorithm>
#include <map>

#include "format/metadata_keys.h"
#include "format/metadata_record.h"
#include "io/metadata_files.h"
#include "table/hoodie_table_config.h"

namespace lakeshore {
namespace {
/// The metadata partition read here (services/metadata writes it).
constexpr const char* kColumnStatsPartition = "column_stats";
}  // namespace

Result<std::vector<const FileGroup*>> PruneByColumnStats(TableContext& ctx, const Timeline& timeline,
                                                         const std::vector<const FileGroup*>& groups,
                                                         const RowFilter& filter, bool read_optimized,
                                                         ColumnStatsPruning* pruning) {
  *pruning = ColumnStatsPruning{};
  pruning->groups_in = static_cast<int64_t>(groups.size());
  if (filter.empty() || groups.empty()) return groups;
  ARROW_ASSIGN_OR_RAISE(auto config, HoodieTableConfig::Load(*ctx.storage));
  const auto& built = config.metadata_partitions;
  if (std::find(built.begin(), built.end(), kColumnStatsPartition) == built.end()) return groups;
  pruning->used = true;
  // The candidates: slices read as one base file.
  std::vector<size_t> candidates;
  std::vector<std::string> keys;
  for (size_t g = 0; g < groups.size(); ++g) {
    const FileSlice& slice = groups[g]->latest();
    if (!slice.base_file || (!read_optimized && !slice.log_files.empty())) continue;
    candidates.push_back(g);
    const std::string name(BaseName(slice.base_file->path));
    for (const auto& column : filter.columns()) {
      keys.push_back(format::ColumnStatsIndexKey(groups[g]->partition, name, column));
    }
  }
  if (candidates.empty()) return groups;
  ARROW_ASSIGN_OR_RAISE(auto records, ReadMetadataRecords(ctx.storage, *ctx.engine, kColumnStatsPartition,
                                                          ValidDataInstants(timeline), &keys));
  std::vector<bool> skip(groups.size(), false);
  size_t k = 0;
  for (size_t g : candidates) {
    std::map<std::string, format::ColumnStatsValue> stats;
    for (const auto& column : filter.columns()) {
      auto record = records.find(keys[k++]);
      auto field = ctx.full_schema->GetFieldByName(column);
      if (record == records.end() || field == nullptr) continue;
      if (auto value = format::ColumnStatsFromRecord(record->second, *field->type())) stats.emplace(column, *value);
    }
    skip[g] = !filter.MayMatch(stats);
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
