#include "format/log_block.h"

namespace lakeshore::format {
namespace {

/// Big-endian reads from a byte range, never past its end.
class BigEndianCursor {
 public:
  explicit BigEndianCursor(std::string_view bytes) : bytes_(bytes) {}

  bool ReadInt32(int32_t* out) {
    uint64_t v = 0;
    if (!ReadRaw(4, &v)) return false;
    *out = static_cast<int32_t>(static_cast<uint32_t>(v));
    return true;
  }
  bool ReadInt64(int64_t* out) {
    uint64_t v = 0;
    if (!ReadRaw(8, &v)) return false;
    *out = static_cast<int64_t>(v);
    return true;
  }
  bool Take(int64_t n, std::string_view* out) {
    if (n < 0 || static_cast<uint64_t>(n) > remaining()) return false;
    *out = bytes_.substr(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return true;
  }
  bool ReadMap(std::map<int32_t, std::string>* out) {
    int32_t count = 0;
    if (!ReadInt32(&count) || count < 0 || static_cast<uint64_t>(count) * 8 > remaining()) return false;
    for (int32_t i = 0; i < count; ++i) {
      int32_t key = 0, length = 0;
      std::string_view value;
      if (!ReadInt32(&key) || !ReadInt32(&length) || !Take(length, &value)) return false;
      (*out)[key] = std::string(value);
    }
    return true;
  }
  size_t pos() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }

 private:
  bool ReadRaw(int n, uint64_t* out) {
    if (remaining() < static_cast<size_t>(n)) return false;
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v = (v << 8) | static_cast<uint8_t>(bytes_[pos_ + static_cast<size_t>(i)]);
    pos_ += static_cast<size_t>(n);
    *out = v;
    return true;
  }

  std::string_view bytes_;
  size_t pos_ = 0;
};

void PutInt32(std::string* out, int32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>((static_cast<uint32_t>(v) >> shift) & 0xff));
}
void PutInt64(std::string* out, int64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out->push_back(static_cast<char>((static_cast<uint64_t>(v) >> shift) & 0xff));
}
std::string RenderMap(const std::map<int32_t, std::string>& map) {
  std::string out;
  PutInt32(&out, static_cast<int32_t>(map.size()));
  for (const auto& [key, value] : map) {
    PutInt32(&out, key);
    PutInt32(&out, static_cast<int32_t>(value.size()));
    out += value;
  }
  return out;
}

/// What ParseBlock found at a magic.
enum class BlockParse {
  kParsed,   ///< a whole block
  kTorn,     ///< the size and the trailing reverse pointer disagree: a torn append (Hudi's corrupt block)
  kDamaged,  ///< framed whole, but its inside does not parse: damage, which Hudi's reader fails on too
};

/// Parses the block whose magic starts at `offset`.
BlockParse ParseBlock(std::string_view file, size_t offset, LogBlock* block) {
  BigEndianCursor outer(file.substr(offset + kLogBlockMagic.size()));
  int64_t size = 0;
  // The size covers everything after itself; the trailing reverse pointer repeats it, counting
  // the magic too.
  if (!outer.ReadInt64(&size) || size < 24 || static_cast<uint64_t>(size) > outer.remaining()) return BlockParse::kTorn;
  std::string_view body;
  if (!outer.Take(size, &body)) return BlockParse::kTorn;
  BigEndianCursor tail(body.substr(body.size() - 8));
  int64_t total = 0;
  // Hudi's isBlockCorrupted: the reverse pointer less the magic equals the size.
  if (!tail.ReadInt64(&total) || total != size + static_cast<int64_t>(kLogBlockMagic.size())) return BlockParse::kTorn;
  BigEndianCursor in(body.substr(0, body.size() - 8));
  int32_t version = 0, type = 0;
  int64_t content_length = 0;
  if (!in.ReadInt32(&version) || !in.ReadInt32(&type)) return BlockParse::kDamaged;
  block->format_version = version;
  block->type = static_cast<LogBlockType>(type);
  if (!in.ReadMap(&block->header) || !in.ReadInt64(&content_length) || !in.Take(content_length, &block->content) ||
      !in.ReadMap(&block->footer) || in.remaining() != 0) {
    return BlockParse::kDamaged;
  }
  block->offset = static_cast<int64_t>(offset);
  block->length = static_cast<int64_t>(kLogBlockMagic.size()) + 8 + size;
  return BlockParse::kParsed;
}

}  // namespace

const std::string& LogBlock::Header(LogHeaderKey key) const {
  static const std::string kEmpty;
  auto it = header.find(static_cast<int32_t>(key));
  return it == header.end() ? kEmpty : it->second;
}

Result<std::vector<LogBlock>> ReadLogBlocks(std::string_view bytes, const std::string& source) {
  std::vector<LogBlock> blocks;
  if (bytes.substr(0, kLogBlockMagic.size()) != kLogBlockMagic) {
    return CorruptMetadata("log file " + source + " does not start with a Hudi log block (" +
                           (bytes.empty() ? std::string("the file is empty") : std::string("no #HUDI# magic")) + ")");
  }
  size_t offset = 0;
  while (offset < bytes.size()) {
    LogBlock block;
    if (bytes.substr(offset, kLogBlockMagic.size()) == kLogBlockMagic) {
      const BlockParse parsed = ParseBlock(bytes, offset, &block);
      if (parsed == BlockParse::kParsed) {
        offset += static_cast<size_t>(block.length);
        blocks.push_back(std::move(block));
        continue;
      }
      if (parsed == BlockParse::kDamaged) {
        return CorruptMetadata("log file " + source + ": the block at byte " + std::to_string(offset) +
                               " is framed whole but its header, content or footer does not parse (damage, not a "
                               "torn append)");
      }
    }
    // A corrupt stretch: up to the next magic (or the end), as Hudi's HoodieCorruptBlock.
    size_t next = bytes.find(kLogBlockMagic, offset + 1);
    if (next == std::string_view::npos) next = bytes.size();
    LogBlock corrupt;
    corrupt.type = LogBlockType::kCorrupt;
    corrupt.offset = static_cast<int64_t>(offset);
    corrupt.length = static_cast<int64_t>(next - offset);
    blocks.push_back(std::move(corrupt));
    offset = next;
  }
  return blocks;
}

std::string RenderLogBlock(LogBlockType type, const std::map<int32_t, std::string>& header,
                           std::string_view content, const std::map<int32_t, std::string>& footer) {
  std::string body;
  PutInt32(&body, 1);  // log format version
  PutInt32(&body, static_cast<int32_t>(type));
  body += RenderMap(header);
  PutInt64(&body, static_cast<int64_t>(content.size()));
  body.append(content);
  body += RenderMap(footer);
  std::string out(kLogBlockMagic);
  const int64_t size = static_cast<int64_t>(body.size()) + 8;
  PutInt64(&out, size);
  out += body;
  PutInt64(&out, size + static_cast<int64_t>(kLogBlockMagic.size()));
  return out;
}

}  // namespace lakeshore::format
