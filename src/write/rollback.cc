#include "write/rollback.h"

#include <set>

#include "timeline/instant_time.h"

namespace lakeshore {
namespace {
constexpr const char* kRolledBackInstant = "rolled_back_instant";
constexpr const char* kRolledBackAction = "rolled_back_action";

// The files a pending write planned (from its inflight file); none if it never got there.
Result<std::vector<std::string>> PlannedFiles(Storage& storage, const Instant& pending) {
  if (pending.state != InstantState::kInflight) return std::vector<std::string>();
  ARROW_ASSIGN_OR_RAISE(auto text, timeline_ops::ReadContent(storage, pending));
  ARROW_ASSIGN_OR_RAISE(auto plan, CommitMetadata::FromJson(text, Timeline::PathOf(pending)));
  return plan.planned_files;
}

Status RemoveLeftovers(TableContext& ctx, const Instant& failed) {
  ARROW_RETURN_NOT_OK(timeline_ops::DeletePendingFiles(*ctx.storage, failed));
  return ctx.storage->DeleteFiles({HeartbeatPath(failed.time)}).status();
}

// The instant a rollback plan names.
Instant RollbackTarget(const CommitMetadata& plan) {
  auto time = plan.extra.find(kRolledBackInstant);
  auto action = plan.extra.find(kRolledBackAction);
  return Instant{time != plan.extra.end() ? time->second : "",
                 action != plan.extra.end() ? action->second : actions::kCommit};
}

// The rollback instants not yet completed, with their plans.
Result<std::vector<std::pair<Instant, CommitMetadata>>> PendingRollbacks(TableContext& ctx, const Timeline& timeline) {
  std::vector<std::pair<Instant, CommitMetadata>> out;
  for (const Instant& pending : timeline.Pending()) {
    if (pending.action != actions::kRollback) continue;
    ARROW_ASSIGN_OR_RAISE(auto text, timeline_ops::ReadContent(*ctx.storage, pending));
    ARROW_ASSIGN_OR_RAISE(auto plan, CommitMetadata::FromJson(text, Timeline::PathOf(pending)));
    out.emplace_back(pending, std::move(plan));
  }
  return out;
}

// Runs a requested or inflight rollback instant to completion. The target's pending files go
// first, so from then on the target can never commit (its commit finds its instant gone);
// only then are its data files deleted. If the target completed after all (a rollback
// interrupted before this order was kept), nothing is deleted.
Status ExecuteRollback(TableContext& ctx, const Timeline& timeline, const Instant& rollback,
                       const CommitMetadata& plan, const std::string& last_time, const LockGuard& guard) {
  ARROW_RETURN_NOT_OK(guard.CheckHeld());
  if (rollback.state == InstantState::kRequested) {
    ARROW_RETURN_NOT_OK(timeline_ops::TransitionToInflight(*ctx.storage, rollback, plan.ToJson()));
  }
  Instant failed = RollbackTarget(plan);
  auto target = timeline.Find(failed.time);
  CommitMetadata done = plan;
  if (target && target->is_completed()) {
    done.extra["skipped"] = "instant " + failed.time + " completed; nothing was deleted";
  } else {
    if (!failed.time.empty()) ARROW_RETURN_NOT_OK(RemoveLeftovers(ctx, failed));
    ARROW_RETURN_NOT_OK(guard.CheckHeld());
    ARROW_ASSIGN_OR_RAISE(auto outcome, ctx.storage->DeleteFiles(plan.planned_files));
    done.extra["files_deleted"] = std::to_string(outcome.deleted);
    done.extra["files_already_gone"] = std::to_string(outcome.already_gone);
  }
  std::string completion = NextInstantTime(ctx.clock->NowMs(), last_time);
  return timeline_ops::Complete(*ctx.storage, rollback, completion, done.ToJson()).status();
}
}  // namespace

Result<bool> IsNamedByRollback(TableContext& ctx, const Timeline& timeline,
                               const std::vector<CompletedCommit>& commits, const std::string& instant_time) {
  for (const auto& c : commits) {
    if (c.instant.action == actions::kRollback && RollbackTarget(c.metadata).time == instant_time) return true;
  }
  ARROW_ASSIGN_OR_RAISE(auto pending_rollbacks, PendingRollbacks(ctx, timeline));
  for (const auto& [pending, plan] : pending_rollbacks) {
    if (RollbackTarget(plan).time == instant_time) return true;
  }
  return false;
}

Result<std::vector<std::string>> RollbackFailedWrites(TableContext& ctx, const Timeline& timeline,
                                                      const LockGuard& guard) {
  std::vector<std::string> rolled_back;
  std::set<std::string> already_rolled_back;
  ARROW_ASSIGN_OR_RAISE(auto completed, ctx.LoadCommits(timeline));
  for (const auto& c : completed) {
    if (c.instant.action != actions::kRollback) continue;
    auto it = c.metadata.extra.find(kRolledBackInstant);
    if (it != c.metadata.extra.end()) already_rolled_back.insert(it->second);
  }
  // Interrupted rollbacks are finished first; their targets need no new rollback.
  ARROW_ASSIGN_OR_RAISE(auto pending_rollbacks, PendingRollbacks(ctx, timeline));
  std::string last_time = timeline.LastTime();
  for (auto& [pending, plan] : pending_rollbacks) {
    ARROW_RETURN_NOT_OK(ExecuteRollback(ctx, timeline, pending, plan, last_time, guard));
    last_time = std::max(last_time, NextInstantTime(ctx.clock->NowMs(), last_time));
    already_rolled_back.insert(plan.extra[kRolledBackInstant]);
    rolled_back.push_back(plan.extra[kRolledBackInstant]);
  }
  for (const Instant& pending : timeline.Pending()) {
    if (pending.action == actions::kRollback) continue;  // finished above
    if (!actions::WritesData(pending.action)) continue;  // other services recover themselves
    if (already_rolled_back.count(pending.time)) {
      ARROW_RETURN_NOT_OK(RemoveLeftovers(ctx, pending));
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(bool expired, IsHeartbeatExpired(*ctx.storage, *ctx.clock, pending.time, ctx.heartbeat));
    if (!expired) continue;  // a slow writer is alive: never roll it back under its feet
    CommitMetadata plan;
    plan.operation = "rollback";
    ARROW_ASSIGN_OR_RAISE(plan.planned_files, PlannedFiles(*ctx.storage, pending));
    plan.extra[kRolledBackInstant] = pending.time;
    plan.extra[kRolledBackAction] = pending.action;
    Instant rollback{NextInstantTime(ctx.clock->NowMs(), last_time), actions::kRollback};
    last_time = rollback.time;
    ARROW_RETURN_NOT_OK(guard.CheckHeld());
    ARROW_RETURN_NOT_OK(timeline_ops::CreateRequested(*ctx.storage, rollback, plan.ToJson()));
    ARROW_RETURN_NOT_OK(ExecuteRollback(ctx, timeline, rollback, plan, last_time, guard));
    last_time = NextInstantTime(ctx.clock->NowMs(), last_time);
    rolled_back.push_back(pending.time);
  }
  return rolled_back;
}

Status AbortWrite(TableContext& ctx, const Instant& instant, const std::vector<std::string>& planned_files) {
  ARROW_RETURN_NOT_OK(ctx.storage->DeleteFiles(planned_files).status());
  return timeline_ops::DeletePendingFiles(*ctx.storage, instant);
}

}  // namespace lakeshore
