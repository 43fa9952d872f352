// Internal: what a full vacuum sees of a table — a parallel listing by top-level folder, or an
// inventory file — filtered by Delta's hidden-path rule.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/path_set.h"
#include "lakeshore/engine/engine.h"
#include "lakeshore/storage/storage.h"
#include "lakeshore/vacuum.h"
#include "table/hidden_names.h"

namespace lakeshore::vacuum {

using lakeshore::IsHiddenName;  // table/hidden_names.h: shared with the writes' blob check

/// Which listed paths a vacuum may consider.
struct VisibilityRule {
  std::vector<std::string> partition_columns;
  bool hide_metadata = false;
  /// A Hudi table's: a file named as Hudi names a log file (`.<fileId>_<instant>.log.<v>_<token>`)
  /// is visible for all its leading '.', so a log file no slice uses can be a candidate.
  bool hudi_log_files = false;
  /// A Hudi table's: staged writes our storage left behind are visible (IsHiddenName: a file
  /// named as one, or a folder named `.<name>.lakeshore-staged-dir.…`), so a vacuum reaps them once old. A
  /// Delta table's hidden names stay hidden, as Delta's rule has it.
  bool staged_writes = false;
  /// True if any segment of the relative `path` is hidden (so `_delta_log` and everything
  /// under any hidden folder is never considered). O(segments).
  bool IsHidden(std::string_view path) const;
};

/// True if the relative `path` is a staged write our storage made (or a crash left): its last
/// segment is a staged file's name, or a folder on its way is a staged folder
/// (`.<name>.lakeshore-staged-dir.<pid>.<n>.<r>`, everything in it is staged). A hidden folder
/// named as a staged file (`.backup.lakeshore-staged.1.2.3/`) is not one. O(segments).
bool IsInStagedWrite(std::string_view path);

/// `entries` (paths relative to the table root) without the folders inside the table that are
/// tables themselves, and everything in them: a folder holding `.hoodie/hoodie.properties` (a
/// Hudi table) or `_delta_log` (a Delta table). Their files are theirs, never this table's
/// strays; the hidden entries that tell them must still be among `entries`. Returns the nested
/// tables' roots (sorted, once each). O(entries × nested tables).
std::vector<std::string> DropNestedTables(std::vector<FileEntry>* entries);

/// Lists every visible file (and empty folder) of the table, never entering a nested table
/// (DropNestedTables): the root non-recursively, then
/// each visible top-level folder recursively as one engine task. Hidden folders are never
/// entered below the top level's own filter. Reports "listing" progress per folder.
/// Files `needs_details` rejects (a backend that pays for details then leaves them out:
/// Storage::ListSkippingDetails) are not returned, only counted in `*without_details` (when
/// given), but for those of nested tables and hidden ones, which are not this table's visible
/// files: a vacuum needs nothing of a file in use but its count. Files come in path order (each folder's are sorted by its own task), so
/// callers need not sort them again.
Result<std::vector<FileEntry>> ListVisibleFiles(Storage& table, Engine& engine,
                                                const VisibilityRule& rule,
                                                const std::function<void(const VacuumProgress&)>& progress,
                                                const Storage::NeedsDetails& needs_details = {},
                                                int64_t* without_details = nullptr);

/// Reads an inventory (Parquet if the name ends in ".parquet", else CSV with a header) with
/// columns path, length, isDir, modificationTime (ms). Paths under `root_uri` (absolute) or
/// relative ones are kept (made relative), others ignored; hidden ones are dropped. A missing
/// column, a bad value, or a negative length or modificationTime → Invalid naming the inventory
/// (and the row).
Result<std::vector<FileEntry>> ReadInventory(const std::string& inventory_uri,
                                             const std::string& root_uri,
                                             const VisibilityRule& rule);

/// What a full scan found.
struct UntrackedScan {
  int64_t files_listed = 0;
  std::vector<VacuumCandidate> candidates;     ///< visible, untracked, older than the cutoff
  std::vector<std::string> old_empty_folders;  ///< listed empty folders older than the cutoff
  /// The oldest mtime of a visible, untracked file kept for being younger than the cutoff: an
  /// optimistic run must not skip once the cutoff passes it (no commit will say it aged).
  std::optional<int64_t> oldest_young_untracked_ms;
};

/// Puts candidates in path order, the order a report lists them in. O(n) when they already
/// are (a listing's are), O(n log n) otherwise.
void SortByPath(std::vector<VacuumCandidate>& candidates);

/// The full-mode scan both formats share: lists the table (or reads `options.inventory`) and
/// keeps the visible files not in `live` whose mtime is older than `cutoff_ms` (younger ones
/// may be about to be committed), once each.
Result<UntrackedScan> ScanForUntracked(Storage& table, const VacuumOptions& options, const VisibilityRule& rule,
                                       const PathSet& live, int64_t cutoff_ms);

}  // namespace lakeshore::vacuum
