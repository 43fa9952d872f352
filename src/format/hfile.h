// Internal: reading HFiles (HBase's HFile version 3, as Hudi 1.x writes them for the metadata
// table's base files and HFile log blocks).
//
// An HFile is a run of blocks, each a 33-byte header (magic, on-disk and uncompressed sizes,
// previous block offset, checksum type, bytes per checksum, on-disk data size with header),
// its data (compressed with the file's codec: Hudi uses GZ or none) and its checksums (HBase's type
// code: CRC32C, CRC32, or none as Hudi's own writer leaves them; any other code is damage):
//   data blocks ("DATABLK*") of key-values: int32 key length, int32 value length, the key
//     (int16 row length, the row — Hudi's record key —, family, qualifier, timestamp, type),
//     the value, then the memstore timestamp as a Hadoop vlong (0 in Hudi's files);
//   leaf and intermediate index blocks ("IDXLEAF2", "IDXINTE2"): int32 count, count+1 int32
//     relative offsets, then per entry int64 block offset, int32 block size, the key;
//   the load-on-open section: the root data index ("IDXROOT2": per entry int64 offset, int32
//     size, vint key length, key), the meta index (same form), the file info ("FILEINF2":
//     "PBUF" then a length-delimited protobuf of byte pairs);
//   the trailer: the last 4096 bytes, "TRABLK\"$" and a length-delimited protobuf with the
//     offsets and counts, the version in the last four bytes (minor byte, then 3-byte major).
// The protobufs are decoded by hand (varints and length-delimited fields only): two small
// messages do not justify a protobuf library.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <arrow/buffer.h>
#include <arrow/io/interfaces.h>

#include "lakeshore/status.h"

namespace lakeshore::format {

/// A read-only HFile over its bytes. The index is loaded when the file opens (every level down
/// to the blocks), so a point lookup decodes one data block; blocks are decoded on demand and
/// not cached (a batch lookup keeps its current block). Thread-safe for concurrent reads.
class HFileReader {
 public:
  /// Opens the HFile `bytes`; `source` names it in errors. Not an HFile version 3, damaged or
  /// truncated framing, an unknown codec, or an encoded data block → kCorruptMetadata (or
  /// kUnsupportedFeature for a codec or encoding this build does not read) naming `source`.
  static Result<std::shared_ptr<HFileReader>> Open(std::shared_ptr<arrow::Buffer> bytes, std::string source);

  /// Key-value entries in the file (the trailer's count).
  int64_t num_entries() const { return num_entries_; }
  /// The file info map (hfile.LASTKEY, Hudi's schema and key range, ...).
  const std::map<std::string, std::string>& file_info() const { return file_info_; }
  /// Data blocks the index names.
  int64_t num_data_blocks() const { return static_cast<int64_t>(index_.size()); }
  /// Levels of the data index (1: the root names the data blocks).
  int num_index_levels() const { return index_levels_; }

  /// Calls `visit(key, value)` for every entry in key order; stops at the first error it returns.
  Status Scan(const std::function<Status(std::string_view key, std::string_view value)>& visit) const;

  /// The value of the first entry whose key is `key`, or nullopt. Decodes at most one data block.
  Result<std::optional<std::string>> Get(std::string_view key) const;

  /// The values of `keys`, which must be sorted ascending (kInvalid otherwise), in one forward
  /// pass: each data block is decoded at most once. nullopt for a key not in the file.
  Result<std::vector<std::optional<std::string>>> GetSorted(const std::vector<std::string_view>& keys) const;

  /// As GetSorted, without copying: calls `found(k, value)` for each key `keys[k]` in the file,
  /// in order, with a view of its value that lives only during the call (the block it lies in
  /// is then released). Stops at the first error `found` returns.
  Status VisitSorted(const std::vector<std::string_view>& keys,
                     const std::function<Status(size_t k, std::string_view value)>& found) const;

  /// Calls `visit` for every entry whose key starts with `prefix`, in key order; decodes only
  /// the blocks that can hold such keys.
  Status ScanPrefix(std::string_view prefix,
                    const std::function<Status(std::string_view key, std::string_view value)>& visit) const;

  /// Opens the HFile `file` of `file_size` bytes lazily: its tail (trailer, index, file info) is
  /// read now, and each data block (and lower index level) when a lookup needs it, by a ranged
  /// read of exactly its bytes. For point and sorted-batch lookups in large files: the cost
  /// follows the blocks the keys fall in, not the file. Errors as Open.
  static Result<std::shared_ptr<HFileReader>> OpenLazy(std::shared_ptr<arrow::io::RandomAccessFile> file,
                                                       int64_t file_size, std::string source);

  /// The file info map of an HFile of `file_size` bytes, from its tail only (the trailer and
  /// the load-on-open section): `read_from(offset)` returns the bytes from `offset` to the end.
  /// Cost: one read of the last 64 KiB, and a second when the section starts before them.
  static Result<std::map<std::string, std::string>> FileInfoFromTail(
      const std::function<Result<std::shared_ptr<arrow::Buffer>>(int64_t offset)>& read_from, int64_t file_size,
      std::string source);

  /// Data blocks decoded so far (for tests of the O(1)-blocks promise).
  int64_t blocks_decoded() const;

 private:
  struct IndexEntry {
    std::string first_key;  ///< the row of the block's first key (or a shorter separator)
    int64_t offset = 0;
    int32_t size = 0;
  };
  HFileReader() = default;
  Status LoadIndex();
  /// The decoded data of the block at `offset` (`size` bytes on disk with header, -1: from the
  /// header), checked to be of type `magic`.
  Result<std::shared_ptr<arrow::Buffer>> ReadBlock(int64_t offset, int64_t size, std::string_view magic,
                                                   int64_t* on_disk_size = nullptr) const;
  /// Calls `visit(row, value)` (returning false to stop) for the key-values of data block `i` in
  /// order, each parsed as it is reached; the views live during the call. A visitor that fails
  /// keeps its own Status and stops.
  template <typename Visit>
  Status WalkBlock(size_t i, Visit&& visit) const;
  /// The index of the first data block that may hold `key` (the last whose first key <= key).
  size_t BlockFor(std::string_view key) const;
  Status Corrupt(const std::string& what) const;

  std::shared_ptr<arrow::Buffer> bytes_;
  std::string source_;
  int codec_ = 2;  ///< Hadoop's compression ids: 1 GZ, 2 none
  int64_t base_offset_ = 0;    ///< where bytes_ starts in the file (a tail reader's)
  /// A lazy reader's file, from which blocks before base_offset_ are read; null otherwise.
  std::shared_ptr<arrow::io::RandomAccessFile> file_;
  int64_t load_on_open_ = -1;  ///< the trailer's load-on-open offset
  int64_t num_entries_ = 0;
  int index_levels_ = 1;
  std::vector<IndexEntry> index_;
  std::map<std::string, std::string> file_info_;
  bool has_tags_ = false;  ///< key-values carry tags (hfile.MAX_TAGS_LEN in the file info)
  bool has_mvcc_ = true;   ///< key-values end with a memstore timestamp (KEY_VALUE_VERSION 1)
  mutable std::atomic<int64_t> blocks_decoded_{0};
};

}  // namespace lakeshore::format
