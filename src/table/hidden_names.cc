#include "table/hidden_names.h"

#include "lakeshore/storage/storage.h"

namespace lakeshore {

bool IsHiddenName(std::string_view name, const std::vector<std::string>& partition_columns, bool hide_metadata,
                  bool staged_writes_visible) {
  if (hide_metadata && name == "metadata") return true;
  if (name.empty() || (name.front() != '_' && name.front() != '.')) return false;
  // Staged writes of our storage left by a crash are visible, so vacuum reaps them once old.
  if (staged_writes_visible && IsStagedWriteName(name)) return false;
  if (name.rfind("_delta_index", 0) == 0 || name.rfind("_change_data", 0) == 0) return false;
  for (const auto& column : partition_columns) {
    if (name.size() > column.size() && name.compare(0, column.size(), column) == 0 && name[column.size()] == '=') {
      return false;
    }
  }
  return true;
}

}  // namespace lakeshore
