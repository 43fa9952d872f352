// Internal: comparing byte strings in the order std::string_view compares them (unsigned
// bytes, a prefix before its extensions), eight bytes at a time and inline.
//
// Sorted lookups (HFile blocks walked against sorted keys, keys sorted per file group) compare
// millions of short keys a second; a call into memcmp per comparison costs more than the
// comparison itself, and keys that share a long prefix (time-ordered keys) defeat a
// first-word-only shortcut.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace lakeshore {

namespace detail {
inline uint64_t BigEndianWord(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return __builtin_bswap64(v);
}
}  // namespace detail

/// The first eight bytes of `key` as one big-endian integer, zero-padded: keys with unequal
/// prefixes compare bytewise as their prefixes do; equal prefixes say nothing ("ab" and
/// "ab\0" share one). O(1).
inline uint64_t BigEndianPrefix(std::string_view key) {
  if (key.size() >= 8) return detail::BigEndianWord(key.data());
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) v = (v << 8) | (i < key.size() ? static_cast<unsigned char>(key[i]) : 0u);
  return v;
}

/// <0, 0 or >0 as `a` sorts before, equal to or after `b` bytewise (std::string_view's order).
/// O(common prefix / 8).
__attribute__((always_inline)) inline int CompareBytes(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  const char* pa = a.data();
  const char* pb = b.data();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint64_t x = detail::BigEndianWord(pa + i), y = detail::BigEndianWord(pb + i);
    if (x != y) return x < y ? -1 : 1;
  }
  if (i < n) {
    if (n >= 8) {
      // The last eight common bytes, overlapping the ones already equal.
      const uint64_t x = detail::BigEndianWord(pa + n - 8), y = detail::BigEndianWord(pb + n - 8);
      if (x != y) return x < y ? -1 : 1;
    } else {
      for (; i < n; ++i) {
        const auto x = static_cast<unsigned char>(pa[i]), y = static_cast<unsigned char>(pb[i]);
        if (x != y) return x < y ? -1 : 1;
      }
    }
  }
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

/// a < b bytewise, as CompareBytes.
inline bool BytesLess(std::string_view a, std::string_view b) { return CompareBytes(a, b) < 0; }

/// a == b, as CompareBytes (inline, no memcmp call).
inline bool SameBytes(std::string_view a, std::string_view b) { return a.size() == b.size() && CompareBytes(a, b) == 0; }

}  // namespace lakeshore
