// Internal: the deleting half of a vacuum, shared by every table format.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <arrow/util/cancel.h>

#include "lakeshore/engine/engine.h"
#include "lakeshore/storage/storage.h"
#include "lakeshore/vacuum.h"

namespace lakeshore::vacuum {

/// What a deletion pass did; files already gone are not counted.
struct DeletionTotals {
  int64_t files_deleted = 0;
  int64_t bytes_deleted = 0;
  std::vector<std::string> refused;  ///< symbolic links, or paths behind one: never deleted
  int64_t dirs_deleted = 0;
};

/// Deletes `candidates` in batches of at most `batch_size` paths (smaller when that keeps more
/// engine workers busy), one Storage::DeleteFiles call per batch, the batches in parallel
/// through `engine`. Reports "deleting" progress. A failed
/// batch fails the call (files of other batches may be deleted: re-running converges); so does
/// a stop on `stop`, polled before each batch.
Result<DeletionTotals> DeleteFilesInBatches(Storage& storage, Engine& engine,
                                            const std::vector<VacuumCandidate>& candidates,
                                            int batch_size,
                                            const std::function<void(const VacuumProgress&)>& progress,
                                            const arrow::StopToken& stop = {});

/// The folders a vacuum tries to remove once `deleted` are gone: every folder above a deleted
/// file, and each of the listed old `empty_folders` with every folder above it (so a chain of
/// empty folders goes in one run: removing the deepest refreshes its parent's mtime, which
/// would otherwise keep the parent one more retention period). Each folder once. O(total depth).
std::vector<std::string> FoldersToTry(const std::vector<VacuumCandidate>& deleted,
                                      const std::vector<std::string>& empty_folders);

/// Removes the folders of `dirs` that are empty, deepest first (one level at a time, each
/// level in parallel), so a folder emptied by removing its empty children goes too. The root
/// ("") is never removed. Returns the number removed.
Result<int64_t> DeleteEmptyDirs(Storage& storage, Engine& engine, std::vector<std::string> dirs);

}  // namespace lakeshore::vacuum
