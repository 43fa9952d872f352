// Internal: strict number parsing with std::from_chars (no exceptions, no locale, no overflow).
//
// The core never calls std::stoll / std::stoi / std::stod: they throw, and an exception must not
// cross the Status boundary (tests/test_core_lint.py enforces it). Use these instead.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace lakeshore {

/// The decimal integer that is exactly `text` (an optional leading '-', then digits); nullopt
/// on anything else: empty, a sign alone, other characters, or a value outside int64.
std::optional<int64_t> ParseInt64(std::string_view text);

/// Like ParseInt64 for an int32.
std::optional<int32_t> ParseInt32(std::string_view text);

/// The finite floating-point number that is exactly `text`; nullopt on anything else,
/// including "inf" and "nan".
std::optional<double> ParseFiniteDouble(std::string_view text);

}  // namespace lakeshore
