// Internal: the constants of HBase's HFile version 3 layout that the reader (hfile.h) and the
// writer (hfile_writer.h) share: block magics, header and trailer sizes, Hadoop's codec ids.
#pragma once

#include <cstdint>
#include <string_view>

namespace lakeshore::format::hfile_layout {

/// The fixed trailer at the end of every file.
inline constexpr int64_t kTrailerSize = 4096;
/// A block's header: magic, on-disk and uncompressed sizes, previous block offset, checksum
/// type, bytes per checksum, on-disk data size with header.
inline constexpr int64_t kBlockHeaderSize = 33;
inline constexpr std::string_view kTrailerMagic = "TRABLK\"$";
inline constexpr std::string_view kDataMagic = "DATABLK*";
inline constexpr std::string_view kEncodedDataMagic = "DATABLKE";
inline constexpr std::string_view kMetaMagic = "METABLKc";
inline constexpr std::string_view kRootIndexMagic = "IDXROOT2";
inline constexpr std::string_view kIntermediateIndexMagic = "IDXINTE2";
inline constexpr std::string_view kLeafIndexMagic = "IDXLEAF2";
inline constexpr std::string_view kFileInfoMagic = "FILEINF2";
/// Hadoop's compression codec ids.
inline constexpr int kCodecGz = 1;
inline constexpr int kCodecNone = 2;

}  // namespace lakeshore::format::hfile_layout
