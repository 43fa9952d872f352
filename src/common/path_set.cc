#include "common/path_set.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

namespace lakeshore {
namespace {
constexpr size_t kMinCapacity = 16;
constexpr size_t kBlockBytes = 64 * 1024;

uint64_t HashOf(std::string_view path) { return XXH3_64bits(path.data(), path.size()); }
}  // namespace

const PathSet::Slot& PathSet::Find(std::string_view path, uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  for (size_t i = static_cast<size_t>(hash) & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.data == nullptr) return s;
    if (s.hash == hash && s.size == path.size() &&
        (path.empty() || std::memcmp(s.data, path.data(), path.size()) == 0)) {  // memcmp takes no null
      return s;
    }
  }
}

bool PathSet::contains(std::string_view path) const {
  if (size_ == 0) return false;
  return Find(path, HashOf(path)).data != nullptr;
}

bool PathSet::insert(std::string_view path) {
  if ((size_ + 1) * 2 > slots_.size()) Rehash(std::max(kMinCapacity, slots_.size() * 2));
  const uint64_t hash = HashOf(path);
  Slot& s = const_cast<Slot&>(Find(path, hash));
  if (s.data != nullptr) return false;
  s.data = Keep(path);
  s.hash = hash;
  s.size = path.size();
  ++size_;
  return true;
}

PathSet& PathSet::operator=(PathSet&& other) noexcept {
  if (this == &other) return *this;
  slots_ = std::exchange(other.slots_, {});
  size_ = std::exchange(other.size_, 0);
  blocks_ = std::exchange(other.blocks_, {});
  block_left_ = std::exchange(other.block_left_, 0);
  block_next_ = std::exchange(other.block_next_, nullptr);
  return *this;
}

void PathSet::reserve(size_t n) {
  size_t capacity = kMinCapacity;
  // Doubling stops before it wraps: a size no memory holds then fails to allocate, as the
  // standard containers do, rather than looping for ever.
  while (capacity / 2 < n && capacity <= std::numeric_limits<size_t>::max() / 2) capacity *= 2;
  if (capacity > slots_.size()) Rehash(capacity);
}

const char* PathSet::Keep(std::string_view path) {
  if (path.empty()) return "";  // any non-null pointer marks the slot used
  if (path.size() > block_left_) {
    const size_t bytes = std::max(kBlockBytes, path.size());
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(bytes));
    block_next_ = blocks_.back().get();
    block_left_ = bytes;
  }
  char* kept = block_next_;
  std::memcpy(kept, path.data(), path.size());
  block_next_ += path.size();
  block_left_ -= path.size();
  return kept;
}

void PathSet::Rehash(size_t capacity) {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(capacity, Slot{});
  const size_t mask = capacity - 1;
  for (const Slot& s : old) {
    if (s.data == nullptr) continue;
    size_t i = static_cast<size_t>(s.hash) & mask;
    while (slots_[i].data != nullptr) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

}  // namespace lakeshore
