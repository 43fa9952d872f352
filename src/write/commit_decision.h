// The fence between a committing writer and a rollback of its instant: one decision object per
// pending instant, created with put-if-absent, so that of the two exactly one acts.
//
// Without it a writer paused at its commit point (a GC pause, a slow PUT) longer than its lease
// could be rolled back by another writer — its files deleted — and then complete its instant
// anyway, reporting success for a write whose records are gone. With it:
// - the committer, before creating its completed instant file, decides "commit" and writes into
//   the decision everything needed to complete the instant (its completion time and bytes);
// - a rollback, before deleting anything, decides "rollback";
// - whoever finds the other's decision yields: a committer finding "rollback" fails with
//   kCommitConflict; a rollback finding "commit" completes the instant from the decision (roll
//   forward) instead of deleting it. A crash after either decision is recovered the same way.
// Decisions are removed once the instant is completed or its rollback has removed its pending
// files; a committer that wins a decision and then finds its inflight file gone fails instead of
// committing, so a late writer can never complete an instant whose files a rollback deleted.
#pragma once

#include <string>

#include "lakeshore/status.h"
#include "lakeshore/storage/storage.h"

namespace lakeshore {

/// What was decided for a pending instant.
struct CommitDecision {
  enum class Kind { kCommit, kRollback } kind = Kind::kRollback;
  std::string completion_time;  ///< kCommit: the completed instant's completion time
  std::string completed_bytes;  ///< kCommit: the completed instant file's content
};

/// Proposes `proposal` for `instant_time` (one put-if-absent) and returns the standing decision:
/// the proposal if it won, else the one already made. A decision object that cannot be parsed
/// → kCorruptMetadata naming it.
Result<CommitDecision> Decide(Storage& storage, const std::string& instant_time, const CommitDecision& proposal);

/// Removes the decision of `instant_time` (missing is success).
Status ForgetDecision(Storage& storage, const std::string& instant_time);

}  // namespace lakeshore
