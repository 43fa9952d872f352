#include "common/duration.h"

#include <cmath>
#include <cstdio>

namespace lakeshore {

Result<int64_t> HoursToMs(std::string_view what, double hours) {
  if (!std::isfinite(hours) || hours < 0 || hours > kMaxHours) {
    char got[32];
    std::snprintf(got, sizeof(got), "%g", hours);
    return Status::Invalid(what, " must be a finite number of hours from 0 to 876600 (100 years), got ", got);
  }
  return static_cast<int64_t>(std::llround(hours * 3600.0 * 1000.0));
}

}  // namespace lakeshore
