// The VACUUM front door: option checks, format detection, dispatch, the JSON report.
#include "lakeshore/vacuum.h"

#include <nlohmann/json.hpp>

#include "common/duration.h"
#include "services/vacuum/delta_vacuum.h"
#include "services/vacuum/hudi_vacuum.h"
#include "table/hoodie_table_config.h"
#include "table/layout.h"

namespace lakeshore {

const char* TableFormatName(TableFormat format) {
  switch (format) {
    case TableFormat::kAuto: return "auto";
    case TableFormat::kDelta: return "delta";
    case TableFormat::kHudi: return "hudi";
  }
  return "auto";
}

const char* VacuumModeName(VacuumMode mode) { return mode == VacuumMode::kLite ? "lite" : "full"; }

Result<TableFormat> ParseTableFormat(const std::string& name) {
  for (auto f : {TableFormat::kAuto, TableFormat::kDelta, TableFormat::kHudi}) {
    if (name == TableFormatName(f)) return f;
  }
  return Status::Invalid("vacuum.format must be auto, delta or hudi, got '", name, "'");
}

Result<VacuumMode> ParseVacuumMode(const std::string& name) {
  if (name == "full") return VacuumMode::kFull;
  if (name == "lite") return VacuumMode::kLite;
  return Status::Invalid("vacuum.mode must be full or lite, got '", name, "'");
}

Status VacuumOptions::Validate() const {
  if (retain_hours) ARROW_RETURN_NOT_OK(HoursToMs("vacuum.retain_hours", *retain_hours).status());
  if (force_full_after_hours) {
    ARROW_RETURN_NOT_OK(HoursToMs("vacuum.optimistic.force_full_after_hours", *force_full_after_hours).status());
    if (!(*force_full_after_hours > 0)) {
      return Status::Invalid("vacuum.optimistic.force_full_after_hours must be > 0, got ", *force_full_after_hours);
    }
  }
  if (delete_batch_size < 1 || delete_batch_size > 1000) {
    return Status::Invalid("vacuum.delete_batch_size must be in 1..1000, got ", delete_batch_size);
  }
  if (!inventory.empty() && mode == VacuumMode::kLite) {
    return Status::Invalid("vacuum.inventory replaces listing and only applies to mode full");
  }
  return Status::OK();
}

std::string VacuumReportToJson(const VacuumReport& r) {
  nlohmann::ordered_json doc;
  VisitVacuumReport(r, [&doc](const char* name, const auto& value) {
    using V = std::decay_t<decltype(value)>;
    if constexpr (std::is_same_v<V, std::vector<VacuumCandidate>>) {
      auto& list = doc[name] = nlohmann::ordered_json::array();
      for (const auto& c : value) list.push_back({{"path", c.path}, {"size", c.size}});
    } else {
      doc[name] = value;
    }
  });
  // A listed file name need not be UTF-8; the report shows such bytes as U+FFFD, never throws.
  return doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

namespace {

/// The format of the table at the storage root (kAuto: neither). A folder holding both formats
/// is refused, naming both: a vacuum of one would delete the other's files.
Result<TableFormat> DetectFormat(Storage& table) {
  ARROW_ASSIGN_OR_RAISE(auto delta_log, table.GetFileInfo("_delta_log"));
  bool delta = delta_log && delta_log->is_dir;
  if (!delta) {
    // Object stores have no folders: a listing of the log prefix decides.
    ARROW_ASSIGN_OR_RAISE(auto log_entries, table.List("_delta_log", false));
    delta = !log_entries.empty();
  }
  ARROW_ASSIGN_OR_RAISE(bool hudi, HoodieTableConfig::Exists(table));
  if (delta && hudi) {
    return Status::Invalid("'", table.root_uri(), "' holds two tables: a Delta table (_delta_log/) and a "
                           "Hudi table (", layout::kPropertiesFile, "); vacuuming either would delete the "
                           "other's files, so format auto refuses. Move one of them away");
  }
  if (delta) return TableFormat::kDelta;
  if (hudi) return TableFormat::kHudi;
  return TableFormat::kAuto;
}

}  // namespace

Result<VacuumReport> Vacuum(std::shared_ptr<Storage> table, const VacuumOptions& options) {
  ARROW_RETURN_NOT_OK(options.Validate());
  VacuumOptions resolved = options;
  if (!resolved.clock) resolved.clock = Clock::System();
  if (!resolved.delete_engine) {
    resolved.delete_engine = resolved.engine ? resolved.engine : Engine::DefaultForStorageWaits();
  }
  if (!resolved.engine) resolved.engine = Engine::Default();
  ARROW_ASSIGN_OR_RAISE(const TableFormat found, DetectFormat(*table));
  TableFormat format = resolved.format;
  if (format == TableFormat::kAuto) {
    if (found == TableFormat::kAuto) {
      return Status::Invalid("'", table->root_uri(), "' is neither a Delta table (_delta_log/) nor a "
                             "Hudi table (", layout::kPropertiesFile, ")");
    }
    format = found;
  } else if (found != TableFormat::kAuto && found != format) {
    // Not damage: the other format's table, which this one's vacuum would empty.
    return Status::Invalid("'", table->root_uri(), "' holds a ", TableFormatName(found), " table, not a ",
                           TableFormatName(format), " one: vacuum it with format '", TableFormatName(found),
                           "' or 'auto'");
  }
  if (format == TableFormat::kHudi) return vacuum::VacuumHudiTable(std::move(table), resolved);
  return vacuum::VacuumDeltaTable(std::move(table), resolved);
}

Result<VacuumReport> Vacuum(const std::string& uri, const VacuumOptions& options) {
  StorageOptions storage_options;
  if (options.clock) storage_options.clock = options.clock;
  ARROW_ASSIGN_OR_RAISE(auto table, Storage::Open(uri, storage_options));
  return Vacuum(std::move(table), options);
}

}  // namespace lakeshore
