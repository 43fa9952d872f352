// Internal: writing HFiles (HBase's HFile version 3) as Hudi 1.x's own writer, HFileWriterImpl,
// writes them for the metadata table's base files and HFile log blocks. The format is the one
// `format/hfile.h` reads; this file says what the writer puts in it.
//
// Layout, in file order:
//   data blocks ("DATABLK*"): the entries in key order, each int32 key length, int32 value
//     length, the HBase key (int16 row length, the row — Hudi's record key —, int8 family
//     length 0, no qualifier, int64 timestamp Long.MAX_VALUE, type Put 4), the value, and a
//     memstore timestamp of 0 (one byte). A block ends before the entry that would take its
//     uncompressed payload past `block_size` (an entry larger than that gets a block alone);
//   meta blocks ("METABLKc"), one per named meta block, its bytes alone, in name order;
//   the load-on-open section: the root data index ("IDXROOT2": per data block int64 offset,
//     int32 on-disk size, vlong key length, the key as int16 row length and row), the meta
//     index (the same form, keyed by the raw name), the file info ("FILEINF2": "PBUF", then a
//     length-delimited protobuf of name-value byte pairs);
//   the 4096-byte trailer: "TRABLK\"$", a length-delimited protobuf (file info offset,
//     load-on-open offset, uncompressed data bytes, data and meta index counts, entry count,
//     one index level, first and last data block offsets, comparator
//     "org.apache.hudi.io.storage.HoodieHBaseKVComparator", codec), zeros, and the version
//     0x00000003 (minor 0, major 3) in the last four bytes.
// Every block is a 33-byte header (magic, on-disk size without header, uncompressed size,
// previous block offset, checksum type, bytes per checksum 16384, on-disk data size with
// header), its payload (with GZ: one gzip member per block, deflated at java.util.zip's default
// level, so its bytes are those Hudi writes) and the checksums: one big-endian CRC32C per 16384
// bytes of header and payload.
//
// Like Hudi's writer: one index level however many blocks there are (its TODO HUDI-9464), the
// file info entries it adds (MAX_MEMSTORE_TS_KEY, hfile.LASTKEY as int16 length and row,
// hfile.AVG_KEY_LEN and hfile.AVG_VALUE_LEN over rows and values, hfile.CREATE_TIME_TS,
// KEY_VALUE_VERSION 1 unless the caller set it), the trailer fields it sets (no
// total_uncompressed_bytes; uncompressed_data_index_size is the data blocks' uncompressed bytes,
// as its released files carry) and the gzip header Java writes. Where Hudi's writer is only one
// way of many, this one does what HBase does, which every reader accepts:
//   - checksums are real CRC32C (type 2), not Hudi's zeroed NULL ones (type 0);
//   - a block's previous-block offset is that of the last block of its type, or -1;
//   - index key lengths are Hadoop vlongs, the form readers decode (Hudi writes protobuf
//     varints, the same bytes below 128);
//   - meta blocks come in name order, as HBase's binary search of the meta index needs, and
//     file info entries too (Hudi's come in Java HashMap order);
//   - a block's size counts each entry's real bytes (Hudi's source counts key + value + 9;
//     the trailers of its released files count the real bytes).
// One addition for hudi-rs, which counts a block's checksum chunks over its on-disk size
// including the checksums (HBase counts without them): a gzip block whose size would make the
// two counts differ gets a few bytes of gzip header extra field (FEXTRA), which every gzip
// reader skips, so hudi-rs finds the whole gzip member.
//
// The two protobuf messages are encoded by hand (varints and length-delimited fields), as the
// reader decodes them: two small messages do not justify a protobuf library.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/crc32c.h"
#include "lakeshore/status.h"

namespace arrow::util {
class Codec;
}  // namespace arrow::util

namespace lakeshore::format {


/// How an HFileWriter lays out its file.
struct HFileWriterOptions {
  /// Uncompressed data bytes per data block before a new block starts (Hudi's
  /// hoodie.hfile.block.size default). At most 1 GiB counts; 0 or less puts each entry in a
  /// block of its own.
  int32_t block_size = 64 * 1024;
  /// GZ (Hadoop codec id 1: each block a gzip member, as Hudi writes it) or none (id 2).
  bool gzip = true;
  /// The deflate level of GZ blocks: 6 is Java's Deflater.DEFAULT_COMPRESSION, Hudi's (the
  /// blocks then come out byte for byte as Hudi's); 1 deflates several times faster, and every
  /// reader reads either.
  int compression_level = 6;
  /// hfile.CREATE_TIME_TS in milliseconds since the epoch; negative: the system clock when
  /// Finish runs. Set it for byte-identical output.
  int64_t create_time_ms = -1;
};

/// Builds one HFile in memory, entry by entry in key order, as Hudi's HFileWriterImpl does.
/// Data blocks are compressed as they fill, so memory is the file so far plus one block.
/// Not thread-safe.
class HFileWriter {
 public:
  explicit HFileWriter(HFileWriterOptions options = {});
  ~HFileWriter();
  HFileWriter(HFileWriter&&) noexcept;
  HFileWriter& operator=(HFileWriter&&) noexcept;

  /// Appends an entry. Keys must be strictly ascending byte-wise (memcmp order, as Hudi's
  /// comparator) → kInvalid naming the key otherwise. The key is Hudi's record key (the HBase
  /// row); family/qualifier empty, timestamp and type as Hudi writes them. An empty key, a key
  /// over 32767 bytes (the int16 row length), an entry over 1 GiB, or a call after Finish →
  /// kInvalid; the writer is unchanged then. Amortized O(key + value).
  Status Append(std::string_view key, std::string_view value);

  /// Adds a file-info entry (written in the FILEINF2 block; Hudi's own entries like
  /// hfile.LASTKEY, AVG_KEY_LEN etc. are added by Finish as Hudi does, replacing the caller's,
  /// except KEY_VALUE_VERSION, which Finish adds only when absent). A later entry of the same
  /// name replaces the earlier one.
  void AddFileInfo(std::string key, std::string value);

  /// Adds a meta block (Hudi writes e.g. its bloom filter as a meta block) — named, raw bytes.
  /// A later block of the same name replaces the earlier one.
  void AddMetaBlock(std::string name, std::string bytes);

  /// The whole file. Callable once (again → kInvalid); a meta block or the file info over
  /// 1 GiB → kInvalid. O(file size).
  Result<std::string> Finish();

  /// Entries appended so far.
  int64_t num_entries() const { return num_entries_; }

 private:
  struct IndexEntry {
    std::string key;
    int64_t offset = 0;
    int32_t size = 0;
  };

  /// Writes the data block being filled, if it has entries, and indexes it.
  Status FlushDataBlock();
  /// Appends a block of type `magic` with `payload` to the file; its offset and on-disk size
  /// (header and checksums included) go to `entry`. The file is unchanged on error.
  Status WriteBlock(std::string_view magic, std::string_view payload, IndexEntry* entry);
  /// `payload` as a raw deflate stream at java.util.zip's default level.
  Result<std::string> Deflate(std::string_view payload);

  HFileWriterOptions options_;
  std::unique_ptr<arrow::util::Codec> deflate_;
  std::string file_;
  std::string block_;  ///< the uncompressed payload of the data block being filled
  std::string block_first_key_;
  std::string last_key_;
  int64_t num_entries_ = 0;
  int64_t total_key_bytes_ = 0;
  int64_t total_value_bytes_ = 0;
  int64_t total_data_bytes_ = 0;  ///< uncompressed payloads of the data blocks written
  int64_t first_data_offset_ = -1;
  int64_t last_data_offset_ = 0;
  std::vector<IndexEntry> data_index_;
  std::map<std::string, int64_t> last_offset_by_magic_;
  std::map<std::string, std::string> file_info_;
  std::map<std::string, std::string> meta_blocks_;
  bool finished_ = false;
};

}  // namespace lakeshore::format
