// Internal: Hudi's bloom filters of record keys, in Hudi's serialized form, as base files
// carry them in their Parquet footer (`org.apache.hudi.bloomfilter`) and the metadata table's
// bloom_filters partition stores them. Bit for bit what Hudi (Hadoop's BloomFilter with
// Hudi's MurmurHash) computes, so a filter Spark wrote answers the same here, and the reverse.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "format/bloom_hash_kernel.h"
#include "lakeshore/status.h"

namespace lakeshore::format {

/// SIMPLE (one fixed-size filter) or DYNAMIC_V0 (rows of filters added as keys arrive, up to a
/// bound; Hudi's default).
enum class BloomFilterType { kSimple, kDynamicV0 };

/// A bloom filter of record keys.
class BloomFilter {
 public:
  /// Hudi's defaults: hoodie.index.bloom.num_entries, .fpp, filter.dynamic.max.entries.
  static constexpr int32_t kDefaultNumEntries = 60000;
  static constexpr double kDefaultFpp = 0.000000001;
  static constexpr int32_t kDefaultDynamicMaxEntries = 100000;

  /// A filter sized for `num_entries` keys at false-positive rate `fpp`, as Hudi sizes it:
  /// bits = ceil(n * -ln(fpp) / ln(2)^2), hashes = ceil(ln(2) * bits / n). Invalid for n <= 0
  /// or fpp outside (0, 1).
  static Result<BloomFilter> Make(BloomFilterType type, int32_t num_entries = kDefaultNumEntries,
                                  double fpp = kDefaultFpp, int32_t max_entries = kDefaultDynamicMaxEntries);

  /// Parses Hudi's serialized form (the Base64 text of the footer key); `type_code` is the
  /// footer's hoodie_bloom_filter_type_code ("" means SIMPLE, as Hudi reads it). Anything
  /// malformed → kCorruptMetadata naming `source`.
  static Result<BloomFilter> Deserialize(std::string_view base64, std::string_view type_code,
                                         const std::string& source);

  /// Adds a key (its UTF-8 bytes). An empty key is ignored, as Hudi cannot hash one.
  void Add(std::string_view key);
  /// Adds `keys` in order, as many Add calls would, hashing on up to `threads` threads (each
  /// key's row is decided first, in order; the bits are then set in parallel and OR-ed).
  /// `kernel` chooses the hashing code (tests compare them; every kernel gives the same bits).
  void AddAll(const std::vector<std::string_view>& keys, int threads, BloomHashKernel kernel = BloomHashKernel::kBest);
  /// False when `key` was certainly never added.
  bool MightContain(std::string_view key) const;

  /// The first kProbePrefix bit positions of many keys under one filter shape (hash count and
  /// bit count: every filter of Hudi's default settings has the same), hashed once in vector
  /// lanes and shared by every filter of that shape: a key absent from a filter is almost
  /// always turned away by one of its first bits, so a probe of many filters rarely hashes
  /// again. Key-major: the positions of key i start at i * kProbePrefix. O(count).
  /// Eight: with Hudi's default fill (about half the bits set) an absent key passes all of
  /// them once in 256 probes; with four it passed once in 16, and each pass hashed the whole
  /// chain (30 hashes), most of a probe's cost when every key meets every filter.
  static constexpr int32_t kProbePrefix = 8;
  static std::vector<uint32_t> ProbePrefixes(const std::string_view* keys, size_t count, int32_t num_hashes,
                                             int32_t vector_size);
  /// MightContain, given `prefix`: the key's first positions from ProbePrefixes under this
  /// filter's num_hashes() and vector_size() (the caller checks the shape). The rest of the
  /// hash chain is computed only when a row has every prefix bit set.
  bool MightContain(std::string_view key, const uint32_t* prefix) const;
  int32_t num_hashes() const { return num_hashes_; }
  int32_t vector_size() const { return vector_size_; }
  /// Hudi's serialized form, Base64 (standard alphabet, padded).
  std::string Serialize() const;

  BloomFilterType type() const { return type_; }
  /// "DYNAMIC_V0" or "SIMPLE": the footer's hoodie_bloom_filter_type_code (written for
  /// dynamic filters only).
  const char* type_code() const { return type_ == BloomFilterType::kDynamicV0 ? "DYNAMIC_V0" : "SIMPLE"; }

 private:
  /// One standard filter (Hadoop's BloomFilter): `vector_size` bits, `num_hashes` positions.
  struct Row {
    std::vector<uint8_t> bits;  ///< bit i is bits[i >> 3] & (1 << (i & 7))
  };

  BloomFilter() = default;
  Row& ActiveRow();

  BloomFilterType type_ = BloomFilterType::kDynamicV0;
  int32_t num_hashes_ = 0;
  int32_t vector_size_ = 0;
  int32_t num_entries_ = 0;   ///< keys per row (dynamic)
  int32_t max_entries_ = 0;   ///< bound on rows * keys (dynamic; not serialized)
  int32_t current_rows_records_ = 0;
  bool reached_max_ = false;
  int64_t round_robin_ = 0;
  std::vector<Row> rows_;
};

}  // namespace lakeshore::format
