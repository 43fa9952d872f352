#include "format/bloom_filter.h"

#include "common/base64.h"
#include "common/side_by_side.h"
#include "format/bloom_hash_kernel.h"

#include <algorithm>
#include <array>
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

/// The bit positions of one key, in hash order.
std::vector<uint32_t> PositionsOf(std::string_view key, int32_t num_hashes, int32_t vector_size) {
  std::vector<uint32_t> positions(static_cast<size_t>(num_hashes));
  BloomBitPositions(&key, 1, num_hashes, static_cast<uint32_t>(vector_size), positions.data(), BloomHashKernel::kScalar);
  return positions;
}

}  // namespace

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
  for (uint32_t bit : PositionsOf(key, num_hashes_, vector_size_)) row.bits[bit >> 3] |= static_cast<uint8_t>(1u << (bit & 7));
  ++current_rows_records_;
}

void BloomFilter::AddAll(const std::vector<std::string_view>& keys, int threads, BloomHashKernel kernel) {
  // Which row each key goes to: the same state machine as Add, without the hashing. The keys
  // are then grouped by row (a counting sort), so each row's bits are set in one pass: one
  // row (Hudi's defaults: 2.6M bits, 324 KB) stays in a core's L2 cache, where the dynamic
  // filter's round robin over its rows, key after key, missed the cache on most bits.
  std::vector<size_t> row_start(rows_.size() + 1, 0);
  std::vector<uint32_t> row_of(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].empty()) {
      row_of[i] = UINT32_MAX;
      continue;
    }
    Row& row = ActiveRow();
    row_of[i] = static_cast<uint32_t>(&row - rows_.data());
    if (row_start.size() < rows_.size() + 1) row_start.resize(rows_.size() + 1, 0);
    ++row_start[row_of[i] + 1];
    ++current_rows_records_;
  }
  for (size_t r = 1; r < row_start.size(); ++r) row_start[r] += row_start[r - 1];
  std::vector<std::string_view> by_row(row_start.back());
  {
    std::vector<size_t> next(row_start.begin(), row_start.end() - 1);
    for (size_t i = 0; i < keys.size(); ++i) {
      if (row_of[i] != UINT32_MAX) by_row[next[row_of[i]]++] = keys[i];
    }
  }
  // Sets the bits of the keys by_row[begin, end), all of one row, in that row's `bits`.
  const int32_t num_hashes = num_hashes_;
  const auto vector_size = static_cast<uint32_t>(vector_size_);
  auto set_bits = [&](size_t begin, size_t end, uint8_t* bits) {
    // Chunks small enough that their positions stay in cache between hashing and setting.
    constexpr size_t kChunk = 256;
    std::vector<uint32_t> positions(kChunk * static_cast<size_t>(num_hashes));
    for (size_t chunk = begin; chunk < end; chunk += kChunk) {
      const size_t n = std::min(kChunk, end - chunk);
      BloomBitPositions(by_row.data() + chunk, n, num_hashes, vector_size, positions.data(), kernel);
      // The bound and the positions in locals: a byte store may alias anything, and reloading
      // them after each one serialized the stores (three times slower).
      const size_t count = n * static_cast<size_t>(num_hashes);
      const uint32_t* p = positions.data();
      for (size_t j = 0; j < count; ++j) bits[p[j] >> 3] |= static_cast<uint8_t>(1u << (p[j] & 7));
    }
  };
  const size_t num_rows = rows_.size();
  threads = std::max(1, std::min<int>(threads, static_cast<int>(by_row.size() / 4096) + 1));
  if (threads == 1 || num_rows >= static_cast<size_t>(threads)) {
    // Whole rows per thread: no two threads write one row.
    RunSideBySide(static_cast<size_t>(threads), [&](size_t t) {
      for (size_t r = t; r < num_rows; r += static_cast<size_t>(threads)) set_bits(row_start[r], row_start[r + 1], rows_[r].bits.data());
    });
    return;
  }
  // Fewer rows than threads: each thread takes a share of every row's keys; each thread but
  // the first sets bits in rows of its own, OR-ed in afterwards.
  std::vector<std::vector<Row>> partial(static_cast<size_t>(threads - 1),
                                        std::vector<Row>(num_rows, Row{std::vector<uint8_t>(rows_[0].bits.size(), 0)}));
  RunSideBySide(static_cast<size_t>(threads), [&](size_t t) {
    for (size_t r = 0; r < num_rows; ++r) {
      const size_t size = row_start[r + 1] - row_start[r];
      const size_t share = (size + static_cast<size_t>(threads) - 1) / static_cast<size_t>(threads);
      const size_t begin = row_start[r] + std::min(size, share * t);
      const size_t end = std::min(row_start[r + 1], begin + share);
      set_bits(begin, end, t == 0 ? rows_[r].bits.data() : partial[t - 1][r].bits.data());
    }
  });
  for (const auto& rows : partial) {
    for (size_t r = 0; r < rows.size(); ++r) {
      for (size_t b = 0; b < rows[r].bits.size(); ++b) rows_[r].bits[b] |= rows[r].bits[b];
    }
  }
}

bool BloomFilter::MightContain(std::string_view key) const {
  if (key.empty()) return true;
  const std::vector<uint32_t> positions = PositionsOf(key, num_hashes_, vector_size_);
  for (const Row& row : rows_) {
    if (std::all_of(positions.begin(), positions.end(),
                    [&](uint32_t bit) { return (row.bits[bit >> 3] & (1u << (bit & 7))) != 0; })) {
      return true;
    }
  }
  return false;
}

std::vector<uint32_t> BloomFilter::ProbePrefixes(const std::string_view* keys, size_t count, int32_t num_hashes,
                                                 int32_t vector_size) {
  const int32_t prefix = std::min(kProbePrefix, num_hashes);
  std::vector<uint32_t> out(count * static_cast<size_t>(kProbePrefix), 0);
  if (prefix <= 0 || vector_size <= 0) return out;
  constexpr size_t kChunk = 256;
  std::vector<uint32_t> hash_major(kChunk * static_cast<size_t>(prefix));
  for (size_t chunk = 0; chunk < count; chunk += kChunk) {
    const size_t n = std::min(kChunk, count - chunk);
    BloomBitPositions(keys + chunk, n, prefix, static_cast<uint32_t>(vector_size), hash_major.data());
    for (size_t i = 0; i < n; ++i) {
      for (size_t k = 0; k < static_cast<size_t>(prefix); ++k) {
        out[(chunk + i) * kProbePrefix + k] = hash_major[k * n + i];
      }
    }
  }
  return out;
}

bool BloomFilter::MightContain(std::string_view key, const uint32_t* prefix) const {
  if (key.empty()) return true;
  const int32_t known = std::min(kProbePrefix, num_hashes_);
  // The whole chain, hashed only when a row passes the prefix (on the stack for Hudi's usual
  // hash counts: a probe of many filters must not allocate).
  constexpr int32_t kOnStack = 64;
  uint32_t on_stack[kOnStack];
  std::vector<uint32_t> on_heap;
  const uint32_t* positions = nullptr;
  auto set = [](const Row& row, uint32_t bit) { return (row.bits[bit >> 3] & (1u << (bit & 7))) != 0; };
  for (const Row& row : rows_) {
    bool maybe = true;
    for (int32_t k = 0; k < known && maybe; ++k) maybe = set(row, prefix[k]);
    if (!maybe) continue;
    if (positions == nullptr) {
      uint32_t* into = on_stack;
      if (num_hashes_ > kOnStack) {
        on_heap.resize(static_cast<size_t>(num_hashes_));
        into = on_heap.data();
      }
      BloomBitPositions(&key, 1, num_hashes_, static_cast<uint32_t>(vector_size_), into, BloomHashKernel::kScalar);
      positions = into;
    }
    bool all = true;
    for (int32_t k = known; k < num_hashes_ && all; ++k) all = set(row, positions[k]);
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
  return Base64Encode(out);
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
  auto decoded = Base64Decode(base64);
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
