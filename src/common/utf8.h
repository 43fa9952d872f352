// Internal: UTF-8 validation of strings that end up in JSON metadata or file names.
#pragma once

#include <string_view>

namespace lakeshore {

/// True when `text` is well-formed UTF-8 (Arrow's validator, its tables initialized first).
/// O(length).
bool IsValidUtf8(std::string_view text);

}  // namespace lakeshore
