#include "format/hfile.h"

#include "common/byte_compare.h"
#include "common/crc32c.h"
#include "format/hfile_layout.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include <arrow/util/compression.h>
#include <arrow/util/crc32.h>

namespace lakeshore::format {
namespace {

using namespace hfile_layout;  // NOLINT: the layout constants read as the format names them


/// Bounds-checked big-endian reads over a byte range; any read past the end sets `ok` false.
struct Cursor {
  std::string_view bytes;
  size_t pos = 0;
  bool ok = true;

  bool Has(size_t n) const { return ok && pos <= bytes.size() && bytes.size() - pos >= n; }
  uint64_t BigEndian(size_t n) {
    if (!Has(n)) {
      ok = false;
      return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v = (v << 8) | static_cast<uint8_t>(bytes[pos + i]);
    pos += n;
    return v;
  }
  int64_t Int64() { return static_cast<int64_t>(BigEndian(8)); }
  int32_t Int32() { return static_cast<int32_t>(BigEndian(4)); }
  int16_t Int16() { return static_cast<int16_t>(BigEndian(2)); }
  std::string_view Take(size_t n) {
    if (!Has(n)) {
      ok = false;
      return {};
    }
    std::string_view out = bytes.substr(pos, n);
    pos += n;
    return out;
  }
  /// Hadoop's WritableUtils vlong.
  int64_t VLong() {
    if (!Has(1)) {
      ok = false;
      return 0;
    }
    const auto first = static_cast<int8_t>(bytes[pos++]);
    if (first >= -112) return first;
    const int len = first < -120 ? -119 - first : -111 - first;
    uint64_t v = BigEndian(static_cast<size_t>(len - 1));
    const bool negative = first < -120;
    return negative ? static_cast<int64_t>(~v) : static_cast<int64_t>(v);
  }
  /// A protobuf base-128 varint.
  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (!Has(1)) break;
      const auto b = static_cast<uint8_t>(bytes[pos++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    ok = false;
    return 0;
  }
};

/// The fields of one protobuf message: varints by field number, and length-delimited fields
/// in order (repeated ones appear several times). Other wire types → false.
struct ProtoMessage {
  std::map<uint32_t, uint64_t> varints;
  std::vector<std::pair<uint32_t, std::string_view>> bytes;
};

bool ParseProto(std::string_view data, ProtoMessage* out) {
  Cursor c{data};
  while (c.ok && c.pos < data.size()) {
    const uint64_t tag = c.Varint();
    const auto field = static_cast<uint32_t>(tag >> 3);
    switch (tag & 7) {
      case 0:
        out->varints[field] = c.Varint();
        break;
      case 2: {
        const uint64_t n = c.Varint();
        out->bytes.emplace_back(field, c.Take(static_cast<size_t>(n)));
        break;
      }
      case 1:
        c.Take(8);
        break;
      case 5:
        c.Take(4);
        break;
      default:
        return false;
    }
  }
  return c.ok;
}

/// A length-delimited message at the start of `data`.
std::optional<std::string_view> Delimited(std::string_view data) {
  Cursor c{data};
  const uint64_t n = c.Varint();
  std::string_view body = c.Take(static_cast<size_t>(n));
  if (!c.ok) return std::nullopt;
  return body;
}

/// The row of an HBase key (int16 row length, then the row).
std::optional<std::string_view> RowOf(std::string_view key) {
  Cursor c{key};
  const int16_t len = c.Int16();
  std::string_view row = c.Take(static_cast<size_t>(std::max<int16_t>(len, 0)));
  if (!c.ok || len < 0) return std::nullopt;
  return row;
}

}  // namespace

Status HFileReader::Corrupt(const std::string& what) const {
  return CorruptMetadata("HFile " + source_ + ": " + what);
}

Result<std::shared_ptr<HFileReader>> HFileReader::Open(std::shared_ptr<arrow::Buffer> bytes, std::string source) {
  std::shared_ptr<HFileReader> reader(new HFileReader());
  reader->bytes_ = std::move(bytes);
  reader->source_ = std::move(source);
  ARROW_RETURN_NOT_OK(reader->LoadIndex());
  return reader;
}

Result<std::map<std::string, std::string>> HFileReader::FileInfoFromTail(
    const std::function<Result<std::shared_ptr<arrow::Buffer>>(int64_t offset)>& read_from, int64_t file_size,
    std::string source) {
  if (file_size < kTrailerSize) {
    return CorruptMetadata("HFile " + source + " is shorter than its 4096-byte trailer");
  }
  int64_t offset = std::max<int64_t>(0, file_size - 64 * 1024);
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::shared_ptr<HFileReader> reader(new HFileReader());
    ARROW_ASSIGN_OR_RAISE(reader->bytes_, read_from(offset));
    if (reader->bytes_->size() != file_size - offset) {
      return CorruptMetadata("HFile " + source + " changed size while it was read");
    }
    reader->base_offset_ = offset;
    reader->source_ = source;
    ARROW_RETURN_NOT_OK(reader->LoadIndex());
    if (reader->load_on_open_ >= offset) return reader->file_info_;
    if (reader->load_on_open_ < 0) return CorruptMetadata("HFile " + source + " has a negative load-on-open offset");
    offset = reader->load_on_open_;  // a larger tail: read from the section's start
  }
  return CorruptMetadata("HFile " + source + " has a load-on-open section that moves");
}

Result<std::shared_ptr<HFileReader>> HFileReader::OpenLazy(std::shared_ptr<arrow::io::RandomAccessFile> file,
                                                           int64_t file_size, std::string source) {
  if (file_size < kTrailerSize) return CorruptMetadata("HFile " + source + " is shorter than its 4096-byte trailer");
  int64_t offset = std::max<int64_t>(0, file_size - 64 * 1024);
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::shared_ptr<HFileReader> reader(new HFileReader());
    ARROW_ASSIGN_OR_RAISE(reader->bytes_, file->ReadAt(offset, file_size - offset));
    if (reader->bytes_->size() != file_size - offset) {
      return CorruptMetadata("HFile " + source + " changed size while it was read");
    }
    reader->base_offset_ = offset;
    reader->file_ = file;
    reader->source_ = source;
    ARROW_RETURN_NOT_OK(reader->LoadIndex());
    if (reader->load_on_open_ >= offset) return reader;
    if (reader->load_on_open_ < 0) return CorruptMetadata("HFile " + source + " has a negative load-on-open offset");
    offset = reader->load_on_open_;  // a larger tail: read from the section's start
  }
  return CorruptMetadata("HFile " + source + " has a load-on-open section that moves");
}

int64_t HFileReader::blocks_decoded() const { return blocks_decoded_.load(); }

Result<std::shared_ptr<arrow::Buffer>> HFileReader::ReadBlock(int64_t offset, int64_t size, std::string_view magic,
                                                              int64_t* on_disk_size) const {
  const std::string where = "block at byte " + std::to_string(offset);
  // A reader of the file's tail holds the bytes from base_offset_ on; a block before them is
  // read from the file (a lazy reader's), exactly its bytes.
  std::shared_ptr<arrow::Buffer> source = bytes_;
  offset -= base_offset_;
  if (offset < 0 && file_ != nullptr && offset + base_offset_ >= 0) {
    const int64_t at = offset + base_offset_;
    int64_t length = size;
    if (length < 0) {
      ARROW_ASSIGN_OR_RAISE(auto header, file_->ReadAt(at, kBlockHeaderSize));
      Cursor h{std::string_view(reinterpret_cast<const char*>(header->data()), static_cast<size_t>(header->size()))};
      h.Take(8);
      const int32_t rest = h.Int32();
      if (!h.ok || rest < 0) return Corrupt(where + " is truncated");
      length = kBlockHeaderSize + rest;
    }
    ARROW_ASSIGN_OR_RAISE(source, file_->ReadAt(at, length));
    if (source->size() != length) return Corrupt(where + " is truncated");
    offset = 0;
  }
  const std::string_view file(reinterpret_cast<const char*>(source->data()), static_cast<size_t>(source->size()));
  if (offset < 0 || offset > static_cast<int64_t>(file.size())) return Corrupt(where + " lies outside the file");
  Cursor c{file.substr(static_cast<size_t>(offset))};
  const std::string_view block_magic = c.Take(8);
  const int32_t on_disk_without_header = c.Int32();
  const int32_t uncompressed = c.Int32();
  c.Int64();  // previous block offset
  const std::string_view checksum_type = c.Take(1);
  const int32_t bytes_per_checksum = c.Int32();
  const int32_t on_disk_data_with_header = c.Int32();
  if (!c.ok) return Corrupt(where + " is truncated");
  if (block_magic == kEncodedDataMagic) {
    return UnsupportedFeature("HFile " + source_ + " uses a data block encoding, which this build does not read");
  }
  if (block_magic != magic) {
    return Corrupt(where + " is '" + std::string(block_magic) + "', not the expected '" + std::string(magic) + "'");
  }
  if (on_disk_without_header < 0 || uncompressed < 0 || on_disk_data_with_header < kBlockHeaderSize ||
      on_disk_data_with_header > kBlockHeaderSize + on_disk_without_header ||
      offset + kBlockHeaderSize + on_disk_without_header > static_cast<int64_t>(file.size()) ||
      (size >= 0 && size != kBlockHeaderSize + on_disk_without_header)) {
    return Corrupt(where + " has inconsistent sizes");
  }
  if (on_disk_size != nullptr) *on_disk_size = kBlockHeaderSize + on_disk_without_header;
  // Checksums after the data, one per bytes_per_checksum of header and data, of HBase's type:
  // CRC32C (2, as HBase and Lakeshore write them) or CRC32 (1); Hudi's own writer writes none
  // (0), leaving their room zeroed. Any other type is damage, not a reason to read the block
  // unverified, and so is type 0 over checksums that are there: a bit flipped in a type 2.
  const int type = static_cast<uint8_t>(checksum_type[0]);
  if (type > 2) return Corrupt(where + " has an unknown checksum type " + std::to_string(type));
  if (type == 0) {
    const std::string_view room = file.substr(static_cast<size_t>(offset + on_disk_data_with_header),
                                              static_cast<size_t>(kBlockHeaderSize + on_disk_without_header -
                                                                  on_disk_data_with_header));
    if (room.find_first_not_of('\0') != std::string_view::npos) {
      return Corrupt(where + " says it has no checksums (type 0) but holds some");
    }
  } else {
    if (bytes_per_checksum <= 0) return Corrupt(where + " has a non-positive checksum chunk size");
    const int64_t chunks =
        (static_cast<int64_t>(on_disk_data_with_header) + bytes_per_checksum - 1) / bytes_per_checksum;
    if (on_disk_data_with_header + 4 * chunks > kBlockHeaderSize + on_disk_without_header) {
      return Corrupt(where + " has no room for its checksums");
    }
    for (int64_t k = 0; k < chunks; ++k) {
      const int64_t start = k * bytes_per_checksum;
      const int64_t length = std::min<int64_t>(bytes_per_checksum, on_disk_data_with_header - start);
      const std::string_view chunk = file.substr(static_cast<size_t>(offset + start), static_cast<size_t>(length));
      const uint32_t expected = type == 2 ? Crc32c(chunk) : arrow::internal::crc32(0, chunk.data(), chunk.size());
      Cursor sum{file.substr(static_cast<size_t>(offset + on_disk_data_with_header + 4 * k), 4)};
      if (static_cast<uint32_t>(sum.Int32()) != expected) {
        return Corrupt(where + " fails its checksum (chunk " + std::to_string(k) + ")");
      }
    }
  }
  const int64_t data_start = offset + kBlockHeaderSize;
  if (codec_ == kCodecNone) {
    if (uncompressed > on_disk_data_with_header - kBlockHeaderSize) return Corrupt(where + " is shorter than it says");
    return arrow::SliceBuffer(source, data_start, uncompressed);
  }
  // Deflate expands at most about 1032:1: a larger claim is damage, not a reason to allocate.
  if (uncompressed / 1032 > on_disk_data_with_header - kBlockHeaderSize + 1) {
    return Corrupt(where + " claims an impossible uncompressed size");
  }
  ARROW_ASSIGN_OR_RAISE(auto codec, arrow::util::Codec::Create(arrow::Compression::GZIP));
  ARROW_ASSIGN_OR_RAISE(auto out, arrow::AllocateBuffer(uncompressed));
  auto decompressed = codec->Decompress(on_disk_data_with_header - kBlockHeaderSize, source->data() + data_start,
                                        uncompressed, out->mutable_data());
  if (!decompressed.ok() || *decompressed != uncompressed) {
    return Corrupt(where + " does not decompress to its " + std::to_string(uncompressed) + " bytes");
  }
  return std::shared_ptr<arrow::Buffer>(std::move(out));
}

Status HFileReader::LoadIndex() {
  const int64_t file_size = base_offset_ + bytes_->size();
  if (file_size < kTrailerSize) return Corrupt("is shorter than its 4096-byte trailer");
  if (bytes_->size() < kTrailerSize) return Corrupt("is shorter than its 4096-byte trailer");
  const std::string_view trailer(reinterpret_cast<const char*>(bytes_->data() + bytes_->size() - kTrailerSize),
                                 static_cast<size_t>(kTrailerSize));
  if (trailer.substr(0, 8) != kTrailerMagic) return Corrupt("has no trailer magic");
  Cursor version{trailer.substr(kTrailerSize - 4)};
  const auto minor = static_cast<uint32_t>(version.BigEndian(1));
  const auto major = static_cast<uint32_t>(version.BigEndian(3));
  if (major != 3) {
    return UnsupportedFeature("HFile " + source_ + " is version " + std::to_string(major) + "." +
                              std::to_string(minor) + "; this build reads version 3");
  }
  auto body = Delimited(trailer.substr(8, kTrailerSize - 12));
  ProtoMessage t;
  if (!body || !ParseProto(*body, &t)) return Corrupt("has a trailer that does not decode");
  auto field = [&](uint32_t n, uint64_t fallback) {
    auto it = t.varints.find(n);
    return it == t.varints.end() ? fallback : it->second;
  };
  const auto load_on_open = static_cast<int64_t>(field(2, 0));
  const auto data_index_count = static_cast<int64_t>(field(5, 0));
  const auto meta_index_count = static_cast<int64_t>(field(6, 0));
  num_entries_ = static_cast<int64_t>(field(7, 0));
  index_levels_ = static_cast<int>(field(8, 1));
  codec_ = static_cast<int>(field(12, kCodecNone));
  if (codec_ != kCodecGz && codec_ != kCodecNone) {
    return UnsupportedFeature("HFile " + source_ + " uses compression codec " + std::to_string(codec_) +
                              "; this build reads GZ and uncompressed HFiles");
  }
  if (index_levels_ < 1 || index_levels_ > 8 || data_index_count < 0 || meta_index_count < 0 || num_entries_ < 0 ||
      data_index_count > file_size / 13 || meta_index_count > file_size / 13) {
    return Corrupt("has an implausible trailer");
  }

  if (load_on_open < base_offset_) {
    load_on_open_ = load_on_open;
    return Status::OK();  // a tail too short: FileInfoFromTail asks for more
  }
  load_on_open_ = load_on_open;
  // The root data index, then the meta index, then the file info.
  int64_t on_disk = 0;
  ARROW_ASSIGN_OR_RAISE(auto root, ReadBlock(load_on_open, -1, kRootIndexMagic, &on_disk));
  auto root_entries = [&](const arrow::Buffer& block, int64_t count,
                          std::vector<IndexEntry>* out) -> Status {
    Cursor c{std::string_view(reinterpret_cast<const char*>(block.data()), static_cast<size_t>(block.size()))};
    for (int64_t i = 0; i < count; ++i) {
      IndexEntry e;
      e.offset = c.Int64();
      e.size = c.Int32();
      const int64_t len = c.VLong();
      if (len < 0) return Corrupt("has a negative index key length");
      e.first_key = std::string(c.Take(static_cast<size_t>(len)));
      if (!c.ok) return Corrupt("has a truncated root index");
      out->push_back(std::move(e));
    }
    return Status::OK();
  };
  std::vector<IndexEntry> level;
  ARROW_RETURN_NOT_OK(root_entries(*root, data_index_count, &level));
  const int64_t meta_offset = load_on_open + on_disk;
  // Lower levels (intermediate, then leaf) in the non-root format; a tail reader has none.
  for (int depth = 1; depth < index_levels_ && (base_offset_ == 0 || file_ != nullptr); ++depth) {
    const std::string_view magic = depth + 1 == index_levels_ ? kLeafIndexMagic : kIntermediateIndexMagic;
    std::vector<IndexEntry> next;
    for (const IndexEntry& parent : level) {
      ARROW_ASSIGN_OR_RAISE(auto block, ReadBlock(parent.offset, parent.size, magic));
      Cursor c{std::string_view(reinterpret_cast<const char*>(block->data()), static_cast<size_t>(block->size()))};
      const int32_t count = c.Int32();
      if (!c.ok || count < 0 || static_cast<int64_t>(count) > block->size() / 16) {
        return Corrupt("has a damaged index block at byte " + std::to_string(parent.offset));
      }
      std::vector<int32_t> relative(static_cast<size_t>(count) + 1);
      for (auto& r : relative) r = c.Int32();
      const size_t base = c.pos;
      for (int32_t i = 0; i < count; ++i) {
        const auto start = static_cast<int64_t>(relative[static_cast<size_t>(i)]);
        const auto end = static_cast<int64_t>(relative[static_cast<size_t>(i) + 1]);
        if (!c.ok || end - start < 12) return Corrupt("has a damaged index block at byte " + std::to_string(parent.offset));
        c.pos = base + static_cast<size_t>(start);
        IndexEntry e;
        e.offset = c.Int64();
        e.size = c.Int32();
        e.first_key = std::string(c.Take(static_cast<size_t>(end - start - 12)));
        if (!c.ok) return Corrupt("has a damaged index block at byte " + std::to_string(parent.offset));
        next.push_back(std::move(e));
      }
    }
    level = std::move(next);
  }
  for (IndexEntry& e : level) {
    auto row = RowOf(e.first_key);
    if (!row) return Corrupt("has an index key that is not an HBase key");
    e.first_key = std::string(*row);
  }
  index_ = std::move(level);

  ARROW_ASSIGN_OR_RAISE(auto meta, ReadBlock(meta_offset, -1, kRootIndexMagic, &on_disk));
  std::vector<IndexEntry> meta_entries;
  ARROW_RETURN_NOT_OK(root_entries(*meta, meta_index_count, &meta_entries));
  ARROW_ASSIGN_OR_RAISE(auto info, ReadBlock(meta_offset + on_disk, -1, kFileInfoMagic));
  const std::string_view info_bytes(reinterpret_cast<const char*>(info->data()), static_cast<size_t>(info->size()));
  if (info_bytes.substr(0, 4) != "PBUF") return Corrupt("has a file info block without its PBUF magic");
  auto info_body = Delimited(info_bytes.substr(4));
  ProtoMessage pairs;
  if (!info_body || !ParseProto(*info_body, &pairs)) return Corrupt("has a file info block that does not decode");
  for (const auto& [number, pair] : pairs.bytes) {
    if (number != 1) continue;
    ProtoMessage kv;
    if (!ParseProto(pair, &kv)) return Corrupt("has a file info entry that does not decode");
    std::string key, value;
    for (const auto& [n, b] : kv.bytes) (n == 1 ? key : value) = std::string(b);
    file_info_[key] = value;
  }
  has_tags_ = file_info_.count("hfile.MAX_TAGS_LEN") > 0;
  auto kv_version = file_info_.find("KEY_VALUE_VERSION");
  has_mvcc_ = kv_version == file_info_.end() || kv_version->second != std::string("\0\0\0\0", 4);
  return Status::OK();
}

namespace {
uint32_t BigEndian32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return __builtin_bswap32(v);
}

}  // namespace

template <typename Visit>
Status HFileReader::WalkBlock(size_t i, Visit&& visit) const {
  const IndexEntry& e = index_[i];
  ARROW_ASSIGN_OR_RAISE(auto block, ReadBlock(e.offset, e.size, kDataMagic));
  blocks_decoded_.fetch_add(1);
  // Each key-value: int32 key length, int32 value length, the key (int16 row length, the row,
  // ...), the value, the tags when the file has them, the memstore timestamp (a vlong: Hudi's
  // HFiles carry one, 0, and no tags). Parsed in place: a block holds hundreds.
  const char* p = reinterpret_cast<const char*>(block->data());
  const char* const end = p + block->size();
  auto truncated = [&] { return Corrupt("has a truncated key-value in the block at byte " + std::to_string(e.offset)); };
  while (p < end) {
    if (end - p < 8) return truncated();
    const auto key_len = static_cast<int32_t>(BigEndian32(p));
    const auto value_len = static_cast<int32_t>(BigEndian32(p + 4));
    p += 8;
    if (key_len < 2 || value_len < 0) return Corrupt("has a damaged key-value in the block at byte " + std::to_string(e.offset));
    if (end - p < static_cast<int64_t>(key_len) + value_len) return truncated();
    const std::string_view key(p, static_cast<size_t>(key_len));
    p += key_len;
    const std::string_view value(p, static_cast<size_t>(value_len));
    p += value_len;
    if (has_tags_) {
      if (end - p < 2) return truncated();
      const auto tags_len = static_cast<int16_t>((static_cast<uint8_t>(p[0]) << 8) | static_cast<uint8_t>(p[1]));
      p += 2;
      if (tags_len > 0) {
        if (end - p < tags_len) return truncated();
        p += tags_len;
      }
    }
    if (has_mvcc_) {
      if (p >= end) return truncated();
      const auto first = static_cast<int8_t>(*p++);
      if (first < -112) {
        const int more = (first < -120 ? -119 - first : -111 - first) - 1;  // Hadoop's vlong
        if (end - p < more) return truncated();
        p += more;
      }
    }
    const auto row_len = static_cast<int16_t>((static_cast<uint8_t>(key[0]) << 8) | static_cast<uint8_t>(key[1]));
    if (row_len < 0 || row_len > key_len - 2) return truncated();
    if (!visit(key.substr(2, static_cast<size_t>(row_len)), value)) break;
  }
  return Status::OK();
}

size_t HFileReader::BlockFor(std::string_view key) const {
  // The last block whose first key is <= key (its first key may be a shorter separator).
  auto it = std::upper_bound(index_.begin(), index_.end(), key,
                             [](std::string_view k, const IndexEntry& e) { return BytesLess(k, e.first_key); });
  return it == index_.begin() ? 0 : static_cast<size_t>(it - index_.begin() - 1);
}

Status HFileReader::Scan(const std::function<Status(std::string_view, std::string_view)>& visit) const {
  for (size_t i = 0; i < index_.size(); ++i) {
    Status st;
    ARROW_RETURN_NOT_OK(WalkBlock(i, [&](std::string_view key, std::string_view value) {
      st = visit(key, value);
      return st.ok();
    }));
    ARROW_RETURN_NOT_OK(st);
  }
  return Status::OK();
}

Result<std::optional<std::string>> HFileReader::Get(std::string_view key) const {
  ARROW_ASSIGN_OR_RAISE(auto values, GetSorted({key}));
  return std::move(values[0]);
}

Result<std::vector<std::optional<std::string>>> HFileReader::GetSorted(const std::vector<std::string_view>& keys) const {
  std::vector<std::optional<std::string>> out(keys.size());
  ARROW_RETURN_NOT_OK(VisitSorted(keys, [&](size_t k, std::string_view value) {
    out[k] = std::string(value);
    return Status::OK();
  }));
  return out;
}

namespace {
constexpr size_t kPrefetchAhead = 4;
}  // namespace

Status HFileReader::VisitSorted(const std::vector<std::string_view>& keys,
                                const std::function<Status(size_t k, std::string_view value)>& found) const {
  const size_t n = keys.size();
  auto unsorted = [] { return Status::Invalid("HFile lookup keys must be sorted"); };
  if (index_.empty()) return std::is_sorted(keys.begin(), keys.end(), BytesLess) ? Status::OK() : unsorted();
  // The asked keys lie wherever the caller keeps them (sorted views of unsorted keys): the
  // bytes of a key a few ahead are fetched while the blocks are walked to the next, and each
  // key's order against the one before is checked as it is reached, not in a pass of its own
  // (which would fetch every key's bytes twice).
  bool in_order = true;
  size_t k = 0;
  auto advance = [&] {
    if (++k < n) {
      if (k + kPrefetchAhead < n) __builtin_prefetch(keys[k + kPrefetchAhead].data());
      if (BytesLess(keys[k], keys[k - 1])) in_order = false;
    }
    return k < n && in_order;
  };
  while (k < n) {
    // The block keys[k] falls in, walked once for every key before the next block's first key:
    // the keys and the block's entries are both sorted, so each entry costs one comparison
    // until it reaches the next asked key.
    const size_t b = BlockFor(keys[k]);
    const bool last = b + 1 == index_.size();
    const std::string_view next_first = last ? std::string_view() : std::string_view(index_[b + 1].first_key);
    auto in_block = [&](std::string_view key) { return last || BytesLess(key, next_first); };
    Status st;
    ARROW_RETURN_NOT_OK(WalkBlock(b, [&](std::string_view row, std::string_view value) {
      int order = CompareBytes(row, keys[k]);
      if (order < 0) return true;
      while (order > 0) {  // keys between two entries: not in the file
        if (!advance()) return false;
        order = CompareBytes(row, keys[k]);
      }
      if (order < 0) return in_block(keys[k]);
      // The first entry of a key answers it (and a key asked twice, twice).
      do {
        st = found(k, value);
        if (!st.ok() || !advance()) return false;
      } while (SameBytes(keys[k], row));
      return in_block(keys[k]);
    }));
    ARROW_RETURN_NOT_OK(st);
    if (!in_order) return unsorted();
    // Past the block's last entry: not in the file.
    while (k < n && in_block(keys[k])) {
      if (!advance() && !in_order) return unsorted();
    }
  }
  return Status::OK();
}

Status HFileReader::ScanPrefix(std::string_view prefix,
                               const std::function<Status(std::string_view, std::string_view)>& visit) const {
  bool past = false;  // an entry past every key with the prefix ends the scan
  for (size_t i = BlockFor(prefix); i < index_.size() && !past; ++i) {
    // A block whose first key is past every key with the prefix ends the scan.
    if (i > 0 && index_[i].first_key.compare(0, prefix.size(), prefix) > 0) break;
    Status st;
    ARROW_RETURN_NOT_OK(WalkBlock(i, [&](std::string_view key, std::string_view value) {
      if (key.substr(0, prefix.size()) == prefix) {
        st = visit(key, value);
        return st.ok();
      }
      past = key > prefix;
      return !past;
    }));
    ARROW_RETURN_NOT_OK(st);
  }
  return Status::OK();
}

}  // namespace lakeshore::format
