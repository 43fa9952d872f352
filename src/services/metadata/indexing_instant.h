// Internal: the `indexing` instant on the data timeline that a metadata partition build runs
// in, as Hudi's indexer lays it out (HoodieIndexPlan requested, inflight, HoodieIndexCommitMetadata
// completed), so every reader of the timeline sees that an index was built, and when.
#pragma once

#include <functional>

#include <string>
#include <vector>

#include "actions/instant_lifecycle.h"
#include "actions/table_context.h"
#include "timeline/timeline.h"
#include "write/table_lock.h"

namespace lakeshore {

/// The key each partition info of a Lakeshore build's plan carries in its extraMetadata (value
/// "lakeshore"): recovery abandons only the pending builds it finds it in, never a Hudi indexer's.
inline constexpr const char* kIndexingWriterKey = "lakeshore.writer";

/// A build of metadata partitions, bracketed by one `indexing` instant.
class IndexingInstant {
 public:
  /// The build of `partitions` (indexed up to `up_to`) that `life` brackets.
  IndexingInstant(InstantLifecycle life, std::vector<std::string> partitions, std::string up_to)
      : life_(std::move(life)), partitions_(std::move(partitions)), up_to_(std::move(up_to)) {}

  /// Under `guard`: plans the instant (requested: HoodieIndexPlan naming `partitions`, each
  /// indexed up to the latest completed data instant of `data_timeline`), then makes it
  /// inflight. The partitions build while it is inflight.
  static Result<IndexingInstant> Start(TableContext& ctx, const Timeline& data_timeline,
                                       const std::vector<std::string>& partitions, const LockGuard& guard);

  /// Under `guard`: completes the instant (HoodieIndexCommitMetadata), after
  /// every instant now on the data timeline. Call once every partition is built and listed.
  Status Complete(TableContext& ctx, const LockGuard& guard);

  const Instant& instant() const { return life_.instant(); }

 private:
  InstantLifecycle life_;
  std::vector<std::string> partitions_;
  std::string up_to_;
};

/// The metadata partitions that the `indexing` instants Lakeshore's builds left pending on
/// `data_timeline` name (a build that crashed: the next writer settles it), not a Hudi
/// indexer's. Cost: reads the requested file of each pending indexing instant.
Result<std::vector<std::string>> PartitionsOfPendingLakeshoreBuilds(TableContext& ctx, const Timeline& data_timeline);

/// Under `guard`: settles the `indexing` instants a Lakeshore build left pending on
/// `data_timeline` (a crash mid-build: builds run under the lock, so none is running). One whose
/// partitions are all in `built` (listed built in hoodie.properties) lost only its completion
/// and is completed; any other is abandoned (inflight file first) after `unlist` took its
/// partitions not in `built` off hoodie.properties (abandoned first, a crash in between left a
/// partition in flight that no pending instant claimed, which every writer then took for
/// another writer's build: read-only for good). A pending indexing instant of another writer (a Hudi indexer) is
/// left alone. Returns true when it changed the timeline.
Result<bool> RecoverCrashedIndexing(TableContext& ctx, const Timeline& data_timeline,
                                    const std::vector<std::string>& built, const LockGuard& guard,
                                    const std::function<Status(const std::vector<std::string>&)>& unlist);

}  // namespace lakeshore
