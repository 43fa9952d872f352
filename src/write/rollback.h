// Rolling back failed writes: delete what they wrote, record a rollback instant.
#pragma once

#include <string>
#include <vector>

#include "actions/instant_lifecycle.h"
#include "actions/table_context.h"

namespace lakeshore {

/// Rolls back every failed write on `timeline`: a pending data instant whose heartbeat has
/// expired (a live writer is never rolled back), and finishes interrupted rollbacks. Must run
/// under the table lock. For each: a rollback instant is requested with the failed instant's
/// planned files (its markers), those files are deleted, the rollback completes, then the
/// failed instant's pending files and heartbeat go. Idempotent at every step: a crash leaves
/// either a pending rollback (re-executed next time) or a completed one naming the instant
/// (the leftovers are then just removed). The failed instant's pending files are removed
/// before its data files, so it can never commit afterwards; `guard`'s lease is checked before
/// every destructive step. Each rollback first decides "rollback" for the instant
/// (write/commit_decision.h); an instant whose writer decided "commit" first is completed
/// instead. Returns the instant times rolled back.
Result<std::vector<std::string>> RollbackFailedWrites(TableContext& ctx, const Timeline& timeline,
                                                      const LockGuard& guard);

/// Completes every pending write whose writer decided "commit" at its commit point and did not
/// finish (write/commit_decision.h): a roll forward, whatever its heartbeat says. Called first
/// by RollbackFailedWrites, under the table lock. Returns the instants completed.
Result<std::vector<std::string>> RollForwardDecidedWrites(TableContext& ctx, const Timeline& timeline);

/// True when a rollback instant, completed or pending, names `instant_time`: that write must
/// never commit. Call under the table lock.
Result<bool> IsNamedByRollback(TableContext& ctx, const Timeline& timeline,
                               const std::vector<CompletedCommit>& commits, const std::string& instant_time);

/// Rolls back the completed write `instant_time` (Hudi's rollback of a commit): only the latest
/// completed write, and not one a savepoint keeps (Invalid otherwise, naming why). Under the
/// table lock: a rollback instant is planned naming the instant's data files; the instant's
/// completed file goes first, so readers stop seeing it before any of its files goes; then the
/// rollback deletes its files and pending files as for a failed write, and completes. A crash
/// leaves either the write untouched or a pending rollback that the next writer finishes.
/// Returns the rollback instant's time.
Result<std::string> RollbackCompletedInstant(TableContext& ctx, const std::string& instant_time);

/// Restores the table to the savepoint of `savepoint_time` (Hudi's restore): under the table
/// lock, a restore instant is requested with a HoodieRestorePlan listing every write completed
/// after the savepointed one (and every failed write requested after it), newest first; writes
/// are ordered by completion, as as_of and rollback order them; each is rolled back in that order (its own rollback instant;
/// completed ones become invisible before their files go); the restore completes with
/// HoodieRestoreMetadata. Refused (Invalid, naming why) when `savepoint_time` is not a
/// savepoint, a later savepoint exists, or a write after it is still in progress. A crash
/// leaves the table as of some instant between the two, and the next writer (or restore)
/// finishes it. Returns the restore instant's time.
Result<std::string> RestoreToSavepoint(TableContext& ctx, const std::string& savepoint_time);

/// Deletes an aborted write of this process at once (its files, its pending instant files);
/// used when a write fails before its commit point, e.g. on a commit conflict. Errors are
/// returned, and the instant is then left for RollbackFailedWrites.
Status AbortWrite(TableContext& ctx, InstantLifecycle& write, const std::vector<std::string>& planned_files);

}  // namespace lakeshore
