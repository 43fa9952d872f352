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
      std::map<std::string, format::ColumnStatsValue> stats;
      for (const auto& column : filter.columns()) {
        auto record = records.find(keys[k++]);
        auto field = ctx.full_schema->GetFieldByName(column);
        if (record == records.end() || field == nullptr) continue;
        if (auto value = format::ColumnStatsFromRecord(record->second, *field->type())) stats.emplace(column, *value);
      }
      may_match = may_match || filter.MayMatch(stats);
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
