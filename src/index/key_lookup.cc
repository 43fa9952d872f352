#include "index/key_lookup.h"

#include <algorithm>

#include <arrow/util/hashing.h>

namespace lakeshore {
namespace {
uint64_t HashOf(std::string_view key) {
  return arrow::internal::ComputeStringHash<0>(key.data(), static_cast<int64_t>(key.size()));
}
}  // namespace

KeyLookup::KeyLookup(const std::vector<std::string_view>& keys, const std::vector<int64_t>& rows) : keys_(keys) {
  uint64_t capacity = 16;
  while (capacity < 2 * static_cast<uint64_t>(rows.size())) capacity <<= 1;
  slots_.resize(capacity);
  mask_ = capacity - 1;
  uint64_t words = 1;
  while (words * 8 < static_cast<uint64_t>(rows.size())) words <<= 1;  // ~8 bits per key
  filter_.assign(words, 0);
  filter_mask_ = words - 1;
  for (int64_t r : rows) {
    const std::string_view key = keys_[static_cast<size_t>(r)];
    const uint64_t h = HashOf(key);
    filter_[(h >> 40) & filter_mask_] |= (uint64_t{1} << (h & 63)) | (uint64_t{1} << ((h >> 6) & 63));
    for (uint64_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (slot.row < 0) {
        slot = Slot{h, r};
        break;
      }
      if (slot.hash == h && keys_[static_cast<size_t>(slot.row)] == key) break;  // a repeated key
    }
  }
}

int64_t KeyLookup::Find(std::string_view key) const {
  const uint64_t h = HashOf(key);
  return MayHold(h) ? Probe(key, h) : -1;
}

void KeyLookup::FindMany(const std::string_view* keys, size_t n, int64_t* rows) const {
  constexpr size_t kBlock = 16;
  uint64_t hashes[kBlock];
  for (size_t start = 0; start < n; start += kBlock) {
    const size_t m = std::min(kBlock, n - start);
    bool maybe[kBlock];
    for (size_t j = 0; j < m; ++j) {
      hashes[j] = HashOf(keys[start + j]);
      maybe[j] = MayHold(hashes[j]);
      if (maybe[j]) __builtin_prefetch(&slots_[hashes[j] & mask_]);
    }
    for (size_t j = 0; j < m; ++j) rows[start + j] = maybe[j] ? Probe(keys[start + j], hashes[j]) : -1;
  }
}

int64_t KeyLookup::Probe(std::string_view key, uint64_t h) const {
  for (uint64_t i = h & mask_;; i = (i + 1) & mask_) {
    const Slot& slot = slots_[i];
    if (slot.row < 0) return -1;
    if (slot.hash == h && keys_[static_cast<size_t>(slot.row)] == key) return slot.row;
  }
}

}  // namespace lakeshore
