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

// Runs a requested or inflight rollback instant to completion.
Status ExecuteRollback(TableContext& ctx, const Instant& rollback, const CommitMetadata& plan,
                       const std::string& last_time) {
  if (rollback.state == InstantState::kRequested) {
    ARROW_RETURN_NOT_OK(timeline_ops::TransitionToInflight(*ctx.storage, rollback, plan.ToJson()));
  }
  ARROW_ASSIGN_OR_RAISE(auto outcome, ctx.storage->DeleteFiles(plan.planned_files));
  CommitMetadata done = plan;
  done.extra["files_deleted"] = std::to_string(outcome.deleted);
  done.extra["files_already_gone"] = std::to_string(outcome.already_gone);
  std::string completion = NextInstantTime(ctx.clock->NowMs(), last_time);
  ARROW_RETURN_NOT_OK(timeline_ops::Complete(*ctx.storage, rollback, completion, done.ToJson()).status());
  auto target = plan.extra.find(kRolledBackInstant);
  if (target == plan.extra.end()) return Status::OK();
  // The failed instant's action is recorded in the plan; its pending files go now.
  auto action = plan.extra.find(kRolledBackAction);
  Instant failed{target->second, action != plan.extra.end() ? action->second : actions::kCommit};
  return RemoveLeftovers(ctx, failed);
}
}  // namespace

Result<std::vector<std::string>> RollbackFailedWrites(TableContext& ctx, const Timeline& timeline) {
  std::vector<std::string> rolled_back;
  std::set<std::string> already_rolled_back;
  ARROW_ASSIGN_OR_RAISE(auto completed, ctx.LoadCommits(timeline));
  for (const auto& c : completed) {
    if (c.instant.action != actions::kRollback) continue;
    auto it = c.metadata.extra.find(kRolledBackInstant);
    if (it != c.metadata.extra.end()) already_rolled_back.insert(it->second);
  }
  std::string last_time = timeline.LastTime();
  for (const Instant& pending : timeline.Pending()) {
    if (pending.action == actions::kRollback) {
      ARROW_ASSIGN_OR_RAISE(auto text, timeline_ops::ReadContent(*ctx.storage, pending));
      ARROW_ASSIGN_OR_RAISE(auto plan, CommitMetadata::FromJson(text, Timeline::PathOf(pending)));
      ARROW_RETURN_NOT_OK(ExecuteRollback(ctx, pending, plan, last_time));
      last_time = std::max(last_time, NextInstantTime(ctx.clock->NowMs(), last_time));
      already_rolled_back.insert(plan.extra[kRolledBackInstant]);
      rolled_back.push_back(plan.extra[kRolledBackInstant]);
      continue;
    }
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
    ARROW_RETURN_NOT_OK(timeline_ops::CreateRequested(*ctx.storage, rollback, plan.ToJson()));
    ARROW_RETURN_NOT_OK(ExecuteRollback(ctx, rollback, plan, last_time));
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
