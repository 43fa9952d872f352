#include "common/duration.h"

#include <cmath>

namespace lakeshore {

Result<int64_t> HoursToMs(std::string_view what, double hours) {
  if (!std::isfinite(hours) || hours < 0 || hours > kMaxHours) {
    return Status::Invalid(what, " must be a finite number of hours from 0 to ", kMaxHours,
                           " (100 years), got ", hours);
  }
  return static_cast<int64_t>(std::llround(hours * 3600.0 * 1000.0));
}

}  // namespace lakeshore
