#include "common/utf8.h"

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace lakeshore {
namespace {

/// The UTF-16 code units of a string of code points: what Java's String holds.
std::u16string Utf16(const std::vector<uint32_t>& cps) {
  std::u16string out;
  for (uint32_t cp : cps) {
    if (cp < 0x10000) {
      out.push_back(static_cast<char16_t>(cp));
    } else {
      cp -= 0x10000;
      out.push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
      out.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
    }
  }
  return out;
}

std::string Utf8(const std::vector<uint32_t>& cps) {
  std::string out;
  for (uint32_t cp : cps) AppendUtf8(cp, out);
  return out;
}

int Sign(int v) { return (v > 0) - (v < 0); }

// Over random strings drawn from every UTF-8 length and both sides of the surrogate range,
// CompareUtf16Order answers as a comparison of the UTF-16 code units does (Java's
// String.compareTo), and Utf16OrderPrefix never contradicts it.
TEST(Utf8, CompareUtf16OrderIsJavaStringOrder) {
  const std::vector<uint32_t> pool = {0x00,   0x41,   0x7F,    0x80,    0x7FF,   0x800,   0xD7FF,  0xE000,
                                      0xEFFF, 0xF000, 0xFFFD,  0xFFFF,  0x10000, 0x1F600, 0x10FFFF, 0x61};
  std::mt19937 rng(7);
  auto random_string = [&] {
    std::vector<uint32_t> cps(rng() % 12);
    for (auto& cp : cps) cp = pool[rng() % pool.size()];
    return cps;
  };
  for (int i = 0; i < 20000; ++i) {
    auto a = random_string();
    auto b = i % 3 == 0 ? a : random_string();
    if (i % 5 == 0 && !b.empty()) b.back() = pool[rng() % pool.size()];  // long shared prefixes
    const int expected = Sign(Utf16(a).compare(Utf16(b)));
    const std::string ua = Utf8(a), ub = Utf8(b);
    ASSERT_EQ(Sign(CompareUtf16Order(ua, ub)), expected) << i;
    const uint64_t pa = Utf16OrderPrefix(ua), pb = Utf16OrderPrefix(ub);
    if (pa != pb) ASSERT_EQ(pa < pb ? -1 : 1, expected) << i;
  }
  // Where the orders part: U+FFFD after an emoji in Java, before it in bytes.
  EXPECT_GT(CompareUtf16Order("\xef\xbf\xbd", "\xf0\x9f\x98\x80"), 0);
  EXPECT_LT(std::string_view("\xef\xbf\xbd"), std::string_view("\xf0\x9f\x98\x80"));
}

}  // namespace
}  // namespace lakeshore
