#include "common/percent_encoding.h"

namespace lakeshore {

int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<std::string> PercentDecode(std::string_view encoded) {
  if (encoded.find('%') == std::string_view::npos) return std::string(encoded);
  std::string out;
  out.reserve(encoded.size());
  for (size_t i = 0; i < encoded.size(); ++i) {
    if (encoded[i] != '%') {
      out.push_back(encoded[i]);
      continue;
    }
    int hi = i + 2 < encoded.size() ? HexDigitValue(encoded[i + 1]) : -1;
    int lo = i + 2 < encoded.size() ? HexDigitValue(encoded[i + 2]) : -1;
    if (hi < 0 || lo < 0) return Status::Invalid("malformed percent escape in '", encoded, "'");
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

}  // namespace lakeshore
