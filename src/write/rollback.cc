#include "write/rollback.h"

#include <algorithm>
#include <set>

#include "actions/instant_lifecycle.h"
#include "services/metadata/metadata_writer.h"
#include "table/file_naming.h"
#include "timeline/instant_codec.h"
#include "timeline/instant_time.h"
#include "table/layout.h"
#include "timeline/markers.h"
#include "write/commit_decision.h"

namespace lakeshore {
namespace {

/// The data files a failed write may have created: those its markers and its inflight plan
/// name, kept only when they are data files of that very instant (a base file named with its
/// instant time, or one of its log files) inside a partition folder. Nothing else is ever
/// deleted by a rollback, whatever a plan or a marker says.
Result<std::vector<std::string>> PlannedFiles(TableContext& ctx, const Instant& pending) {
  std::set<std::string> named;
  ARROW_ASSIGN_OR_RAISE(auto markers, ReadMarkers(*ctx.storage, pending.time));
  for (const auto& m : markers) named.insert(m.path);
  if (pending.state == InstantState::kInflight) {
    // Gone (its writer aborted it, or another rollback finished since the listing): the markers
    // name its files, and a pending instant that vanished is not an error.
    ARROW_ASSIGN_OR_RAISE(auto text, timeline_ops::ReadContentIfPresent(*ctx.storage, ctx.timeline_location, pending));
    if (text) {
      ARROW_ASSIGN_OR_RAISE(auto plan, ctx.codec().Decode(pending, *text, ctx.timeline_location.PathOf(pending)));
      named.insert(plan.planned_files.begin(), plan.planned_files.end());
    }
  }
  std::vector<std::string> out;
  for (const auto& path : named) {
    auto name = ParseDataFileName(BaseName(path));
    if (!name || name->instant_time != pending.time) continue;
    auto normal = NormalizeRelativePath(path);
    if (!normal.ok() || *normal != path || BaseName(path).rfind(".hoodie", 0) == 0) continue;
    out.push_back(path);
  }
  return out;
}

Status RemoveLeftovers(TableContext& ctx, const Instant& failed) {
  ARROW_RETURN_NOT_OK(InstantLifecycle::Resume(ctx.storage, ctx.timeline_location, failed).Abandon());
  ARROW_RETURN_NOT_OK(DeleteMarkers(*ctx.storage, failed.time));
  return ctx.storage->DeleteFiles({HeartbeatPath(failed.time)}).status();
}

/// True for a pending instant of a writer (commit, deltacommit, or a replacecommit that is not
/// a clustering), the instants RollbackFailedWrites may roll back. A pending compaction or
/// clustering is a table service's plan, executed (or rolled back) by that service: Hudi's
/// writers leave them alone too, and rolling one back under a running Spark job would delete
/// the files it is writing. A replacecommit is a clustering when its requested file holds a
/// clustering plan (older Hudi clusterings use replacecommit for every state).
Result<bool> IsWriterInstant(TableContext& ctx, const Instant& pending) {
  const std::string& a = pending.action;
  if (a == actions::kCommit || a == actions::kDeltaCommit) return true;
  if (a != actions::kReplaceCommit) return false;
  ARROW_ASSIGN_OR_RAISE(auto plan, ctx.LoadRequestedPlan(pending));
  // No request (an inflight replacecommit without it) is a writer's leftover.
  return !plan || plan->clustering_file_ids.empty();
}

// The instant a rollback plan names (none: an empty time).
Instant RollbackTarget(const CommitMetadata& plan) {
  if (!plan.rollback) return Instant{"", actions::kCommit, InstantState::kCompleted, ""};
  Instant target = plan.rollback->target;
  if (target.action.empty()) target.action = actions::kCommit;
  return target;
}

// The rollback instants not yet completed, with their plans.
Result<std::vector<std::pair<Instant, CommitMetadata>>> PendingRollbacks(TableContext& ctx, const Timeline& timeline) {
  std::vector<std::pair<Instant, CommitMetadata>> out;
  for (const Instant& pending : timeline.Pending()) {
    if (pending.action != actions::kRollback) continue;
    // The plan is the requested file's (the inflight file is empty, as Hudi writes it).
    ARROW_ASSIGN_OR_RAISE(auto plan, ctx.LoadRequestedPlan(pending));
    if (plan) out.emplace_back(pending, std::move(*plan));
  }
  return out;
}

// Runs a requested or inflight rollback instant to completion. The target's pending files go
// first, so from then on the target can never commit (its commit finds its instant gone);
// only then are its data files deleted. If the target completed after all (a rollback
// interrupted before this order was kept), nothing is deleted.
Status ExecuteRollback(TableContext& ctx, const Timeline& timeline, InstantLifecycle& rollback,
                       const CommitMetadata& plan, const LockGuard& guard) {
  ARROW_RETURN_NOT_OK(guard.CheckHeld());
  ARROW_ASSIGN_OR_RAISE(auto inflight, ctx.EncodeInstant(rollback.instant(), InstantState::kInflight, plan));
  ARROW_RETURN_NOT_OK(rollback.StartInflight(inflight));
  Instant failed = RollbackTarget(plan);
  auto target = timeline.Find(failed.time);
  CommitMetadata done = plan;
  RollbackRecord& record = done.rollback.emplace(RollbackRecord{failed});
  if (target && target->is_completed()) {
    record.target_had_completed = true;
  } else {
    if (!failed.time.empty()) ARROW_RETURN_NOT_OK(RemoveLeftovers(ctx, failed));
    // Its metadata-table deltacommit goes before its files (a later archival would otherwise
    // make the entries count).
    if (!failed.time.empty()) {
      ARROW_RETURN_NOT_OK(
          RollbackMetadataInstant(ctx, failed.time, guard, /*data_completed=*/failed.state == InstantState::kCompleted));
    }
    ARROW_RETURN_NOT_OK(guard.CheckHeld());
    ARROW_ASSIGN_OR_RAISE(auto outcome, ctx.storage->DeleteFiles(plan.planned_files));
    record.files_deleted = outcome.deleted;
    record.files_already_gone = outcome.already_gone;
  }
  ARROW_ASSIGN_OR_RAISE(auto bytes, ctx.EncodeInstant(rollback.instant(), InstantState::kCompleted, done));
  ARROW_ASSIGN_OR_RAISE(auto latest, ctx.LoadTimeline());
  return rollback.Complete(LatestTime({&latest}), bytes, *ctx.clock, guard).status();
}

/// Completes `pending` from the "commit" decision its writer made at its commit point (a roll
/// forward): the writer got that far, so its instant is committed, whatever happened to it after.
Status RollForward(TableContext& ctx, const Instant& pending, const CommitDecision& decision) {
  auto done = InstantLifecycle::Resume(ctx.storage, ctx.timeline_location, pending)
                  .CompleteAt(decision.completion_time, decision.completed_bytes);
  if (!done.ok() && !IsError(done, ErrorKind::kCommitConflict)) return done;
  ARROW_RETURN_NOT_OK(DeleteMarkers(*ctx.storage, pending.time));
  ARROW_RETURN_NOT_OK(ctx.storage->DeleteFiles({HeartbeatPath(pending.time)}).status());
  return ForgetDecision(*ctx.storage, pending.time);
}
}  // namespace

Result<std::vector<std::string>> RollForwardDecidedWrites(TableContext& ctx, const Timeline& timeline) {
  std::vector<std::string> out;
  ARROW_ASSIGN_OR_RAISE(auto decisions, ctx.storage->List(layout::kDecisionDir, /*recursive=*/false));
  std::set<std::string> decided;
  for (const auto& e : decisions) decided.insert(std::string(BaseName(e.path)));
  for (const Instant& pending : timeline.Pending()) {
    if (!actions::WritesData(pending.action) || !decided.count(pending.time)) continue;
    ARROW_ASSIGN_OR_RAISE(auto decision, Decide(*ctx.storage, pending.time, CommitDecision{}));
    if (decision.kind != CommitDecision::Kind::kCommit) continue;  // a rollback in progress
    ARROW_RETURN_NOT_OK(RollForward(ctx, pending, decision));
    out.push_back(pending.time);
  }
  return out;
}

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

namespace {

/// Rolls back the pending write `pending` (its heartbeat expired), behind the commit fence:
/// decide "rollback" before deleting anything; a writer that decided "commit" first is
/// completed instead (write/commit_decision.h). Returns whether it was rolled back.
Result<bool> RollBackPending(TableContext& ctx, const Timeline& timeline, const Instant& pending,
                             const LockGuard& guard) {
  ARROW_RETURN_NOT_OK(guard.CheckHeld());
  ARROW_ASSIGN_OR_RAISE(auto decision, Decide(*ctx.storage, pending.time, CommitDecision{}));
  if (decision.kind == CommitDecision::Kind::kCommit) {
    ARROW_RETURN_NOT_OK(RollForward(ctx, pending, decision));
    return false;
  }
  CommitMetadata plan;
  plan.operation = "rollback";
  ARROW_ASSIGN_OR_RAISE(plan.planned_files, PlannedFiles(ctx, pending));
  plan.rollback = RollbackRecord{Instant{pending.time, pending.action, pending.state, ""}};
  ARROW_ASSIGN_OR_RAISE(auto latest, ctx.LoadTimeline());
  ARROW_ASSIGN_OR_RAISE(
      auto rollback,
      InstantLifecycle::Plan(
          ctx.storage, ctx.timeline_location, actions::kRollback, LatestTime({&latest}),
          [&](const Instant& instant) { return ctx.EncodeInstant(instant, InstantState::kRequested, plan); },
          *ctx.clock, guard));
  ARROW_RETURN_NOT_OK(ExecuteRollback(ctx, timeline, rollback, plan, guard));
  // Its pending files are gone: a writer that wakes now finds them gone and fails.
  ARROW_RETURN_NOT_OK(ForgetDecision(*ctx.storage, pending.time));
  return true;
}

/// Rolls back the completed write `target` (no check that it is the latest): a rollback
/// instant names its data files (only those its name carries); its completed file goes first,
/// so readers stop seeing it before any file goes; then the rollback runs as for a failed write.
Status RollBackCompleted(TableContext& ctx, const Timeline& timeline, const Instant& target, const LockGuard& guard) {
  ARROW_ASSIGN_OR_RAISE(auto commits, ctx.LoadCommits(timeline));
  CommitMetadata plan;
  plan.operation = "rollback";
  plan.rollback = RollbackRecord{Instant{target.time, target.action, InstantState::kCompleted, ""}};
  for (const auto& c : commits) {
    if (c.instant.time != target.time) continue;
    for (const auto& stat : c.metadata.write_stats) {
      auto name = ParseDataFileName(BaseName(stat.path));
      if (!stat.path.empty() && name && name->instant_time == target.time) plan.planned_files.push_back(stat.path);
    }
  }
  ARROW_ASSIGN_OR_RAISE(
      auto rollback,
      InstantLifecycle::Plan(
          ctx.storage, ctx.timeline_location, actions::kRollback, LatestTime({&timeline}),
          [&](const Instant& instant) { return ctx.EncodeInstant(instant, InstantState::kRequested, plan); },
          *ctx.clock, guard));
  ARROW_ASSIGN_OR_RAISE(auto inflight, ctx.EncodeInstant(rollback.instant(), InstantState::kInflight, plan));
  ARROW_RETURN_NOT_OK(rollback.StartInflight(inflight));
  ARROW_RETURN_NOT_OK(guard.CheckHeld());
  ARROW_RETURN_NOT_OK(ctx.storage->DeleteFiles({ctx.timeline_location.PathOf(target)}).status());
  ARROW_ASSIGN_OR_RAISE(auto after, ctx.LoadTimeline());
  return ExecuteRollback(ctx, after, rollback, plan, guard);
}

/// Runs a restore instant to completion: each target still on the timeline, newest first, is
/// rolled back (completed ones as RollBackCompleted, pending ones behind the commit fence), a
/// target a rollback already names is done. Idempotent: recovery runs it again from the top.
Status ExecuteRestore(TableContext& ctx, InstantLifecycle& restore, const CommitMetadata& plan,
                      const LockGuard& guard) {
  ARROW_RETURN_NOT_OK(restore.StartInflight(""));
  for (const Instant& target : plan.restore->targets) {
    ARROW_ASSIGN_OR_RAISE(auto timeline, ctx.LoadTimeline());
    std::optional<Instant> current;
    for (const auto& i : timeline.instants()) {
      if (i.time == target.time && i.action != actions::kSavepoint) current = i;
    }
    if (!current) continue;  // gone already
    if (current->is_completed()) {
      // Still visible, even if a rollback names it (one interrupted before the completed file
      // went completes as a no-op): roll it back now.
      ARROW_RETURN_NOT_OK(RollBackCompleted(ctx, timeline, *current, guard));
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(auto commits, ctx.LoadCommits(timeline));
    ARROW_ASSIGN_OR_RAISE(bool named, IsNamedByRollback(ctx, timeline, commits, target.time));
    if (named) {
      ARROW_RETURN_NOT_OK(RemoveLeftovers(ctx, *current));  // its rollback deleted its files
    } else {
      ARROW_RETURN_NOT_OK(RollBackPending(ctx, timeline, *current, guard).status());
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto bytes, ctx.EncodeInstant(restore.instant(), InstantState::kCompleted, plan));
  ARROW_ASSIGN_OR_RAISE(auto latest, ctx.LoadTimeline());
  return restore.Complete(LatestTime({&latest}), bytes, *ctx.clock, guard).status();
}

/// Finishes the restores a crash interrupted (their plans are in their requested files);
/// returns the instants they roll back.
Result<std::vector<std::string>> FinishPendingRestores(TableContext& ctx, const Timeline& timeline,
                                                       const LockGuard& guard) {
  std::vector<std::string> targets;
  for (const Instant& pending : timeline.Pending()) {
    if (pending.action != actions::kRestore) continue;
    ARROW_ASSIGN_OR_RAISE(auto plan, ctx.LoadRequestedPlan(pending));
    if (!plan) continue;  // finished meanwhile
    if (!plan->restore) {
      Instant requested = pending;
      requested.state = InstantState::kRequested;
      return CorruptMetadata("restore plan '" + ctx.timeline_location.PathOf(requested) + "' is empty");
    }
    auto restore = InstantLifecycle::Resume(ctx.storage, ctx.timeline_location, pending);
    ARROW_RETURN_NOT_OK(ExecuteRestore(ctx, restore, *plan, guard));
    for (const auto& t : plan->restore->targets) targets.push_back(t.time);
  }
  return targets;
}

}  // namespace

Result<std::vector<std::string>> RollbackFailedWrites(TableContext& ctx, const Timeline& listed,
                                                      const LockGuard& guard) {
  // Nothing is written on a timeline whose times cannot go on (a far-future instant).
  ARROW_RETURN_NOT_OK(NextInstantTime(ctx.clock->NowMs(), listed.LastTime()).status());
  ARROW_ASSIGN_OR_RAISE(auto rolled_forward, RollForwardDecidedWrites(ctx, listed));
  Timeline reloaded;
  if (!rolled_forward.empty()) {
    ARROW_ASSIGN_OR_RAISE(reloaded, ctx.LoadTimeline());
  }
  const Timeline& timeline = rolled_forward.empty() ? listed : reloaded;
  std::vector<std::string> rolled_back;
  std::set<std::string> already_rolled_back;
  ARROW_ASSIGN_OR_RAISE(auto completed, ctx.LoadCommits(timeline));
  for (const auto& c : completed) {
    if (c.instant.action == actions::kRollback && c.metadata.rollback) {
      already_rolled_back.insert(c.metadata.rollback->target.time);
    }
  }
  // Interrupted rollbacks are finished first (recovery: the same steps, from where they stopped);
  // their targets need no new rollback.
  ARROW_ASSIGN_OR_RAISE(auto pending_rollbacks, PendingRollbacks(ctx, timeline));
  for (auto& [pending, plan] : pending_rollbacks) {
    auto rollback = InstantLifecycle::Resume(ctx.storage, ctx.timeline_location, pending);
    ARROW_RETURN_NOT_OK(ExecuteRollback(ctx, timeline, rollback, plan, guard));
    const std::string target = RollbackTarget(plan).time;
    already_rolled_back.insert(target);
    rolled_back.push_back(target);
  }
  // Then interrupted restores, whose rollbacks have just been finished.
  if (std::any_of(timeline.instants().begin(), timeline.instants().end(),
                  [](const Instant& i) { return i.action == actions::kRestore && !i.is_completed(); })) {
    ARROW_ASSIGN_OR_RAISE(auto restored, FinishPendingRestores(ctx, timeline, guard));
    rolled_back.insert(rolled_back.end(), restored.begin(), restored.end());
    return rolled_back;  // the restore rolled back everything after its savepoint; callers re-list
  }
  for (const Instant& pending : timeline.Pending()) {
    if (pending.action == actions::kRollback) continue;  // finished above
    ARROW_ASSIGN_OR_RAISE(bool writer, IsWriterInstant(ctx, pending));
    if (!writer) continue;  // table services (compaction, clustering, clean) recover themselves
    if (already_rolled_back.count(pending.time)) {
      ARROW_RETURN_NOT_OK(RemoveLeftovers(ctx, pending));
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(bool expired, IsHeartbeatExpired(*ctx.storage, *ctx.clock, pending.time, ctx.heartbeat));
    if (!expired) continue;  // a slow writer is alive: never roll it back under its feet
    ARROW_ASSIGN_OR_RAISE(bool rolled, RollBackPending(ctx, timeline, pending, guard));
    if (rolled) rolled_back.push_back(pending.time);
  }
  return rolled_back;
}

Result<std::string> RollbackCompletedInstant(TableContext& ctx, const std::string& instant_time) {
  ARROW_ASSIGN_OR_RAISE(auto guard, ctx.Lock().Acquire("rollback"));
  ARROW_ASSIGN_OR_RAISE(auto listed, ctx.LoadTimeline());
  // A write past its decision is completed first: it is the latest write then, and one rolled
  // forward after this rollback brought back what the rollback undid in the files it rewrote.
  ARROW_ASSIGN_OR_RAISE(auto rolled_forward, RollForwardDecidedWrites(ctx, listed));
  Timeline timeline = listed;
  if (!rolled_forward.empty()) {
    ARROW_ASSIGN_OR_RAISE(timeline, ctx.LoadTimeline());
  }
  auto target = timeline.Find(instant_time);
  auto refuse = [&](const std::string& why) {
    return Status::Invalid("cannot roll back ", instant_time, " of table ", ctx.uri, ": ", why);
  };
  if (!target || !target->is_completed() || !actions::WritesData(target->action)) {
    return refuse("it is not a completed write on the active timeline");
  }
  for (const auto& i : timeline.instants()) {
    if (i.is_completed() && actions::WritesData(i.action) && i.completion_time > target->completion_time) {
      return refuse("write " + i.time + " completed after it; only the latest write can be rolled back");
    }
    if (i.action == actions::kSavepoint && i.time >= instant_time) {
      return refuse("savepoint " + i.time + " keeps it; delete the savepoint first");
    }
    if (!i.is_completed() && (i.action == actions::kCompaction || i.action == actions::kClustering)) {
      return refuse(i.action + " " + i.time + " is pending and reads the files of earlier writes; run it "
                    "first (lakeshore " + (i.action == actions::kCompaction ? "compact" : "cluster") + ")");
    }
  }
  ARROW_RETURN_NOT_OK(RollBackCompleted(ctx, timeline, *target, *guard));
  ARROW_ASSIGN_OR_RAISE(auto after, ctx.LoadTimeline());
  ARROW_RETURN_NOT_OK(guard->Release());
  // The rollback instant is the newest one naming the target.
  std::string rollback_time;
  for (const auto& i : after.instants()) {
    if (i.action == actions::kRollback) rollback_time = i.time;
  }
  return rollback_time;
}

Result<std::string> RestoreToSavepoint(TableContext& ctx, const std::string& savepoint_time) {
  ARROW_ASSIGN_OR_RAISE(auto guard, ctx.Lock().Acquire("restore"));
  ARROW_ASSIGN_OR_RAISE(auto timeline, ctx.LoadTimeline());
  auto refuse = [&](const std::string& why) {
    return Status::Invalid("cannot restore table ", ctx.uri, " to ", savepoint_time, ": ", why);
  };
  // Writes are ordered by completion, as as_of, rollback and savepoints order them: the table as
  // of the savepoint holds the writes completed by the time the savepointed one completed.
  auto completed_at = [&](const std::string& time) {
    for (const auto& i : timeline.instants()) {
      if (i.time == time && actions::WritesData(i.action) && i.is_completed()) return i.completion_time;
    }
    return time;  // not on the active timeline: its requested time bounds it
  };
  // Whether it is a savepoint at all comes first: a time that is none ("", a typo) is not told
  // that some savepoint is later than it.
  const auto& instants = timeline.instants();
  if (std::none_of(instants.begin(), instants.end(), [&](const Instant& i) {
        return i.action == actions::kSavepoint && i.is_completed() && i.time == savepoint_time;
      })) {
    return refuse("it is not a savepoint (lakeshore savepoint list)");
  }
  const std::string savepoint_completed = completed_at(savepoint_time);
  for (const auto& i : instants) {
    if (i.action != actions::kSavepoint || !i.is_completed()) continue;
    if (i.time != savepoint_time && completed_at(i.time) > savepoint_completed) {
      return refuse("savepoint " + i.time + " is later; delete it first");
    }
  }
  // Recovery first: interrupted rollbacks and restores, so the plan sees the table as it is.
  ARROW_RETURN_NOT_OK(RollbackFailedWrites(ctx, timeline, *guard).status());
  ARROW_ASSIGN_OR_RAISE(timeline, ctx.LoadTimeline());
  CommitMetadata plan;
  plan.operation = "restore";
  RestoreRecord& restore = plan.restore.emplace();
  restore.savepoint = savepoint_time;
  // Newest first: pending writes requested after the savepoint, then the writes completed after
  // it, latest completion first.
  std::vector<Instant> undone;
  for (const auto& i : timeline.instants()) {
    if (!actions::WritesData(i.action) || i.time == savepoint_time) continue;
    if (i.is_completed() ? i.completion_time <= savepoint_completed : i.time <= savepoint_time) continue;
    if (!i.is_completed()) {
      ARROW_ASSIGN_OR_RAISE(bool expired, IsHeartbeatExpired(*ctx.storage, *ctx.clock, i.time, ctx.heartbeat));
      if (!expired) return refuse("write " + i.time + " is in progress; restore once it has finished");
    }
    undone.push_back(i);
  }
  std::stable_sort(undone.begin(), undone.end(), [](const Instant& a, const Instant& b) {
    if (a.is_completed() != b.is_completed()) return !a.is_completed();
    return a.is_completed() ? a.completion_time > b.completion_time : a.time > b.time;
  });
  for (const auto& i : undone) restore.targets.push_back(Instant{i.time, i.action, InstantState::kCompleted, ""});
  ARROW_ASSIGN_OR_RAISE(
      auto instant,
      InstantLifecycle::Plan(
          ctx.storage, ctx.timeline_location, actions::kRestore, LatestTime({&timeline}),
          [&](const Instant& i) { return ctx.EncodeInstant(i, InstantState::kRequested, plan); }, *ctx.clock, *guard));
  const std::string restore_time = instant.instant().time;
  Status executed = ExecuteRestore(ctx, instant, plan, *guard);
  if (!executed.ok()) {
    // A restore whose lease ran out is finished by the next writer, from its plan: once it is,
    // the restore asked for has happened (the lease's "nothing was committed" would be false).
    auto after = ctx.LoadTimeline();
    auto done = after.ok() ? after->Find(restore_time) : std::nullopt;
    if (done && done->is_completed()) return restore_time;
    if (done) {
      std::string why = executed.message();
      const std::string untrue = "; nothing was committed";  // the lease's wording, for writes
      if (auto at = why.find(untrue); at != std::string::npos) why.erase(at, untrue.size());
      return executed.WithMessage(why, " (restore ", restore_time,
                                  " is planned: the next writer, or the next restore, finishes it)");
    }
    return executed;
  }
  ARROW_RETURN_NOT_OK(guard->Release());
  return restore_time;
}

Status AbortWrite(TableContext& ctx, InstantLifecycle& write, const std::vector<std::string>& planned_files) {
  ARROW_RETURN_NOT_OK(ctx.storage->DeleteFiles(planned_files).status());
  ARROW_RETURN_NOT_OK(write.Abandon());
  return DeleteMarkers(*ctx.storage, write.instant().time);
}

}  // namespace lakeshore
