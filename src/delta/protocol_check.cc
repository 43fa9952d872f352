// What this build understands of the Delta protocol, and the table properties it interprets.
#include <algorithm>
#include <array>
#include <cctype>
#include <sstream>
#include <string_view>

#include "common/parse_number.h"
#include "lakeshore/delta/delta_log.h"

namespace lakeshore::delta {
namespace {

/// Table features a vacuum and an empty commit are correct under. Features that move files
/// somewhere the log does not name (catalog-managed and coordinated commits keep commits
/// outside `_delta_log`) are deliberately absent.
constexpr std::array<std::string_view, 24> kKnownFeatures = {
    "appendOnly", "invariants", "checkConstraints", "generatedColumns",
    "allowColumnDefaults", "changeDataFeed", "columnMapping", "identityColumns",
    "deletionVectors", "rowTracking", "timestampNtz", "domainMetadata",
    "v2Checkpoint", "icebergCompatV1", "icebergCompatV2", "clustering",
    "vacuumProtocolCheck", "inCommitTimestamp", "typeWidening", "typeWidening-preview",
    "variantType", "variantType-preview", "checkpointProtection", "collations-preview"};

bool Known(const std::string& feature) {
  return std::find(kKnownFeatures.begin(), kKnownFeatures.end(), feature) != kKnownFeatures.end();
}

}  // namespace

Status CheckProtocolSupported(const Protocol& protocol, const std::string& source) {
  if (protocol.min_reader_version > 3) {
    return UnsupportedFeature("Delta reader version " + std::to_string(protocol.min_reader_version) +
                              " (protocol in '" + source + "') is newer than the supported 3");
  }
  if (protocol.min_writer_version > 7) {
    return UnsupportedFeature("Delta writer version " + std::to_string(protocol.min_writer_version) +
                              " (protocol in '" + source + "') is newer than the supported 7");
  }
  for (const auto& f : protocol.writer_features) {
    if (!Known(f)) {
      return UnsupportedFeature("Delta writer feature '" + f + "' (protocol in '" + source +
                                "') is not understood; refusing to vacuum a table whose writers may keep files we cannot see");
    }
  }
  for (const auto& f : protocol.reader_features) {
    if (!Known(f)) {
      return UnsupportedFeature("Delta reader feature '" + f + "' (protocol in '" + source +
                                "') is not understood");
    }
  }
  return Status::OK();
}

Result<int64_t> ParseIntervalMs(const std::string& text) {
  std::istringstream in(text);
  std::string word;
  std::vector<std::string> words;
  while (in >> word) {
    std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
    words.push_back(word);
  }
  size_t i = 0;
  if (!words.empty() && words[0] == "interval") i = 1;
  if (i >= words.size()) return Status::Invalid("empty interval '", text, "'");
  int64_t total = 0;
  for (; i < words.size(); i += 2) {
    if (i + 1 >= words.size()) return Status::Invalid("interval '", text, "' has a number without a unit");
    auto parsed = ParseInt64(words[i]);
    if (!parsed) return Status::Invalid("interval '", text, "': '", words[i], "' is not an integer");
    int64_t n = *parsed;
    std::string unit = words[i + 1];
    if (unit.size() > 1 && unit.back() == 's') unit.pop_back();
    int64_t scale = 0;
    if (unit == "week") scale = 7LL * 24 * 3600 * 1000;
    else if (unit == "day") scale = 24LL * 3600 * 1000;
    else if (unit == "hour") scale = 3600LL * 1000;
    else if (unit == "minute") scale = 60LL * 1000;
    else if (unit == "second") scale = 1000;
    else if (unit == "millisecond") scale = 1;
    else if (unit == "microsecond" || unit == "nanosecond") scale = 0;  // below ms resolution
    else return Status::Invalid("interval '", text, "': unit '", words[i + 1], "' is not supported");
    int64_t part = 0;
    if (__builtin_mul_overflow(n, scale, &part) || __builtin_add_overflow(total, part, &total)) {
      return Status::Invalid("interval '", text, "' is too long");
    }
  }
  if (total < 0) return Status::Invalid("interval '", text, "' is negative");
  return total;
}

Result<int64_t> DeltaSnapshot::TombstoneRetentionMs() const {
  static constexpr int64_t kDefault = 7LL * 24 * 3600 * 1000;
  auto it = metadata.configuration.find("delta.deletedFileRetentionDuration");
  if (it == metadata.configuration.end()) return kDefault;
  auto parsed = ParseIntervalMs(it->second);
  if (!parsed.ok()) {
    return CorruptMetadata("table property delta.deletedFileRetentionDuration: " +
                           parsed.status().message());
  }
  return *parsed;
}

bool DeltaSnapshot::InCommitTimestampsEnabled() const {
  auto it = metadata.configuration.find("delta.enableInCommitTimestamps");
  return it != metadata.configuration.end() && it->second == "true";
}

}  // namespace lakeshore::delta
