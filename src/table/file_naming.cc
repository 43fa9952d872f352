#include "table/file_naming.h"

#include <cstdio>
#include <random>

#include "common/parse_number.h"
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
  // Hudi's form, <taskPartitionId>-<stageId>-<taskAttemptId>: its readers parse log file names
  // with a pattern that expects three numbers there. Random numbers keep attempts apart.
  const uint64_t r = Random64();
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%u-%u-%u", static_cast<unsigned>(r % 1000),
                static_cast<unsigned>((r >> 10) % 1000000), static_cast<unsigned>((r >> 30) % 1000000000));
  return buf;
}

std::string BaseFileName(const std::string& file_id, const std::string& write_token,
                         const std::string& instant_time) {
  return file_id + "_" + write_token + "_" + instant_time + ".parquet";
}

std::string LogFileName(const std::string& file_id, const std::string& instant_time, int64_t version,
                        const std::string& write_token) {
  return "." + file_id + "_" + instant_time + ".log." + std::to_string(version) + "_" + write_token;
}

namespace {
bool IsPlainToken(std::string_view s) {
  return !s.empty() && s.find('_') == std::string_view::npos && s.find('/') == std::string_view::npos;
}
}  // namespace

std::optional<DataFileName> ParseDataFileName(std::string_view name) {
  DataFileName out;
  if (!name.empty() && name[0] == '.') {
    // .<fileId>_<baseInstant>.log.<version>[_<writeToken>][.cdc]
    const size_t log = name.find(".log.", 1);
    if (log == std::string_view::npos) return std::nullopt;
    const std::string_view head = name.substr(1, log - 1);
    std::string_view tail = name.substr(log + 5);
    const size_t underscore = head.rfind('_');
    if (underscore == std::string_view::npos) return std::nullopt;
    out.file_id = std::string(head.substr(0, underscore));
    out.instant_time = std::string(head.substr(underscore + 1));
    if (tail.size() > 4 && tail.substr(tail.size() - 4) == ".cdc") {
      out.is_cdc = true;
      tail.remove_suffix(4);
    }
    const size_t token = tail.find('_');
    const std::string_view version = tail.substr(0, token);
    if (token != std::string_view::npos) out.write_token = std::string(tail.substr(token + 1));
    const std::optional<int64_t> parsed = ParseInt64(version);
    if (!parsed || *parsed < 0 || version.find('-') != std::string_view::npos) return std::nullopt;
    out.log_version = *parsed;
    out.is_log = true;
    if (token != std::string_view::npos && !IsPlainToken(out.write_token)) return std::nullopt;
  } else {
    // <fileId>_<writeToken>_<instant>.parquet (data tables) or .hfile (the metadata table)
    std::string_view stem;
    for (std::string_view extension : {std::string_view(".parquet"), std::string_view(".hfile")}) {
      if (name.size() > extension.size() && name.substr(name.size() - extension.size()) == extension) {
        stem = name.substr(0, name.size() - extension.size());
      }
    }
    if (stem.empty()) return std::nullopt;
    const size_t a = stem.find('_');
    const size_t b = stem.rfind('_');
    if (a == std::string_view::npos || a == b) return std::nullopt;
    out.file_id = std::string(stem.substr(0, a));
    out.write_token = std::string(stem.substr(a + 1, b - a - 1));
    out.instant_time = std::string(stem.substr(b + 1));
    if (!IsPlainToken(out.write_token)) return std::nullopt;
  }
  if (!IsPlainToken(out.file_id) || !IsInstantTimeToken(out.instant_time)) return std::nullopt;
  return out;
}

}  // namespace lakeshore
