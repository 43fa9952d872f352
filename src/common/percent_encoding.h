// Internal: hex digits and %XX decoding, shared by Delta log paths, Hive partition values and
// Java properties escapes.
#pragma once

#include <string>
#include <string_view>

#include "lakeshore/status.h"

namespace lakeshore {

/// The value of a hex digit (either case), or -1.
int HexDigitValue(char c);

/// Decodes every %XX escape (RFC 3986). Invalid naming the text if a '%' is not followed by
/// two hex digits. O(length); no copy work beyond the result when there is no '%'.
Result<std::string> PercentDecode(std::string_view encoded);

}  // namespace lakeshore
