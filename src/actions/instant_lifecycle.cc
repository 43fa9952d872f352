#include "actions/instant_lifecycle.h"

#include <algorithm>

#include "timeline/instant_time.h"

namespace lakeshore {

std::string LatestTime(const std::vector<const Timeline*>& timelines) {
  std::string latest;
  for (const Timeline* t : timelines) latest = std::max(latest, t->LastTime());
  return latest;
}

Result<InstantLifecycle> InstantLifecycle::Plan(std::shared_ptr<Storage> storage, TimelineLocation location,
                                                const std::string& action, const std::string& after,
                                                const std::function<Result<std::string>(const Instant&)>& requested_bytes,
                                                const Clock& clock, const LockGuard& guard) {
  ARROW_ASSIGN_OR_RAISE(std::string time, NextInstantTime(clock.NowMs(), after));
  InstantLifecycle lifecycle(std::move(storage), std::move(location), Instant{time, action, InstantState::kRequested, ""});
  ARROW_ASSIGN_OR_RAISE(std::string bytes, requested_bytes(lifecycle.instant_));
  ARROW_RETURN_NOT_OK(guard.CheckHeld());
  ARROW_RETURN_NOT_OK(timeline_ops::CreateRequested(*lifecycle.storage_, lifecycle.location_, lifecycle.instant_, bytes));
  return lifecycle;
}

Result<InstantLifecycle> InstantLifecycle::StartAt(std::shared_ptr<Storage> storage, TimelineLocation location,
                                                   Instant instant, const std::string& inflight_bytes,
                                                   const LockGuard& guard) {
  instant.state = InstantState::kRequested;
  instant.completion_time.clear();
  InstantLifecycle lifecycle(std::move(storage), std::move(location), std::move(instant));
  ARROW_RETURN_NOT_OK(guard.CheckHeld());
  ARROW_RETURN_NOT_OK(lifecycle.StartInflight(inflight_bytes));
  return lifecycle;
}

InstantLifecycle InstantLifecycle::Resume(std::shared_ptr<Storage> storage, TimelineLocation location,
                                          Instant pending) {
  return InstantLifecycle(std::move(storage), std::move(location), std::move(pending));
}

Status InstantLifecycle::StartInflight(const std::string& inflight_bytes) {
  if (instant_.state != InstantState::kRequested) return Status::OK();
  ARROW_RETURN_NOT_OK(timeline_ops::TransitionToInflight(*storage_, location_, instant_, inflight_bytes));
  instant_.state = InstantState::kInflight;
  return Status::OK();
}

Result<std::string> InstantLifecycle::Complete(const std::string& after, const std::string& completed_bytes,
                                               const Clock& clock, const LockGuard& guard) {
  ARROW_ASSIGN_OR_RAISE(std::string completion, NextInstantTime(clock.NowMs(), std::max(after, instant_.time)));
  ARROW_RETURN_NOT_OK(guard.CheckHeld());
  ARROW_RETURN_NOT_OK(CompleteAt(completion, completed_bytes));
  return completion;
}

Status InstantLifecycle::CompleteAt(const std::string& completion_time, const std::string& completed_bytes) {
  // In layout 2 a completed file's name carries its completion time, so a second completion at
  // another time would not collide on storage: refuse it here.
  if (instant_.is_completed()) {
    return CommitConflict("instant " + instant_.time + " is already completed (at " + instant_.completion_time + ")");
  }
  ARROW_ASSIGN_OR_RAISE(Instant done,
                        timeline_ops::Complete(*storage_, location_, instant_, completion_time, completed_bytes));
  instant_ = std::move(done);
  return Status::OK();
}

Status InstantLifecycle::Abandon() { return timeline_ops::DeletePendingFiles(*storage_, location_, instant_); }

}  // namespace lakeshore
