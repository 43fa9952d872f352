// CRC-32C (Castagnoli), the checksum HBase puts after every HFile block chunk.
#pragma once

#include <cstdint>
#include <string_view>

namespace lakeshore {

/// The CRC-32C of `bytes`. Uses the CPU's crc32 instruction (SSE4.2) when it has one, a table
/// otherwise; both give the same value. O(size).
uint32_t Crc32c(std::string_view bytes);

}  // namespace lakeshore
