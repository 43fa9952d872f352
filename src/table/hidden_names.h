// Which folders and files inside a table a vacuum never considers: one rule for the vacuum's
// listing and for the writes that must keep referenced blob files out of its way.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace lakeshore {

/// Delta's rule (DeltaTableUtils.isHiddenDirectory) for one path segment: a name starting
/// with '_' or '.' is hidden, except `_change_data*`, `_delta_index*` and partition folders
/// `<partition column>=...`; with `staged_writes_visible` (a Hudi table, where our writes stage
/// data files beside their final names), also except staged writes of our storage
/// (IsStagedWriteName: a crash's leftovers, which vacuum reaps once old) — in a Delta table,
/// where Lakeshore stages nothing outside `_delta_log`, such a name is a user's hidden file, as
/// Delta's rule has it. With `hide_metadata`, the name `metadata` (UniForm Iceberg metadata) is
/// hidden too. O(partition columns).
bool IsHiddenName(std::string_view name, const std::vector<std::string>& partition_columns, bool hide_metadata,
                  bool staged_writes_visible);

}  // namespace lakeshore
