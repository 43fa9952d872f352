// Internal: a set of paths that answers lookups by std::string_view without allocating.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>

namespace lakeshore {

/// std::hash over string_view, marked transparent so unordered containers of std::string accept
/// string_view (and const char*) keys in find/count/contains.
struct TransparentStringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

/// A set of table-relative paths (a vacuum's live set, say); `contains(std::string_view)` does
/// not build a std::string. O(1) expected per lookup.
using PathSet = std::unordered_set<std::string, TransparentStringHash, std::equal_to<>>;

}  // namespace lakeshore
