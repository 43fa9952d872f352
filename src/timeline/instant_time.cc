#include "timeline/instant_time.h"

#include <chrono>
#include <cstdio>

#include "common/parse_number.h"

namespace lakeshore {

std::string FormatInstantTime(int64_t epoch_ms) {
  using namespace std::chrono;
  sys_days day = floor<days>(sys_time<milliseconds>(milliseconds(epoch_ms)));
  year_month_day ymd(day);
  int64_t ms_of_day = epoch_ms - duration_cast<milliseconds>(day.time_since_epoch()).count();
  int h = static_cast<int>(ms_of_day / 3600000), m = static_cast<int>(ms_of_day / 60000 % 60);
  int s = static_cast<int>(ms_of_day / 1000 % 60), ms = static_cast<int>(ms_of_day % 1000);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04d%02u%02u%02d%02d%02d%03d", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()), h, m, s, ms);
  return buf;
}

bool LooksLikeInstantTime(const std::string& s) {
  if (s.size() != kInstantTimeLength) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

Result<int64_t> ParseInstantTime(const std::string& time) {
  if (!LooksLikeInstantTime(time)) {
    return Status::Invalid("'", time, "' is not an instant time (yyyyMMddHHmmssSSS)");
  }
  // LooksLikeInstantTime checked every character is a digit, so each field parses.
  auto num = [&](size_t pos, size_t len) {
    return ParseInt32(std::string_view(time).substr(pos, len)).value_or(0);
  };
  using namespace std::chrono;
  year_month_day ymd{year(num(0, 4)), month(num(4, 2)), day(num(6, 2))};
  if (!ymd.ok() || num(8, 2) > 23 || num(10, 2) > 59 || num(12, 2) > 59) {
    return Status::Invalid("'", time, "' is not a valid instant time");
  }
  int64_t day_ms = duration_cast<milliseconds>(sys_days(ymd).time_since_epoch()).count();
  return day_ms + num(8, 2) * 3600000LL + num(10, 2) * 60000LL + num(12, 2) * 1000LL + num(14, 3);
}

Result<std::string> NextInstantTime(int64_t now_ms, const std::string& after) {
  // A year of clock skew between writers is not skew: an instant that far ahead is damage (a
  // file named by hand, a clock gone wrong), and following it would run past the format.
  constexpr int64_t kMaxAheadMs = 366LL * 24 * 3600 * 1000;
  if (!after.empty()) {
    auto prev = ParseInstantTime(after);
    if (prev.ok() && *prev >= now_ms) {
      if (*prev - now_ms > kMaxAheadMs) {
        return CorruptMetadata("the timeline holds instant time " + after + ", more than a year after the clock (" +
                               FormatInstantTime(now_ms) + "); instant times must keep increasing within " +
                               "yyyyMMddHHmmssSSS, so nothing more is written until that instant is removed");
      }
      now_ms = *prev + 1;
    }
  }
  std::string next = FormatInstantTime(now_ms);
  if (next.size() != kInstantTimeLength) {
    return CorruptMetadata("the next instant time " + next + " is past year 9999");
  }
  return next;
}

bool IsInstantTimeToken(std::string_view s) {
  if (s.size() != 14 && s.size() != 17 && s.size() != 20) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace lakeshore
