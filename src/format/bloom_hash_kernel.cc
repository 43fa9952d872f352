#include "format/bloom_hash_kernel.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>

namespace lakeshore::format {
namespace {

constexpr uint32_t kM = 0x5bd1e995;

/// The signed byte Hadoop's MurmurHash reads (Java bytes are signed).
inline int32_t SignedByte(const char* data, size_t i) { return static_cast<int32_t>(static_cast<int8_t>(data[i])); }

/// A 4-byte block, mixed: the part of a Murmur round that does not depend on the seed. Hadoop
/// assembles the block from signed bytes, but the sign bits of the top byte shift out, so it is
/// the little-endian word.
inline uint32_t MixedBlock(const char* block) {
  uint32_t k;
  std::memcpy(&k, block, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  k = __builtin_bswap32(k);
#endif
  k *= kM;
  k ^= k >> 24;
  k *= kM;
  return k;
}

/// The tail word Hadoop's variant XORs in (bytes read from the end, sign-extended), and whether
/// there is a tail at all.
inline uint32_t TailWord(std::string_view key) {
  const size_t left = key.size() & 3;
  const size_t n = key.size();
  uint32_t t = 0;
  if (left >= 3) t ^= static_cast<uint32_t>(SignedByte(key.data(), n - 3)) << 16;
  if (left >= 2) t ^= static_cast<uint32_t>(SignedByte(key.data(), n - 2)) << 8;
  if (left >= 1) t ^= static_cast<uint32_t>(SignedByte(key.data(), n - 1));
  return t;
}

inline uint32_t Finish(uint32_t h) {
  h ^= h >> 13;
  h *= kM;
  h ^= h >> 15;
  return h;
}

/// `a mod d` for a fixed divisor without a division (Lemire's fastmod; exact for 32-bit a, d).
struct FastMod {
  explicit FastMod(uint32_t d) : d_(d), m_(UINT64_C(0xFFFFFFFFFFFFFFFF) / d + 1) {}
  uint32_t operator()(uint32_t a) const {
    const uint64_t low = m_ * a;
    return static_cast<uint32_t>((static_cast<__uint128_t>(low) * d_) >> 64);
  }
  uint32_t d_;
  uint64_t m_;
};

/// Java's Math.abs(h % size) for the positions: |h| mod size (|INT_MIN| is 2^31).
inline uint32_t Magnitude(uint32_t h) { return static_cast<int32_t>(h) < 0 ? 0u - h : h; }

/// Keys longer than this many blocks are hashed without the precomputed blocks.
constexpr size_t kMaxPreparedBlocks = 64;

void ScalarPositions(const std::string_view* keys, size_t count, int32_t num_hashes, uint32_t vector_size,
                     uint32_t* positions) {
  const FastMod mod(vector_size);
  std::array<uint32_t, kMaxPreparedBlocks> mixed;
  for (size_t i = 0; i < count; ++i) {
    const std::string_view key = keys[i];
    const size_t blocks = key.size() >> 2;
    if (blocks > kMaxPreparedBlocks) {
      int32_t seed = 0;
      for (int32_t k = 0; k < num_hashes; ++k) {
        seed = HudiMurmurHash(key, seed);
        positions[static_cast<size_t>(k) * count + i] = mod(Magnitude(static_cast<uint32_t>(seed)));
      }
      continue;
    }
    for (size_t j = 0; j < blocks; ++j) mixed[j] = MixedBlock(key.data() + 4 * j);
    const uint32_t tail = TailWord(key);
    const bool has_tail = (key.size() & 3) != 0;
    uint32_t seed = 0;
    for (int32_t k = 0; k < num_hashes; ++k) {
      uint32_t h = seed ^ static_cast<uint32_t>(key.size());
      for (size_t j = 0; j < blocks; ++j) h = (h * kM) ^ mixed[j];
      if (has_tail) h = (h ^ tail) * kM;
      seed = Finish(h);
      positions[static_cast<size_t>(k) * count + i] = mod(Magnitude(seed));
    }
  }
}

__attribute__((target("avx2"))) inline __m256i LoadLanes(const uint32_t* p) {
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(p));
}

/// 32 keys per step, one per 32-bit lane of four vectors whose hash chains advance in
/// lockstep (a chain is serial, each multiply waits for the last; four chains hide that
/// latency). The blocks are mixed once per key, then each chained hash is a few vector
/// multiplies; lanes of shorter keys are masked. The modulo is computed in double precision,
/// exact after one correction step (|h| <= 2^31 and the vector size is below 2^31).
__attribute__((target("avx2"))) void Avx2Positions(const std::string_view* keys, size_t count, int32_t num_hashes,
                                                    uint32_t vector_size, uint32_t* positions) {
  constexpr size_t kVectors = 4;
  constexpr size_t kLanes = 8 * kVectors;
  alignas(32) std::array<uint32_t, kMaxPreparedBlocks * kLanes> mixed;
  alignas(32) std::array<uint32_t, kLanes> lens, tails, tail_masks, block_counts, out;
  const __m256i m = _mm256_set1_epi32(static_cast<int>(kM));
  const __m256i size_i = _mm256_set1_epi32(static_cast<int>(vector_size));
  const __m256d inverse = _mm256_set1_pd(1.0 / static_cast<double>(vector_size));
  const __m256i zero = _mm256_setzero_si256();
  const __m256d sign = _mm256_set1_pd(-0.0);
  for (size_t base = 0; base < count; base += kLanes) {
    const size_t lanes = std::min(kLanes, count - base);
    size_t max_blocks = 0;
    for (size_t l = 0; l < lanes; ++l) max_blocks = std::max(max_blocks, keys[base + l].size() >> 2);
    if (max_blocks > kMaxPreparedBlocks) {
      // A long key in this group: these keys take the plain hash.
      const FastMod mod(vector_size);
      for (size_t l = 0; l < lanes; ++l) {
        int32_t seed = 0;
        for (int32_t k = 0; k < num_hashes; ++k) {
          seed = HudiMurmurHash(keys[base + l], seed);
          positions[static_cast<size_t>(k) * count + base + l] = mod(Magnitude(static_cast<uint32_t>(seed)));
        }
      }
      continue;
    }
    for (size_t l = 0; l < kLanes; ++l) {
      const std::string_view key = l < lanes ? keys[base + l] : std::string_view();
      const size_t blocks = key.size() >> 2;
      for (size_t j = 0; j < max_blocks; ++j) mixed[j * kLanes + l] = j < blocks ? MixedBlock(key.data() + 4 * j) : 0;
      lens[l] = static_cast<uint32_t>(key.size());
      tails[l] = TailWord(key);
      tail_masks[l] = (key.size() & 3) != 0 ? 0xffffffffu : 0u;
      block_counts[l] = static_cast<uint32_t>(blocks);
    }
    const bool uniform_blocks = std::all_of(block_counts.begin(), block_counts.begin() + static_cast<ptrdiff_t>(lanes),
                                            [&](uint32_t b) { return b == block_counts[0]; });
    __m256i len[kVectors], tail[kVectors], tail_mask[kVectors], block_count[kVectors], seed[kVectors];
    for (size_t v = 0; v < kVectors; ++v) {
      len[v] = LoadLanes(lens.data() + 8 * v);
      tail[v] = LoadLanes(tails.data() + 8 * v);
      tail_mask[v] = LoadLanes(tail_masks.data() + 8 * v);
      block_count[v] = LoadLanes(block_counts.data() + 8 * v);
      seed[v] = zero;
    }
    for (int32_t k = 0; k < num_hashes; ++k) {
      __m256i h[kVectors];
      for (size_t v = 0; v < kVectors; ++v) h[v] = _mm256_xor_si256(seed[v], len[v]);
      for (size_t j = 0; j < max_blocks; ++j) {
        const __m256i live_j = _mm256_set1_epi32(static_cast<int>(j));
        for (size_t v = 0; v < kVectors; ++v) {
          const __m256i next = _mm256_xor_si256(_mm256_mullo_epi32(h[v], m), LoadLanes(mixed.data() + j * kLanes + 8 * v));
          h[v] = uniform_blocks ? next : _mm256_blendv_epi8(h[v], next, _mm256_cmpgt_epi32(block_count[v], live_j));
        }
      }
      uint32_t* dest = positions + static_cast<size_t>(k) * count + base;
      for (size_t v = 0; v < kVectors; ++v) {
        __m256i x = h[v];
        x = _mm256_blendv_epi8(x, _mm256_mullo_epi32(_mm256_xor_si256(x, tail[v]), m), tail_mask[v]);
        x = _mm256_xor_si256(x, _mm256_srli_epi32(x, 13));
        x = _mm256_mullo_epi32(x, m);
        x = _mm256_xor_si256(x, _mm256_srli_epi32(x, 15));
        seed[v] = x;
        // |x| as an unsigned word (INT_MIN stays 2^31), then |x| mod size through doubles.
        const __m256i magnitude = _mm256_abs_epi32(x);
        const __m256d lo = _mm256_andnot_pd(sign, _mm256_cvtepi32_pd(_mm256_castsi256_si128(x)));
        const __m256d hi = _mm256_andnot_pd(sign, _mm256_cvtepi32_pd(_mm256_extracti128_si256(x, 1)));
        const __m256i q = _mm256_set_m128i(_mm256_cvttpd_epi32(_mm256_mul_pd(hi, inverse)),
                                           _mm256_cvttpd_epi32(_mm256_mul_pd(lo, inverse)));
        __m256i r = _mm256_sub_epi32(magnitude, _mm256_mullo_epi32(q, size_i));
        // The quotient can be one off either way: bring r into [0, size).
        r = _mm256_add_epi32(r, _mm256_and_si256(_mm256_cmpgt_epi32(zero, r), size_i));
        r = _mm256_sub_epi32(r, _mm256_andnot_si256(_mm256_cmpgt_epi32(size_i, r), size_i));
        // A full group stores straight into place (a short copy is a slow `rep movs`).
        if (lanes == kLanes) {
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(dest + 8 * v), r);
        } else {
          _mm256_store_si256(reinterpret_cast<__m256i*>(out.data() + 8 * v), r);
        }
      }
      if (lanes < kLanes) std::copy_n(out.begin(), lanes, dest);
    }
  }
}

bool HasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

}  // namespace

int32_t HudiMurmurHash(std::string_view data, int32_t seed) {
  const size_t blocks = data.size() >> 2;
  uint32_t h = static_cast<uint32_t>(seed) ^ static_cast<uint32_t>(data.size());
  for (size_t j = 0; j < blocks; ++j) h = (h * kM) ^ MixedBlock(data.data() + 4 * j);
  if ((data.size() & 3) != 0) h = (h ^ TailWord(data)) * kM;
  return static_cast<int32_t>(Finish(h));
}

void BloomBitPositions(const std::string_view* keys, size_t count, int32_t num_hashes, uint32_t vector_size,
                       uint32_t* positions, BloomHashKernel kernel) {
  if (count == 0 || num_hashes <= 0) return;
  const bool vector = kernel != BloomHashKernel::kScalar && HasAvx2();
  if (vector) {
    Avx2Positions(keys, count, num_hashes, vector_size, positions);
  } else {
    ScalarPositions(keys, count, num_hashes, vector_size, positions);
  }
}

}  // namespace lakeshore::format
