#include "services/vacuum/vacuum_watermark.h"

#include <nlohmann/json.hpp>

namespace lakeshore::vacuum {
namespace {

std::optional<int64_t> OptionalInt(const nlohmann::json& doc, const char* key) {
  if (!doc.contains(key) || !doc[key].is_number_integer()) return std::nullopt;
  return doc[key].get<int64_t>();
}

}  // namespace

Result<std::optional<VacuumWatermark>> ReadVacuumWatermark(Storage& table) {
  ARROW_ASSIGN_OR_RAISE(bool exists, table.Exists(kLastVacuumInfoPath));
  if (!exists) return std::optional<VacuumWatermark>();
  auto text = table.ReadString(kLastVacuumInfoPath);
  if (!text.ok()) return std::optional<VacuumWatermark>();
  auto doc = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return std::optional<VacuumWatermark>();
  VacuumWatermark w;
  w.latest_commit_version_outside_retention = OptionalInt(doc, "latestCommitVersionOutsideOfRetentionWindow");
  w.snapshot_version = OptionalInt(doc, "lakeshoreSnapshotVersion");
  w.cutoff_ms = OptionalInt(doc, "lakeshoreCutoffMs");
  w.vacuum_time_ms = OptionalInt(doc, "lakeshoreVacuumTimeMs");
  w.last_full_vacuum_ms = OptionalInt(doc, "lakeshoreLastFullVacuumMs");
  w.oldest_young_untracked_ms = OptionalInt(doc, "lakeshoreOldestYoungUntrackedMs");
  return std::optional<VacuumWatermark>(w);
}

Status WriteVacuumWatermark(Storage& table, const VacuumWatermark& w) {
  nlohmann::ordered_json doc = nlohmann::ordered_json::object();
  auto put = [&](const char* key, const std::optional<int64_t>& v) {
    if (v) doc[key] = *v;
  };
  put("latestCommitVersionOutsideOfRetentionWindow", w.latest_commit_version_outside_retention);
  put("lakeshoreSnapshotVersion", w.snapshot_version);
  put("lakeshoreCutoffMs", w.cutoff_ms);
  put("lakeshoreVacuumTimeMs", w.vacuum_time_ms);
  put("lakeshoreLastFullVacuumMs", w.last_full_vacuum_ms);
  put("lakeshoreOldestYoungUntrackedMs", w.oldest_young_untracked_ms);
  return table.WriteString(kLastVacuumInfoPath, doc.dump());
}

}  // namespace lakeshore::vacuum
