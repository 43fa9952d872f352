// Internal: skipping file groups by the metadata table's column statistics — Hudi's data
// skipping. A read with a row filter opens only the file groups whose latest slice's column
// stats leave room for a matching row.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "actions/table_context.h"
#include "read/row_filter.h"
#include "table/file_system_view.h"
#include "timeline/timeline.h"

namespace lakeshore {

/// What a pruning did (a read's metrics).
struct ColumnStatsPruning {
  bool used = false;                  ///< a built column_stats partition was consulted
  bool used_partition_stats = false;  ///< a built partition_stats partition was consulted
  bool used_key_range = false;        ///< base files' record key ranges were consulted
  int64_t groups_in = 0;              ///< file groups considered
  int64_t groups_pruned = 0;          ///< file groups skipped: no row can match (either way)
  int64_t partitions_pruned = 0;      ///< partitions skipped whole by partition_stats

  /// "key_range", "partition_stats", "column_stats", those used comma-separated in that order,
  /// or "none".
  std::string PrunedBy() const;
};

/// The groups of `groups` (in order) a read with `filter` must open. First, with a predicate on
/// `_hoodie_record_key`, a group whose latest slice is read from its base file alone (no log
/// files, or `read_optimized`) is skipped when the file's record key range (Hudi's footer
/// min/max, kept in the commit's stats) rules a match out: no I/O, and a lookup or a delete of a
/// few keys opens only the files that may hold them. Then, when `latest` (a read
/// of the latest snapshot) and the partition_stats partition is built (Spark's writer keeps it;
/// this build reads it and drops it before a write of its own would make it stale), a
/// partition whose statistics — one entry per (partition, column), over the files of its latest
/// slices — rule a match out is skipped whole (one point lookup per partition and filtered
/// column). Those statistics describe the latest slices only, so a time-travel read never uses
/// them. Then, file group by file group: a group is skipped only when
/// the column_stats entries of every file its read opens (the latest slice's base file, and its
/// log files unless `read_optimized`), in the built column_stats partition of the table's
/// metadata table, prove that no row of that file matches (RowFilter::MayMatch). A file without
/// entries keeps its group. Entries count only for completed data instants of `timeline` (Hudi's
/// valid-instants filter). Without a built column_stats partition (absent, being built, or
/// dropped), or with an empty filter, every group is kept and nothing is read. Cost: one read of
/// hoodie.properties, and the column_stats entries of those files for the filtered columns
/// (point lookups). A damaged partition is kCorruptMetadata.
Result<std::vector<const FileGroup*>> PruneByColumnStats(TableContext& ctx, const Timeline& timeline,
                                                         const std::vector<const FileGroup*>& groups,
                                                         const RowFilter& filter, bool read_optimized, bool latest,
                                                         ColumnStatsPruning* pruning);

}  // namespace lakeshore
