// Internal: the retention a vacuum runs with, for both table formats.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "lakeshore/status.h"
#include "lakeshore/vacuum.h"

namespace lakeshore::vacuum {

/// The retention in ms: `options.retain_hours` if given, else the table's `table_ms`. A
/// requested retention shorter than the table's is kRetentionViolation naming
/// `table_setting` (the property that sets it) unless enforce_retention is off. Invalid for a
/// retention that is not a finite number of hours up to 100 years.
Result<int64_t> ResolveRetentionMs(int64_t table_ms, const std::string& table_setting, const VacuumOptions& options);

/// `options.force_full_after_hours` in ms, if given (checked as ResolveRetentionMs checks).
Result<std::optional<int64_t>> ForceFullAfterMs(const VacuumOptions& options);

}  // namespace lakeshore::vacuum
