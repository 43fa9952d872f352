// Internal: durations given in hours by users (retention, force-full bounds), checked and
// converted to milliseconds in one place.
#pragma once

#include <cstdint>
#include <string_view>

#include "lakeshore/status.h"

namespace lakeshore {

/// The longest duration in hours any setting accepts: 100 years. Longer is a mistake, and the
/// bound keeps every millisecond computation far from int64 overflow.
inline constexpr double kMaxHours = 876600.0;  // 100 * 365.25 * 24
/// The same bound in milliseconds, for durations users give in milliseconds (lock leases,
/// heartbeat intervals).
inline constexpr int64_t kMaxMs = static_cast<int64_t>(kMaxHours * 3600 * 1000);

/// `hours` in milliseconds, rounded. Invalid naming `what` if `hours` is not finite, negative or
/// above kMaxHours (so inf, nan and 1e300 are refused, never wrapped into a short retention).
Result<int64_t> HoursToMs(std::string_view what, double hours);

}  // namespace lakeshore
