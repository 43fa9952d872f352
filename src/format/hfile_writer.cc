#include "format/hfile_writer.h"

#include "format/hfile_layout.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>

#include <arrow/util/compression.h>
#include <arrow/util/crc32.h>

#include "lakeshore/clock.h"

namespace lakeshore::format {
namespace {

using namespace hfile_layout;  // NOLINT: the layout constants read as the format names them

constexpr int64_t kBytesPerChecksum = 16 * 1024;
constexpr char kChecksumCrc32c = 2;
constexpr int64_t kMaxPayload = int64_t{1} << 30;
constexpr size_t kMaxRowLength = 32767;
/// An entry's bytes besides its row and value: int32 key length, int32 value length, int16 row
/// length, int8 family length, int64 timestamp, int8 type, and the memstore timestamp's byte.
constexpr int64_t kEntryOverhead = 4 + 4 + 2 + 1 + 8 + 1 + 1;
constexpr int64_t kLatestTimestamp = std::numeric_limits<int64_t>::max();
constexpr char kTypePut = 4;
constexpr std::string_view kComparator = "org.apache.hudi.io.storage.HoodieHBaseKVComparator";
constexpr int kMajorVersion = 3;
/// A gzip member's fixed header (10 bytes) and trailer (CRC-32 and size, 8 bytes).
constexpr int64_t kGzipFraming = 18;


void PutBigEndian(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutInt16(std::string* out, int16_t v) { PutBigEndian(out, static_cast<uint16_t>(v), 2); }
void PutInt32(std::string* out, int32_t v) { PutBigEndian(out, static_cast<uint32_t>(v), 4); }
void PutInt64(std::string* out, int64_t v) { PutBigEndian(out, static_cast<uint64_t>(v), 8); }
void PutLittleEndian(std::string* out, uint32_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::string Int32Bytes(int32_t v) {
  std::string out;
  PutInt32(&out, v);
  return out;
}
std::string Int64Bytes(int64_t v) {
  std::string out;
  PutInt64(&out, v);
  return out;
}

/// Hadoop's WritableUtils vlong, for the non-negative lengths of index keys.
void PutVLong(std::string* out, int64_t v) {
  if (v <= 127) {
    out->push_back(static_cast<char>(v));
    return;
  }
  int bytes = 0;
  for (uint64_t rest = static_cast<uint64_t>(v); rest != 0; rest >>= 8) ++bytes;
  out->push_back(static_cast<char>(-112 - bytes));
  PutBigEndian(out, static_cast<uint64_t>(v), bytes);
}

/// A protobuf base-128 varint.
void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}
void PutVarintField(std::string* out, uint32_t field, uint64_t v) {
  PutVarint(out, uint64_t{field} << 3);
  PutVarint(out, v);
}
void PutBytesField(std::string* out, uint32_t field, std::string_view bytes) {
  PutVarint(out, (uint64_t{field} << 3) | 2);
  PutVarint(out, bytes.size());
  out->append(bytes);
}

int64_t ChecksumChunks(int64_t bytes) { return (bytes + kBytesPerChecksum - 1) / kBytesPerChecksum; }

/// True when hudi-rs, counting checksum chunks over the block's on-disk size with the checksums,
/// counts more of them than HBase (over `data_with_header`) and so cuts the block's data short.
bool HudiRsMiscountsChecksums(int64_t data_with_header) {
  const int64_t chunks = ChecksumChunks(data_with_header);
  return ChecksumChunks(data_with_header + 4 * chunks) != chunks;
}

/// One gzip member around a raw deflate stream, with the header java.util.zip writes (no name,
/// no time, OS 0) and, when `extra` > 0, an extra field of `extra` bytes in all (its 2-byte
/// length, then one empty-named subfield when there is room for one).
std::string GzipMember(std::string_view deflated, uint32_t crc, uint32_t size, int extra) {
  std::string out = {'\x1f', '\x8b', '\x08', static_cast<char>(extra > 0 ? 0x04 : 0x00), 0, 0, 0, 0, 0, 0};
  if (extra > 0) {
    const int length = extra - 2;
    PutLittleEndian(&out, static_cast<uint32_t>(length), 2);
    if (length >= 4) {
      out += "LS";  // subfield id, then its length
      PutLittleEndian(&out, static_cast<uint32_t>(length - 4), 2);
    }
    out.append(static_cast<size_t>(length >= 4 ? length - 4 : length), '\0');
  }
  out.append(deflated);
  PutLittleEndian(&out, crc, 4);
  PutLittleEndian(&out, size, 4);
  return out;
}

/// `key` for an error message: printable ASCII as is, other bytes escaped, long keys cut.
std::string Printable(std::string_view key) {
  constexpr size_t kShown = 200;
  std::string out;
  for (char ch : key.substr(0, kShown)) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(ch);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    }
  }
  if (key.size() > kShown) out += "...";
  return out;
}

}  // namespace


HFileWriter::HFileWriter(HFileWriterOptions options) : options_(options) {
  // Hudi's initFileInfo: no entry carries a memstore timestamp.
  file_info_["MAX_MEMSTORE_TS_KEY"] = Int64Bytes(0);
}

HFileWriter::~HFileWriter() = default;
HFileWriter::HFileWriter(HFileWriter&&) noexcept = default;
HFileWriter& HFileWriter::operator=(HFileWriter&&) noexcept = default;

void HFileWriter::AddFileInfo(std::string key, std::string value) { file_info_[std::move(key)] = std::move(value); }

void HFileWriter::AddMetaBlock(std::string name, std::string bytes) {
  meta_blocks_[std::move(name)] = std::move(bytes);
}

Status HFileWriter::Append(std::string_view key, std::string_view value) {
  if (finished_) return Status::Invalid("HFile writer: Append after Finish");
  if (key.empty()) return Status::Invalid("HFile writer: an empty key");
  if (key.size() > kMaxRowLength) {
    return Status::Invalid("HFile writer: the key '", Printable(key), "' has ", key.size(),
                           " bytes, more than the 32767 of an HBase row");
  }
  const int64_t entry_size = static_cast<int64_t>(key.size() + value.size()) + kEntryOverhead;
  if (entry_size > kMaxPayload) {
    return Status::Invalid("HFile writer: the entry of key '", Printable(key), "' has ", entry_size,
                           " bytes, more than the 1 GiB a block may hold");
  }
  if (num_entries_ > 0 && !(std::string_view(last_key_) < key)) {
    return Status::Invalid("HFile writer: keys must be strictly ascending, and '", Printable(key),
                           "' comes after '", Printable(last_key_), "'");
  }
  const int64_t block_limit = std::clamp<int64_t>(options_.block_size, 0, kMaxPayload);
  if (!block_.empty() && static_cast<int64_t>(block_.size()) + entry_size > block_limit) {
    ARROW_RETURN_NOT_OK(FlushDataBlock());
  }
  if (block_.empty()) block_first_key_ = std::string(key);
  PutInt32(&block_, static_cast<int32_t>(key.size() + 12));  // row length, row, family length, timestamp, type
  PutInt32(&block_, static_cast<int32_t>(value.size()));
  PutInt16(&block_, static_cast<int16_t>(key.size()));
  block_.append(key);
  block_.push_back(0);  // family length: no family, and so no qualifier
  PutInt64(&block_, kLatestTimestamp);
  block_.push_back(kTypePut);
  block_.append(value);
  block_.push_back(0);  // memstore timestamp 0 as a vlong
  last_key_ = std::string(key);
  ++num_entries_;
  total_key_bytes_ += static_cast<int64_t>(key.size());
  total_value_bytes_ += static_cast<int64_t>(value.size());
  return Status::OK();
}

Result<std::string> HFileWriter::Deflate(std::string_view payload) {
  if (deflate_ == nullptr) {
    arrow::util::GZipCodecOptions raw;
    raw.gzip_format = arrow::util::GZipFormat::DEFLATE;
    raw.compression_level = options_.compression_level;
    ARROW_ASSIGN_OR_RAISE(deflate_, arrow::util::Codec::Create(arrow::Compression::GZIP, raw));
  }
  const auto* input = reinterpret_cast<const uint8_t*>(payload.data());
  const auto length = static_cast<int64_t>(payload.size());
  std::string out(static_cast<size_t>(deflate_->MaxCompressedLen(length, input)), '\0');
  ARROW_ASSIGN_OR_RAISE(int64_t written, deflate_->Compress(length, input, static_cast<int64_t>(out.size()),
                                                            reinterpret_cast<uint8_t*>(out.data())));
  out.resize(static_cast<size_t>(written));
  return out;
}

Status HFileWriter::WriteBlock(std::string_view magic, std::string_view payload, IndexEntry* entry) {
  std::string compressed;
  std::string_view body = payload;
  if (options_.gzip) {
    ARROW_ASSIGN_OR_RAISE(std::string deflated, Deflate(payload));
    int extra = 0;
    while (HudiRsMiscountsChecksums(kBlockHeaderSize + kGzipFraming + static_cast<int64_t>(deflated.size()) + extra)) {
      extra = extra == 0 ? 2 : std::max(extra + 1, 6);  // an extra field of 3 to 5 bytes has no room for a subfield
    }
    compressed = GzipMember(deflated, arrow::internal::crc32(0, payload.data(), payload.size()),
                            static_cast<uint32_t>(payload.size()), extra);
    body = compressed;
  }
  const auto offset = static_cast<int64_t>(file_.size());
  const int64_t data_with_header = kBlockHeaderSize + static_cast<int64_t>(body.size());
  const int64_t checksum_bytes = 4 * ChecksumChunks(data_with_header);
  auto previous = last_offset_by_magic_.find(std::string(magic));
  file_.append(magic);
  PutInt32(&file_, static_cast<int32_t>(static_cast<int64_t>(body.size()) + checksum_bytes));
  PutInt32(&file_, static_cast<int32_t>(payload.size()));
  PutInt64(&file_, previous == last_offset_by_magic_.end() ? -1 : previous->second);
  file_.push_back(kChecksumCrc32c);
  PutInt32(&file_, static_cast<int32_t>(kBytesPerChecksum));
  PutInt32(&file_, static_cast<int32_t>(data_with_header));
  file_.append(body);
  for (int64_t at = 0; at < data_with_header; at += kBytesPerChecksum) {
    const std::string_view chunk = std::string_view(file_).substr(
        static_cast<size_t>(offset + at), static_cast<size_t>(std::min(kBytesPerChecksum, data_with_header - at)));
    PutInt32(&file_, static_cast<int32_t>(Crc32c(chunk)));
  }
  last_offset_by_magic_[std::string(magic)] = offset;
  entry->offset = offset;
  entry->size = static_cast<int32_t>(static_cast<int64_t>(file_.size()) - offset);
  return Status::OK();
}

Status HFileWriter::FlushDataBlock() {
  if (block_.empty()) return Status::OK();
  IndexEntry entry;
  ARROW_RETURN_NOT_OK(WriteBlock(kDataMagic, block_, &entry));
  entry.key = std::move(block_first_key_);
  if (first_data_offset_ < 0) first_data_offset_ = entry.offset;
  last_data_offset_ = entry.offset;
  total_data_bytes_ += static_cast<int64_t>(block_.size());
  data_index_.push_back(std::move(entry));
  block_.clear();
  return Status::OK();
}

Result<std::string> HFileWriter::Finish() {
  if (finished_) return Status::Invalid("HFile writer: Finish called twice");
  finished_ = true;
  ARROW_RETURN_NOT_OK(FlushDataBlock());

  // Meta blocks, then the load-on-open section: root data index, meta index, file info.
  std::string meta_index;
  for (const auto& [name, bytes] : meta_blocks_) {
    if (static_cast<int64_t>(bytes.size()) > kMaxPayload) {
      return Status::Invalid("HFile writer: the meta block '", Printable(name), "' is over 1 GiB");
    }
    IndexEntry entry;
    ARROW_RETURN_NOT_OK(WriteBlock(kMetaMagic, bytes, &entry));
    PutInt64(&meta_index, entry.offset);
    PutInt32(&meta_index, entry.size);
    PutVLong(&meta_index, static_cast<int64_t>(name.size()));
    meta_index += name;
  }
  std::string root_index;
  for (const IndexEntry& e : data_index_) {
    PutInt64(&root_index, e.offset);
    PutInt32(&root_index, e.size);
    PutVLong(&root_index, static_cast<int64_t>(e.key.size()) + 2);
    PutInt16(&root_index, static_cast<int16_t>(e.key.size()));
    root_index += e.key;
  }
  const auto load_on_open = static_cast<int64_t>(file_.size());
  IndexEntry written;
  ARROW_RETURN_NOT_OK(WriteBlock(kRootIndexMagic, root_index, &written));
  ARROW_RETURN_NOT_OK(WriteBlock(kRootIndexMagic, meta_index, &written));

  // Hudi's finishFileInfo.
  std::string last_key;
  if (!last_key_.empty()) {
    PutInt16(&last_key, static_cast<int16_t>(last_key_.size()));
    last_key += last_key_;
  }
  file_info_["hfile.LASTKEY"] = std::move(last_key);
  file_info_["hfile.AVG_KEY_LEN"] =
      Int32Bytes(num_entries_ == 0 ? 0 : static_cast<int32_t>(total_key_bytes_ / num_entries_));
  file_info_["hfile.AVG_VALUE_LEN"] =
      Int32Bytes(num_entries_ == 0 ? 0 : static_cast<int32_t>(total_value_bytes_ / num_entries_));
  file_info_["hfile.CREATE_TIME_TS"] =
      Int64Bytes(options_.create_time_ms >= 0 ? options_.create_time_ms : Clock::System()->NowMs());
  file_info_.try_emplace("KEY_VALUE_VERSION", Int32Bytes(1));
  std::string pairs;
  for (const auto& [name, value] : file_info_) {
    std::string pair;
    PutBytesField(&pair, 1, name);
    PutBytesField(&pair, 2, value);
    PutBytesField(&pairs, 1, pair);
  }
  std::string info = "PBUF";
  PutVarint(&info, pairs.size());
  info += pairs;
  if (static_cast<int64_t>(info.size()) > kMaxPayload) {
    return Status::Invalid("HFile writer: the file info is over 1 GiB");
  }
  const auto file_info_offset = static_cast<int64_t>(file_.size());
  ARROW_RETURN_NOT_OK(WriteBlock(kFileInfoMagic, info, &written));

  // The trailer, with the fields Hudi's writeTrailer sets.
  std::string fields;
  PutVarintField(&fields, 1, static_cast<uint64_t>(file_info_offset));
  PutVarintField(&fields, 2, static_cast<uint64_t>(load_on_open));
  PutVarintField(&fields, 3, static_cast<uint64_t>(total_data_bytes_));
  PutVarintField(&fields, 5, data_index_.size());
  PutVarintField(&fields, 6, meta_blocks_.size());
  PutVarintField(&fields, 7, static_cast<uint64_t>(num_entries_));
  PutVarintField(&fields, 8, 1);  // index levels
  PutVarintField(&fields, 9, static_cast<uint64_t>(first_data_offset_));  // -1 when there is none, as Hudi writes
  PutVarintField(&fields, 10, static_cast<uint64_t>(last_data_offset_));
  PutBytesField(&fields, 11, kComparator);
  PutVarintField(&fields, 12, options_.gzip ? kCodecGz : kCodecNone);
  std::string trailer(kTrailerMagic);
  PutVarint(&trailer, fields.size());
  trailer += fields;
  trailer.resize(static_cast<size_t>(kTrailerSize - 4), '\0');
  PutInt32(&trailer, kMajorVersion);  // minor version 0 in the first byte
  file_ += trailer;
  return std::move(file_);
}

}  // namespace lakeshore::format
