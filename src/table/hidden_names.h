// Which folders and files inside a table a vacuum never considers: one rule for the vacuum's
// listing and for the writes that must keep referenced blob files out of its way.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace lakeshore {

/// Delta's rule (DeltaTableUtils.isHiddenDirectory) for one path segment: a name starting
/// with '_' or '.' is hidden, except `_change_data*`, `_delta_index*`, partition folders
/// `<partition column>=...` and staged writes of our storage (IsStagedWriteName: a crash's
/// leftovers, which vacuum reaps once old); with `hide_metadata`, the name `metadata` (UniForm
/// Iceberg metadata) is hidden too. O(partition columns).
bool IsHiddenName(std::string_view name, const std::vector<std::string>& partition_columns, bool hide_metadata);

}  // namespace lakeshore
