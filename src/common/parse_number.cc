#include "common/parse_number.h"

#include <charconv>
#include <cmath>

namespace lakeshore {
namespace {
template <typename T>
std::optional<T> ParseWhole(std::string_view text) {
  T value{};
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}
}  // namespace

std::optional<int64_t> ParseInt64(std::string_view text) { return ParseWhole<int64_t>(text); }

std::optional<int32_t> ParseInt32(std::string_view text) { return ParseWhole<int32_t>(text); }

std::optional<double> ParseFiniteDouble(std::string_view text) {
  auto value = ParseWhole<double>(text);
  if (!value || !std::isfinite(*value)) return std::nullopt;
  return value;
}

}  // namespace lakeshore
