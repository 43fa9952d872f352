#include "services/vacuum/retention.h"

#include <cstdio>

#include "common/duration.h"

namespace lakeshore::vacuum {
namespace {
std::string Hours(double hours) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", hours);
  return text;
}
}  // namespace

Result<int64_t> ResolveRetentionMs(int64_t table_ms, const std::string& table_setting, const VacuumOptions& options) {
  if (!options.retain_hours) return table_ms;
  ARROW_ASSIGN_OR_RAISE(int64_t requested, HoursToMs("vacuum.retain_hours", *options.retain_hours));
  if (options.enforce_retention && requested < table_ms) {
    return RetentionViolation("retention of " + Hours(*options.retain_hours) + " hours is shorter than the table's " +
                              table_setting + " (" + Hours(static_cast<double>(table_ms) / 3600000.0) +
                              " hours); readers and writers may still need those files. Turn enforce_retention off "
                              "only if none can");
  }
  return requested;
}

Result<std::optional<int64_t>> ForceFullAfterMs(const VacuumOptions& options) {
  if (!options.force_full_after_hours) return std::optional<int64_t>();
  ARROW_ASSIGN_OR_RAISE(int64_t ms, HoursToMs("vacuum.optimistic.force_full_after_hours", *options.force_full_after_hours));
  return std::optional<int64_t>(ms);
}

}  // namespace lakeshore::vacuum
