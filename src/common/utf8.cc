#include "common/utf8.h"

#include <algorithm>

#include <arrow/util/utf8.h>

#include "common/byte_compare.h"

namespace lakeshore {

namespace {
/// A byte's place in UTF-16 order: the lead bytes of U+E000–U+FFFF (0xEE, 0xEF) move above
/// those of U+10000 and beyond (0xF0 and up), which move down two. A bijection that keeps
/// every other byte, and trail bytes (0x80–0xBF), where they are.
inline unsigned Utf16Rank(unsigned char b) { return b < 0xEE ? b : (b < 0xF0 ? b + 0x10u : b - 2u); }
}  // namespace

bool IsValidUtf8(std::string_view text) {
  // arrow::util::ValidateUTF8 reads lookup tables that InitializeUTF8 fills (once; thread-safe).
  static const bool initialized = [] {
    arrow::util::InitializeUTF8();
    return true;
  }();
  (void)initialized;
  return arrow::util::ValidateUTF8(text);
}

void AppendUtf8(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

int CompareUtf16Order(std::string_view a, std::string_view b) {
  // Up to the first differing byte both strings hold the same characters, so that byte is a
  // lead byte in both or a trail byte in both; a trail byte (or a lead within one class)
  // decides as in byte order, and Utf16Rank leaves those alone.
  const size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint64_t x = detail::BigEndianWord(a.data() + i), y = detail::BigEndianWord(b.data() + i);
    if (x != y) {
      i += static_cast<size_t>(__builtin_clzll(x ^ y) / 8);
      break;
    }
  }
  while (i < n && a[i] == b[i]) ++i;
  if (i == n) return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
  return Utf16Rank(static_cast<unsigned char>(a[i])) < Utf16Rank(static_cast<unsigned char>(b[i])) ? -1 : 1;
}

uint64_t Utf16OrderPrefix(std::string_view key) {
  const uint64_t v = BigEndianPrefix(key);
  if ((v & 0x8080808080808080ULL) == 0) return v;  // ASCII: byte order is UTF-16 order
  uint64_t ranked = 0;
  for (int shift = 56; shift >= 0; shift -= 8) {
    ranked = (ranked << 8) | Utf16Rank(static_cast<unsigned char>(v >> shift));
  }
  return ranked;
}

}  // namespace lakeshore
