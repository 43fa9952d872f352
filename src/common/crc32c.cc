#include "common/crc32c.h"

#include <array>
#include <cstring>

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

/// x^(2^k) modulo the polynomial, for k in [0, 64).
constexpr std::array<uint32_t, 64> MakePowers() {
  std::array<uint32_t, 64> powers{};
  uint32_t p = 1u << 30;  // x^1
  for (auto& power : powers) {
    power = p;
    p = MultiplyModP(p, p);
  }
  return powers;
}
constexpr std::array<uint32_t, 64> kPowers = MakePowers();

/// x^(8 * bytes) modulo the polynomial: multiplying a CRC register by it runs the register over
/// `bytes` zero bytes. The register is linear in its start and its input, so the register of
/// `c` over A || B is (that of `c` over A) times x^(8|B|), XOR the register of 0 over B.
uint32_t ZerosOperator(uint64_t bytes) {
  uint32_t op = 1u << 31;  // x^0
  for (unsigned k = 3; bytes != 0; bytes >>= 1, ++k) {
    if (bytes & 1) op = MultiplyModP(kPowers[k & 63], op);
  }
  return op;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint64_t Stream(uint64_t c, const unsigned char* p, size_t words) {
  for (size_t i = 0; i < words; ++i) {
    uint64_t word;
    std::memcpy(&word, p + 8 * i, 8);
    c = __builtin_ia32_crc32di(c, word);
  }
  return c;
}

/// The CRC register after `n` bytes from `crc`: inputs of at least kInterleaveBytes as three
/// streams of equal length (the register over A || B || C is shift(shift(crc_A) ^ crc_B) ^
/// crc_C, with B's and C's registers started at zero), the rest word by word.
__attribute__((target("sse4.2"))) uint32_t Hardware(uint32_t crc, const unsigned char* p, size_t n) {
  constexpr size_t kInterleaveBytes = 3 * 8 * 64;
  uint64_t c = crc;
  if (n >= kInterleaveBytes) {
    const size_t words = n / 24;  // words per stream
    const size_t stream = 8 * words;
    uint64_t a = c, b = 0, d = 0;
    const unsigned char* pb = p + stream;
    const unsigned char* pd = p + 2 * stream;
    for (size_t i = 0; i < words; ++i) {
      uint64_t wa, wb, wd;
      std::memcpy(&wa, p + 8 * i, 8);
      std::memcpy(&wb, pb + 8 * i, 8);
      std::memcpy(&wd, pd + 8 * i, 8);
      a = __builtin_ia32_crc32di(a, wa);
      b = __builtin_ia32_crc32di(b, wb);
      d = __builtin_ia32_crc32di(d, wd);
    }
    // HBase's chunks are all 16 KiB but the last: one operator serves a thread's run of them.
    thread_local size_t cached_stream = 0;
    thread_local uint32_t cached_op = 0;
    if (cached_stream != stream) {
      cached_op = ZerosOperator(stream);
      cached_stream = stream;
    }
    uint32_t joined = MultiplyModP(cached_op, static_cast<uint32_t>(a)) ^ static_cast<uint32_t>(b);
    joined = MultiplyModP(cached_op, joined) ^ static_cast<uint32_t>(d);
    c = joined;
    p += 3 * stream;
    n -= 3 * stream;
  }
  c = Stream(c, p, n / 8);
  p += 8 * (n / 8);
  n %= 8;
  uint32_t c32 = static_cast<uint32_t>(c);
  while (n-- > 0) c32 = __builtin_ia32_crc32qi(c32, *p++);
  return c32;
}
bool HasHardware() {
  static const bool has = __builtin_cpu_supports("sse4.2");
  return has;
}
#endif

}  // namespace

uint32_t Crc32c(std::string_view bytes, Crc32cKernel kernel) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  uint32_t crc = 0xffffffffu;
#if defined(__x86_64__)
  if (kernel == Crc32cKernel::kBest && HasHardware()) return Hardware(crc, p, bytes.size()) ^ 0xffffffffu;
#endif
  return Portable(crc, p, bytes.size()) ^ 0xffffffffu;
}

}  // namespace lakeshore
