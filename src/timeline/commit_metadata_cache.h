// Parsed commit metadata of completed instants, read once per process.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "lakeshore/engine/engine.h"
#include "lakeshore/storage/storage.h"
#include "table/file_system_view.h"
#include "timeline/timeline.h"

namespace lakeshore {

/// Completed instant files never change, so their parsed content is cached by file name.
/// Thread-safe.
class CommitMetadataCache {
 public:
  /// The metadata of every completed instant of `timeline`, in completion order, decoded as
  /// its location says. Instants not yet cached are read in parallel through `engine`. Cost:
  /// one read per new instant.
  ///
  /// With `vanished`, an instant whose file fails to read and no longer exists (an archival
  /// moved it after `timeline` was listed) is left out of the result and appended there; the
  /// caller must find it elsewhere (LoadCommitsWithArchive). Without, that read fails the load.
  Result<std::vector<CompletedCommit>> LoadCompleted(Storage& storage, Engine& engine,
                                                     const Timeline& timeline,
                                                     std::vector<Instant>* vanished = nullptr);

 private:
  std::mutex mu_;
  std::map<std::string, CommitMetadata> by_file_;
};

}  // namespace lakeshore
