// Internal: UTF-8 validation of strings that end up in JSON metadata or file names, the
// encoding of one code point, and Java's string order over UTF-8 text.
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

/// <0, 0 or >0 as `a` sorts before, equal to or after `b` in Java's `String.compareTo` order
/// (UTF-16 code units, unsigned), both given as UTF-8. That is byte order except where the
/// first differing bytes lead a character of U+E000–U+FFFF (0xEE, 0xEF) and one of U+10000 or
/// above (0xF0–0xF4): UTF-16 encodes the latter as surrogates (0xD800–0xDFFF), which sort
/// first. Hudi's record key ranges (a base file's `hoodie_min_record_key` and
/// `hoodie_max_record_key`) are in this order, and Java readers prune files by them. Any bytes
/// are ordered (totally); for well-formed UTF-8 the order is Java's. O(common prefix / 8).
int CompareUtf16Order(std::string_view a, std::string_view b);

/// The first eight bytes of `key` as one big-endian integer (zero-padded) whose order agrees
/// with CompareUtf16Order: keys with unequal prefixes compare as their prefixes do; equal
/// prefixes say nothing. O(1).
uint64_t Utf16OrderPrefix(std::string_view key);

}  // namespace lakeshore
