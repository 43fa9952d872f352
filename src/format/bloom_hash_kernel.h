// Internal: the bit positions of Hudi's bloom filter for many keys at once, the hot loop of a
// base file's footer filter (30 chained MurmurHash calls per key with Hudi's defaults).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace lakeshore::format {

/// Which implementation computes the positions. Both give identical results; kBest picks the
/// vector one when the CPU has AVX2.
enum class BloomHashKernel { kBest, kScalar, kAvx2 };

/// For each of `count` keys, the `num_hashes` bit positions Hadoop's HashFunction gives with
/// Hudi's MurmurHash: seed_0 = 0, seed_{k+1} = murmur(key, seed_k), position_k =
/// |seed_{k+1}| mod `vector_size`. Writes them hash-major, to `positions[k * count + i]`.
/// Contract: `vector_size` > 0; `positions` holds count * num_hashes values. Empty keys get
/// positions too (callers skip them, as Hudi never adds one). kAvx2 on a CPU without AVX2
/// falls back to kScalar.
void BloomBitPositions(const std::string_view* keys, size_t count, int32_t num_hashes, uint32_t vector_size,
                       uint32_t* positions, BloomHashKernel kernel = BloomHashKernel::kBest);

/// Hudi's MurmurHash (Hadoop's MurmurHash2 variant: signed bytes, tail read from the end) of
/// `data` with `seed`, the reference the kernels are tested against.
int32_t HudiMurmurHash(std::string_view data, int32_t seed);

}  // namespace lakeshore::format
