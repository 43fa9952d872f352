// Clustering, as Hudi 1.x does it: a `clustering` instant whose requested file holds a
// HoodieRequestedReplaceMetadata with a HoodieClusteringPlan (input groups of slices, the sort
// columns, the number of output file groups), executed by reading each group's slices merged,
// sorting the records and writing them into new file groups, and completed as a
// `replacecommit` (operationType CLUSTER) that ends the input file groups. While it is pending,
// writers put no inserts into its groups and refuse updates to them (write_client.cc); a
// compaction leaves them alone, and it leaves groups a compaction is merging alone.
#pragma once

#include "actions/table_context.h"
#include "lakeshore/table/table.h"

namespace lakeshore {

/// Clusters `ctx`'s table (Table::Cluster). A pending clustering (schedule-only, or left by a
/// crash) is executed first, its previous attempt's files deleted; otherwise a plan is made
/// under the table lock from the latest completed view, per partition (ClusteringOptions).
/// Failed writes are rolled back first. Execution runs without the lock, one engine task per
/// input group; the completion re-checks the timeline under the lock. A crash leaves the
/// clustering pending and unseen by readers; the next Cluster finishes it. Never rolled back
/// by writers. Sort columns must be columns of the table (kInvalid naming them).
Result<ClusteringResult> ClusterTable(TableContext& ctx, const ClusteringOptions& options);

}  // namespace lakeshore
