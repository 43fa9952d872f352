#include "format/bloom_filter.h"

#include <arrow/util/base64.h>

#include <cmath>
#include <cstring>

namespace lakeshore::format {
namespace {

constexpr int32_t kFilterVersion = -1;  // Hadoop's InternalFilter.VERSION
constexpr int8_t kMurmurHashType = 1;   // Hadoop's Hash.MURMUR_HASH

void PutInt32(std::string* out, int32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>((static_cast<uint32_t>(v) >> shift) & 0xff));
}

struct Reader {
  std::string_view bytes;
  size_t pos = 0;
  bool Int32(int32_t* out) {
    if (bytes.size() - pos < 4) return false;
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(bytes[pos++]);
    *out = static_cast<int32_t>(v);
    return true;
  }
  bool Int8(int8_t* out) {
    if (pos >= bytes.size()) return false;
    *out = static_cast<int8_t>(bytes[pos++]);
    return true;
  }
};

/// The hash positions of `key` (Hadoop's HashFunction.hash with Murmur).
template <typename F>
void ForEachPosition(std::string_view key, int32_t num_hashes, int32_t vector_size, F&& f) {
  int32_t initval = 0;
  for (int32_t i = 0; i < num_hashes; ++i) {
    initval = HudiMurmurHash(key, initval);
    const int32_t rem = initval % vector_size;  // C++ keeps the dividend's sign, as Java
    f(rem < 0 ? -rem : rem);
  }
}

}  // namespace

int32_t HudiMurmurHash(std::string_view data, int32_t seed) {
  const uint32_t m = 0x5bd1e995;
  const int r = 24;
  const int32_t length = static_cast<int32_t>(data.size());
  uint32_t h = static_cast<uint32_t>(seed ^ length);
  const int32_t len4 = length >> 2;
  auto byte = [&](int32_t i) { return static_cast<int32_t>(static_cast<int8_t>(data[static_cast<size_t>(i)])); };
  for (int32_t i = 0; i < len4; ++i) {
    const int32_t i4 = i << 2;
    uint32_t k = static_cast<uint32_t>(byte(i4 + 3));
    k = (k << 8) | (static_cast<uint32_t>(byte(i4 + 2)) & 0xff);
    k = (k << 8) | (static_cast<uint32_t>(byte(i4 + 1)) & 0xff);
    k = (k << 8) | (static_cast<uint32_t>(byte(i4)) & 0xff);
    k *= m;
    k ^= k >> r;
    k *= m;
    h *= m;
    h ^= k;
  }
  const int32_t left = length - (len4 << 2);
  if (left != 0) {
    // Hudi's (Hadoop's) variant reads the tail from the end of the array.
    if (left >= 3) h ^= static_cast<uint32_t>(byte(length - 3)) << 16;
    if (left >= 2) h ^= static_cast<uint32_t>(byte(length - 2)) << 8;
    if (left >= 1) h ^= static_cast<uint32_t>(byte(length - 1));
    h *= m;
  }
  h ^= h >> 13;
  h *= m;
  h ^= h >> 15;
  return static_cast<int32_t>(h);
}

Result<BloomFilter> BloomFilter::Make(BloomFilterType type, int32_t num_entries, double fpp, int32_t max_entries) {
  if (num_entries <= 0 || !(fpp > 0 && fpp < 1) || max_entries <= 0) {
    return Status::Invalid("bloom filter needs num_entries > 0 and 0 < fpp < 1 (got ", num_entries, ", ", fpp, ")");
  }
  const double bits = std::ceil(num_entries * (-std::log(fpp) / (std::log(2.0) * std::log(2.0))));
  if (bits > 1 << 30) return Status::Invalid("bloom filter of ", bits, " bits is too large");
  BloomFilter f;
  f.type_ = type;
  f.vector_size_ = static_cast<int32_t>(bits);
  f.num_hashes_ = static_cast<int32_t>(std::ceil(std::log(2.0) * f.vector_size_ / num_entries));
  f.num_entries_ = num_entries;
  f.max_entries_ = max_entries;
  f.rows_.push_back(Row{std::vector<uint8_t>(static_cast<size_t>((f.vector_size_ + 7) / 8), 0)});
  return f;
}

BloomFilter::Row& BloomFilter::ActiveRow() {
  if (type_ == BloomFilterType::kSimple) return rows_.back();
  // InternalDynamicBloomFilter.getActiveStandardBF, then add's row growth.
  if (reached_max_) return rows_[static_cast<size_t>(round_robin_++ % static_cast<int64_t>(rows_.size()))];
  const int64_t capacity = static_cast<int64_t>(rows_.size()) * num_entries_;
  if (current_rows_records_ >= num_entries_ && capacity < max_entries_) {
    rows_.push_back(Row{std::vector<uint8_t>(static_cast<size_t>((vector_size_ + 7) / 8), 0)});
    current_rows_records_ = 0;
    return rows_.back();
  }
  if (current_rows_records_ >= num_entries_) {
    reached_max_ = true;
    return rows_[0];
  }
  return rows_.back();
}

void BloomFilter::Add(std::string_view key) {
  if (key.empty()) return;
  Row& row = ActiveRow();
  ForEachPosition(key, num_hashes_, vector_size_,
                  [&](int32_t bit) { row.bits[static_cast<size_t>(bit >> 3)] |= static_cast<uint8_t>(1u << (bit & 7)); });
  ++current_rows_records_;
}

bool BloomFilter::MightContain(std::string_view key) const {
  if (key.empty()) return true;
  for (const Row& row : rows_) {
    bool all = true;
    ForEachPosition(key, num_hashes_, vector_size_, [&](int32_t bit) {
      all = all && (row.bits[static_cast<size_t>(bit >> 3)] & (1u << (bit & 7))) != 0;
    });
    if (all) return true;
  }
  return false;
}

std::string BloomFilter::Serialize() const {
  std::string out;
  auto header = [&] {
    PutInt32(&out, kFilterVersion);
    PutInt32(&out, num_hashes_);
    out.push_back(static_cast<char>(kMurmurHashType));
    PutInt32(&out, vector_size_);
  };
  auto row = [&](const Row& r) {
    header();
    out.append(reinterpret_cast<const char*>(r.bits.data()), r.bits.size());
  };
  if (type_ == BloomFilterType::kSimple) {
    row(rows_[0]);
  } else {
    header();
    PutInt32(&out, num_entries_);
    PutInt32(&out, current_rows_records_);
    PutInt32(&out, static_cast<int32_t>(rows_.size()));
    for (const Row& r : rows_) row(r);
  }
  return arrow::util::base64_encode(out);
}

Result<BloomFilter> BloomFilter::Deserialize(std::string_view base64, std::string_view type_code, const std::string& source) {
  auto bad = [&](const std::string& what) { return CorruptMetadata("bloom filter of " + source + ": " + what); };
  BloomFilter f;
  if (type_code.empty() || type_code == "SIMPLE") {
    f.type_ = BloomFilterType::kSimple;
  } else if (type_code == "DYNAMIC_V0") {
    f.type_ = BloomFilterType::kDynamicV0;
  } else {
    return UnsupportedFeature("bloom filter of " + source + " has type code '" + std::string(type_code) +
                              "' (SIMPLE and DYNAMIC_V0 are supported)");
  }
  auto decoded = arrow::util::base64_decode(base64);
  if (!decoded.ok()) return bad("not Base64");
  Reader in{*decoded};
  auto read_header = [&](int32_t* hashes, int32_t* size) {
    int32_t version = 0;
    int8_t hash_type = 0;
    if (!in.Int32(&version) || !in.Int32(hashes) || !in.Int8(&hash_type) || !in.Int32(size)) return bad("truncated");
    if (version != kFilterVersion) return bad("unknown filter version " + std::to_string(version));
    if (hash_type != kMurmurHashType) return UnsupportedFeature("bloom filter of " + source + " uses hash type " +
                                                                std::to_string(hash_type) + " (only Murmur is supported)");
    if (*hashes <= 0 || *hashes > 1000 || *size <= 0) return bad("bad hash count or size");
    return Status::OK();
  };
  ARROW_RETURN_NOT_OK(read_header(&f.num_hashes_, &f.vector_size_));
  int32_t rows = 1;
  if (f.type_ == BloomFilterType::kDynamicV0) {
    if (!in.Int32(&f.num_entries_) || !in.Int32(&f.current_rows_records_) || !in.Int32(&rows)) return bad("truncated");
    if (rows <= 0 || f.num_entries_ <= 0) return bad("bad row count");
    f.max_entries_ = std::max<int32_t>(kDefaultDynamicMaxEntries, rows * f.num_entries_);
  }
  const size_t row_bytes = static_cast<size_t>((f.vector_size_ + 7) / 8);
  if (static_cast<uint64_t>(rows) * row_bytes > in.bytes.size()) return bad("shorter than its rows");
  for (int32_t r = 0; r < rows; ++r) {
    if (f.type_ == BloomFilterType::kDynamicV0) {
      int32_t hashes = 0, size = 0;
      ARROW_RETURN_NOT_OK(read_header(&hashes, &size));
      if (hashes != f.num_hashes_ || size != f.vector_size_) return bad("rows of different shapes");
    }
    if (in.bytes.size() - in.pos < row_bytes) return bad("truncated row");
    Row row;
    row.bits.assign(in.bytes.begin() + static_cast<std::ptrdiff_t>(in.pos),
                    in.bytes.begin() + static_cast<std::ptrdiff_t>(in.pos + row_bytes));
    in.pos += row_bytes;
    f.rows_.push_back(std::move(row));
  }
  if (in.pos != in.bytes.size()) return bad("trailing bytes");
  return f;
}

}  // namespace lakeshore::format
