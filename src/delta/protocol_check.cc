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
  // Summed in nanoseconds (Spark's units go down to microseconds; nanoseconds too), then
  // rounded up to milliseconds: a retention is never read shorter than it is.
  __int128 total_ns = 0;
  constexpr __int128 kLimitNs = static_cast<__int128>(INT64_MAX) * 1000000;
  for (; i < words.size(); i += 2) {
    if (i + 1 >= words.size()) return Status::Invalid("interval '", text, "' has a number without a unit");
    auto parsed = ParseInt64(words[i]);
    if (!parsed) return Status::Invalid("interval '", text, "': '", words[i], "' is not an integer");
    const int64_t n = *parsed;
    std::string unit = words[i + 1];
    if (unit.size() > 1 && unit.back() == 's') unit.pop_back();
    int64_t scale_ns = 0;
    if (unit == "week") scale_ns = 7LL * 24 * 3600 * 1000000000;
    else if (unit == "day") scale_ns = 24LL * 3600 * 1000000000;
    else if (unit == "hour") scale_ns = 3600LL * 1000000000;
    else if (unit == "minute") scale_ns = 60LL * 1000000000;
    else if (unit == "second") scale_ns = 1000000000;
    else if (unit == "millisecond") scale_ns = 1000000;
    else if (unit == "microsecond") scale_ns = 1000;
    else if (unit == "nanosecond") scale_ns = 1;
    else return Status::Invalid("interval '", text, "': unit '", words[i + 1], "' is not supported");
    total_ns += static_cast<__int128>(n) * scale_ns;  // |n × scale| < 2^63 × 2^60: no overflow
    if (total_ns > kLimitNs || total_ns < -kLimitNs) return Status::Invalid("interval '", text, "' is too long");
  }
  if (total_ns < 0) return Status::Invalid("interval '", text, "' is negative");
  return static_cast<int64_t>((total_ns + 999999) / 1000000);
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
  // Spark reads the property with Scala's toBoolean: "true" in any case.
  if (it == metadata.configuration.end() || it->second.size() != 4) return false;
  std::string lower = it->second;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower == "true";
}

}  // namespace lakeshore::delta
