// Internal: a read-only lookup from record keys to row numbers, built once over a batch's keys
// and probed by many threads with the keys stored in files (the simple index's inner loop).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace lakeshore {

/// Open addressing over (hash, row) slots, twice as many as keys, with Arrow's string hash
/// (xxHash-based); keys are compared only when their hashes are equal. A small filter (two bits
/// of one 64-bit word per key, about a byte per key: it stays in cache) turns most absent keys
/// away before their slot is touched: the simple index probes every stored key, and most are
/// not in the batch. The keys are not copied: `keys` must outlive the lookup. Thread-safe for
/// concurrent Find calls.
class KeyLookup {
 public:
  /// Indexes `keys[r]` for every r in `rows` (distinct keys; of equal keys the first is kept).
  KeyLookup(const std::vector<std::string_view>& keys, const std::vector<int64_t>& rows);

  /// The row whose key is `key`, or -1. Cost: one hash, then O(1) probes on average.
  int64_t Find(std::string_view key) const;

  /// Find for `n` keys at once, into `rows[0..n)`: the hashes of a block are computed and
  /// their slots prefetched before any is probed, so the memory waits overlap.
  void FindMany(const std::string_view* keys, size_t n, int64_t* rows) const;

 private:
  int64_t Probe(std::string_view key, uint64_t hash) const;

  struct Slot {
    uint64_t hash = 0;
    int64_t row = -1;  ///< -1: empty
  };
  const std::vector<std::string_view>& keys_;
  /// True unless `hash` is certainly absent.
  bool MayHold(uint64_t hash) const {
    const uint64_t word = filter_[(hash >> 40) & filter_mask_];
    const uint64_t bits = (uint64_t{1} << (hash & 63)) | (uint64_t{1} << ((hash >> 6) & 63));
    return (word & bits) == bits;
  }

  std::vector<Slot> slots_;
  uint64_t mask_ = 0;
  std::vector<uint64_t> filter_;
  uint64_t filter_mask_ = 0;
};

}  // namespace lakeshore
