// CRC-32C (Castagnoli), the checksum HBase puts after every HFile block chunk.
#pragma once

#include <cstdint>
#include <string_view>

namespace lakeshore {

/// Which code computes a CRC-32C: the best the CPU runs, or the portable table (tests compare
/// them; both give the same value).
enum class Crc32cKernel { kBest, kPortable };

/// The CRC-32C of `bytes`. With carry-less multiplication (PCLMULQDQ) and the crc32 instruction
/// (SSE4.2), inputs of 64 bytes and more fold 64 bytes a step in four lanes; with the crc32
/// instruction alone, word by word; a table otherwise. O(size).
uint32_t Crc32c(std::string_view bytes, Crc32cKernel kernel = Crc32cKernel::kBest);

}  // namespace lakeshore
