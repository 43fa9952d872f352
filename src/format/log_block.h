// Internal: the framing of Hudi's log files (HoodieLogFormat version 1), the files that hold a
// merge-on-read file slice's updates and deletes on top of its base file.
//
// A log file is a sequence of blocks, each:
//   "#HUDI#"  int64 size (of what follows, up to and including the trailing length)
//   int32 format version  int32 block type  header map  int64 content length  content
//   footer map  int64 reverse pointer (the size plus the magic's 6 bytes)
// A map is int32 count, then per entry int32 key, int32 length, UTF-8 value. All integers are
// big-endian. A block whose two lengths disagree, or that runs past the end of the file, is
// corrupt: Hudi skips it and resumes at the next "#HUDI#", and so does ReadLogBlocks. One framed
// whole whose inside does not parse is damage: an error.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "lakeshore/status.h"

namespace lakeshore::format {

/// HoodieLogBlockType, by ordinal.
enum class LogBlockType : int32_t {
  kCommand = 0,
  kDelete = 1,
  kCorrupt = 2,
  kAvroData = 3,
  kHFileData = 4,
  kParquetData = 5,
  kCdcData = 6,
};

/// HeaderMetadataType, by ordinal.
enum class LogHeaderKey : int32_t {
  kInstantTime = 0,
  kTargetInstantTime = 1,
  kSchema = 2,
  kCommandBlockType = 3,
  kCompactedBlockTimes = 4,
  kRecordPositions = 5,
  kBlockIdentifier = 6,
  kIsPartial = 7,
  kBaseFileInstantTimeOfRecordPositions = 8,
};

/// The magic that starts every block.
inline constexpr std::string_view kLogBlockMagic = "#HUDI#";

/// One block of a log file. `content` points into the buffer given to ReadLogBlocks.
struct LogBlock {
  LogBlockType type = LogBlockType::kCorrupt;
  int32_t format_version = 0;
  std::map<int32_t, std::string> header;
  std::map<int32_t, std::string> footer;
  int64_t offset = 0;  ///< where the block's magic starts in the file
  int64_t length = 0;  ///< bytes of the block, magic included
  std::string_view content;

  /// The header value of `key`, "" when absent.
  const std::string& Header(LogHeaderKey key) const;
  /// The instant that wrote the block (header INSTANT_TIME).
  const std::string& instant_time() const { return Header(LogHeaderKey::kInstantTime); }
};

/// Splits the log file `bytes` into blocks, in file order. Corrupt stretches (torn appends:
/// the size and the reverse pointer disagree) become kCorrupt blocks (no content) and scanning
/// resumes at the next magic, as Hudi's reader does; a block of a type or format version this
/// build does not know is returned as read (callers refuse it). kCorruptMetadata naming
/// `source` for a file that does not start with a magic, and for a block framed whole whose
/// header, content or footer does not parse (Hudi's reader fails on it too: skipping it lost a
/// committed update silently). O(size).
Result<std::vector<LogBlock>> ReadLogBlocks(std::string_view bytes, const std::string& source);

/// Renders one block (format version 1) as Hudi's writer does. For tests and writers.
std::string RenderLogBlock(LogBlockType type, const std::map<int32_t, std::string>& header,
                           std::string_view content, const std::map<int32_t, std::string>& footer = {});

}  // namespace lakeshore::format
