#include "common/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace lakeshore {
namespace {

constexpr uint32_t kPolynomial = 0x82f63b78u;  // Castagnoli, bit-reflected

constexpr std::array<uint32_t, 256> MakeTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
    table[i] = c;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kTable = MakeTable();

uint32_t Portable(uint32_t crc, const unsigned char* p, size_t n) {
  for (size_t i = 0; i < n; ++i) crc = (crc >> 8) ^ kTable[(crc ^ p[i]) & 0xff];
  return crc;
}

// ---- GF(2) arithmetic modulo the polynomial, bit-reflected (bit 31 is x^0) -----------------

/// a * b modulo the polynomial.
constexpr uint32_t MultiplyModP(uint32_t a, uint32_t b) {
  uint32_t product = 0;
  for (uint32_t m = 1u << 31; m != 0; m >>= 1) {
    if (a & m) product ^= b;
    b = (b & 1) ? (b >> 1) ^ kPolynomial : b >> 1;
  }
  return product;
}

#if defined(__x86_64__)
/// x^e modulo the polynomial (square and multiply). O(log e).
uint32_t XPower(uint64_t e) {
  uint32_t result = 1u << 31;  // x^0
  uint32_t square = 1u << 30;  // x^1, x^2, x^4, ...
  for (; e != 0; e >>= 1) {
    if (e & 1) result = MultiplyModP(square, result);
    square = MultiplyModP(square, square);
  }
  return result;
}

__attribute__((target("sse4.2"))) uint32_t WordByWord(uint32_t crc, const unsigned char* p, size_t n) {
  uint64_t c = crc;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    c = __builtin_ia32_crc32di(c, word);
  }
  auto c32 = static_cast<uint32_t>(c);
  while (n-- > 0) c32 = __builtin_ia32_crc32qi(c32, *p++);
  return c32;
}

/// Carry-less multiplication constants that move a 128-bit lane `bits` further on: its first
/// (higher-degree) half is multiplied by x^(bits + 63) and its second by x^(bits - 1), modulo
/// the polynomial (the extra x^-1 undoes the one-bit shift of a reflected carry-less product).
/// Each sits in the high 32 bits of its 64-bit half, as a reflected 64-bit polynomial.
__attribute__((target("sse4.2,pclmul"))) __m128i FoldConstants(uint64_t bits) {
  const auto first = static_cast<uint64_t>(XPower(bits + 63)) << 32;
  const auto second = static_cast<uint64_t>(XPower(bits - 1)) << 32;
  return _mm_set_epi64x(static_cast<long long>(second), static_cast<long long>(first));
}

/// `lane` moved on by the distance of `k`, XOR `next`: congruent, modulo the polynomial, to
/// the message they stand for, in 128 bits.
__attribute__((target("sse4.2,pclmul"))) inline __m128i Fold(__m128i lane, __m128i k, __m128i next) {
  return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(lane, k, 0x00), _mm_clmulepi64_si128(lane, k, 0x11)),
                       next);
}

__attribute__((target("sse4.2,pclmul"))) inline __m128i Load(const unsigned char* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

/// The CRC register after `n` bytes from `crc`, folding with carry-less multiplication (the
/// crc32 instruction is slow on some CPUs: about three times slower here on AMD's): four
/// 128-bit lanes, each moved 512 bits on and XORed into the next 64 bytes, then the lanes into
/// one, moved 128 bits at a time over the rest; the crc32 instruction reads the last lane as a
/// 16-byte message (what it stands for, preceded by zeros, which leave a zero register as it
/// is) and the tail. The start register enters XORed into the first four bytes, as the
/// instruction itself applies it. Inputs under 64 bytes go word by word.
__attribute__((target("sse4.2,pclmul"))) uint32_t Folding(uint32_t crc, const unsigned char* p, size_t n) {
  if (n < 64) return WordByWord(crc, p, n);
  static const __m128i k512 = FoldConstants(512);
  static const __m128i k128 = FoldConstants(128);
  __m128i x0 = _mm_xor_si128(Load(p), _mm_cvtsi32_si128(static_cast<int>(crc)));
  __m128i x1 = Load(p + 16), x2 = Load(p + 32), x3 = Load(p + 48);
  for (p += 64, n -= 64; n >= 64; p += 64, n -= 64) {
    x0 = Fold(x0, k512, Load(p));
    x1 = Fold(x1, k512, Load(p + 16));
    x2 = Fold(x2, k512, Load(p + 32));
    x3 = Fold(x3, k512, Load(p + 48));
  }
  __m128i x = Fold(Fold(Fold(x0, k128, x1), k128, x2), k128, x3);
  for (; n >= 16; p += 16, n -= 16) x = Fold(x, k128, Load(p));
  uint64_t c = __builtin_ia32_crc32di(0, static_cast<uint64_t>(_mm_cvtsi128_si64(x)));
  c = __builtin_ia32_crc32di(c, static_cast<uint64_t>(_mm_extract_epi64(x, 1)));
  return WordByWord(static_cast<uint32_t>(c), p, n);
}

bool HasHardware() {
  static const bool has = __builtin_cpu_supports("sse4.2");
  return has;
}
bool HasFolding() {
  static const bool has = __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("pclmul");
  return has;
}
#endif

}  // namespace

uint32_t Crc32c(std::string_view bytes, Crc32cKernel kernel) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  uint32_t crc = 0xffffffffu;
#if defined(__x86_64__)
  if (kernel == Crc32cKernel::kBest && HasFolding()) return Folding(crc, p, bytes.size()) ^ 0xffffffffu;
  if (kernel == Crc32cKernel::kBest && HasHardware()) return WordByWord(crc, p, bytes.size()) ^ 0xffffffffu;
#endif
  return Portable(crc, p, bytes.size()) ^ 0xffffffffu;
}

}  // namespace lakeshore
