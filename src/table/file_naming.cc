#include "table/file_naming.h"

#include <cstdio>
#include <random>

#include "timeline/instant_time.h"

namespace lakeshore {
namespace {
uint64_t Random64() {
  thread_local std::mt19937_64 rng{std::random_device{}() ^
                                   (static_cast<uint64_t>(std::random_device{}()) << 32)};
  return rng();
}
}  // namespace

std::string NewFileId() {
  uint64_t hi = Random64(), lo = Random64();
  hi = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // variant 1
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(hi >> 32), static_cast<unsigned>((hi >> 16) & 0xffff),
                static_cast<unsigned>(hi & 0xffff), static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return buf;
}

std::string NewWriteToken() {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%08x", static_cast<unsigned>(Random64() & 0xffffffffU));
  return buf;
}

std::string BaseFileName(const std::string& file_id, const std::string& write_token,
                         const std::string& instant_time) {
  return file_id + "_" + write_token + "_" + instant_time + ".parquet";
}

std::optional<DataFileName> ParseDataFileName(const std::string& name) {
  DataFileName out;
  std::string stem;
  if (name.size() > 12 && name.compare(name.size() - 12, 12, ".log.parquet") == 0) {
    out.is_log = true;
    stem = name.substr(0, name.size() - 12);
  } else if (name.size() > 8 && name.compare(name.size() - 8, 8, ".parquet") == 0) {
    stem = name.substr(0, name.size() - 8);
  } else {
    return std::nullopt;
  }
  size_t a = stem.find('_');
  size_t b = stem.rfind('_');
  if (a == std::string::npos || a == b) return std::nullopt;
  out.file_id = stem.substr(0, a);
  out.token_or_base = stem.substr(a + 1, b - a - 1);
  out.instant_time = stem.substr(b + 1);
  if (out.file_id.empty() || out.token_or_base.empty() || !LooksLikeInstantTime(out.instant_time)) {
    return std::nullopt;
  }
  return out;
}

}  // namespace lakeshore
