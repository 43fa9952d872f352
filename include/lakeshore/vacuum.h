// VACUUM: delete the files of a table that no version within the retention needs — for Delta
// Lake tables and Hudi tables — with a lite mode that works from the log alone
// and an optimistic mode that returns at once when nothing can have become deletable.
// See docs/vacuum.md for the safety argument.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <arrow/util/cancel.h>

#include "lakeshore/clock.h"
#include "lakeshore/engine/engine.h"
#include "lakeshore/status.h"
#include "lakeshore/storage/storage.h"

namespace lakeshore {

/// Which table format to vacuum. kAuto detects `_delta_log/` (Delta) or `.hoodie/hoodie.properties` (Hudi).
enum class TableFormat { kAuto, kDelta, kHudi };

/// kFull lists the table (or reads an inventory) and deletes every untracked file older than
/// the retention; kLite reads only the log: the files of tombstones (and change data files)
/// that aged out since the last vacuum's watermark.
enum class VacuumMode { kFull, kLite };

/// Stable lower-case names: "auto", "delta", "hudi"; "full", "lite".
const char* TableFormatName(TableFormat format);
const char* VacuumModeName(VacuumMode mode);
/// Parses the names above; anything else → Invalid.
Result<TableFormat> ParseTableFormat(const std::string& name);
Result<VacuumMode> ParseVacuumMode(const std::string& name);

/// A progress event: `phase` is "listing" (units: top-level folders) or "deleting" (units:
/// files). Called from the driver thread or from engine workers; must be thread-safe.
struct VacuumProgress {
  std::string phase;
  int64_t done = 0;
  int64_t total = 0;
};

/// Options of one vacuum run. Every field has its default here; Validate() checks them all.
struct VacuumOptions {
  /// `vacuum.format`: the table format, default auto-detect.
  TableFormat format = TableFormat::kAuto;
  /// `vacuum.retain_hours`: retention in hours; unset means the table's
  /// `delta.deletedFileRetentionDuration` (default 7 days). Must be >= 0.
  std::optional<double> retain_hours;
  /// `vacuum.enforce_retention`: refuse (kRetentionViolation) a retention shorter than the
  /// table's. Turn off only when no reader or writer can still need the files.
  bool enforce_retention = true;
  /// `vacuum.dry_run`: find the candidates, delete nothing, write nothing.
  bool dry_run = false;
  /// `vacuum.mode`: full (listing) or lite (log only).
  VacuumMode mode = VacuumMode::kFull;
  /// `vacuum.optimistic`: decide from the log alone whether anything can have become
  /// deletable since the last vacuum; if not, return skipped=true without listing.
  bool optimistic = false;
  /// `vacuum.optimistic.force_full_after_hours`: with `optimistic`, run a full vacuum anyway
  /// when the last full run is older than this many hours (catches files written outside any
  /// commit). Unset: never forced. Must be > 0.
  std::optional<double> force_full_after_hours;
  /// `vacuum.inventory`: a Parquet or CSV file (columns path, length, isDir,
  /// modificationTime) listing the table, used instead of listing storage. Paths are
  /// relative to the table root or absolute URIs under it; others are ignored.
  std::string inventory;
  /// `vacuum.delete_batch_size`: paths per delete call (S3 allows 1000). 1..1000.
  int delete_batch_size = 1000;
  /// Clock for every retention decision of this run (default: the system clock).
  std::shared_ptr<Clock> clock;
  /// Engine for the listing fan-out and the other computing work (default: Engine::Default()).
  std::shared_ptr<Engine> engine;
  /// Engine for the deletes, whose tasks wait on storage rather than compute (default:
  /// `engine` when one is given, else Engine::DefaultForStorageWaits()).
  std::shared_ptr<Engine> delete_engine;
  /// Optional progress callback.
  std::function<void(const VacuumProgress&)> progress;
  /// Polled before the deletes start and before each batch of them: a stopped vacuum fails
  /// with the stop's status (kCancelled) having deleted only whole batches of candidates, which
  /// a crash could leave too; the next vacuum finds what is left. Default: never stops.
  arrow::StopToken stop;

  /// Checks every field; Invalid naming the option on a bad value. O(1).
  Status Validate() const;
};

/// A file a vacuum deletes (or, in a dry run, would delete).
struct VacuumCandidate {
  std::string path;  ///< relative to the table root
  int64_t size = 0;
};

/// What one vacuum run did.
struct VacuumReport {
  std::string format;        ///< "delta" or "hudi"
  std::string mode;          ///< "full" or "lite"
  bool dry_run = false;
  bool skipped = false;      ///< optimistic run that found nothing to do
  std::string skip_reason;   ///< why it skipped, or why it could not skip (when optimistic)
  int64_t files_listed = 0;  ///< visible files and folders listed (0 for lite and skipped runs)
  int64_t files_deleted = 0; ///< files this run removed (already-gone files not counted)
  int64_t bytes_deleted = 0;
  int64_t dirs_deleted = 0;  ///< empty folders removed
  /// Candidates left in place because they are symbolic links or lie behind one (a vacuum never
  /// deletes through a link, nor a link itself), sorted.
  std::vector<std::string> files_refused;
  /// The files to delete, sorted by path: always filled in a dry run; in a real run, the
  /// files this run attempted to delete.
  std::vector<VacuumCandidate> candidates;
  int64_t time_to_identify_ms = 0;
  int64_t time_to_delete_ms = 0;
};

/// Calls `visit(name, value)` for every field of the report, in the order of the JSON report:
/// the one definition of the report's fields, shared by VacuumReportToJson and the Python
/// dict. Values are `const std::string&`, `bool`, `int64_t`, `const std::vector<std::string>&`
/// or `const std::vector<VacuumCandidate>&`.
template <typename Visitor>
void VisitVacuumReport(const VacuumReport& r, Visitor&& visit) {
  visit("format", r.format);
  visit("mode", r.mode);
  visit("dry_run", r.dry_run);
  visit("skipped", r.skipped);
  visit("skip_reason", r.skip_reason);
  visit("files_listed", r.files_listed);
  visit("files_deleted", r.files_deleted);
  visit("bytes_deleted", r.bytes_deleted);
  visit("dirs_deleted", r.dirs_deleted);
  visit("files_refused", r.files_refused);
  visit("candidates", r.candidates);
  visit("time_to_identify_ms", r.time_to_identify_ms);
  visit("time_to_delete_ms", r.time_to_delete_ms);
}

/// Serializes a report as one JSON object with exactly the field names of VisitVacuumReport.
std::string VacuumReportToJson(const VacuumReport& report);

/// Vacuums the table at `uri` (see Storage::Open for URI forms).
///
/// Contract: nothing is deleted unless the whole log was read and understood; a file is
/// deleted only if no active file, deletion vector or unexpired tombstone names it and its
/// modification time is older than now - retention. Bad input (corrupt or truncated log,
/// missing checkpoint part, unknown writer feature) → an error naming the file, and nothing
/// deleted. Re-running an interrupted vacuum converges.
/// Cost: full — one parallel listing + the log; lite and optimistic — the log only.
Result<VacuumReport> Vacuum(const std::string& uri, const VacuumOptions& options);

/// The same on an already opened table storage (tests, fault injection).
Result<VacuumReport> Vacuum(std::shared_ptr<Storage> table, const VacuumOptions& options);

}  // namespace lakeshore
