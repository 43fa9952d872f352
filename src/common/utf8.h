// Internal: UTF-8 validation of strings that end up in JSON metadata or file names, and the
// encoding of one code point.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace lakeshore {

/// True when `text` is well-formed UTF-8 (Arrow's validator, its tables initialized first).
/// O(length).
bool IsValidUtf8(std::string_view text);

/// Appends the UTF-8 encoding of code point `cp` (at most 0x10FFFF; the caller checks) to `out`:
/// what a `\uXXXX` escape of a properties file or an `&#N;` reference of XML stands for.
void AppendUtf8(uint32_t cp, std::string& out);

}  // namespace lakeshore
