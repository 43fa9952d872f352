// The one lifecycle every action's instant follows on a timeline, Hudi's:
//
//   plan      under the table lock: the instant time is chosen after every time already on the
//             timelines the action must follow, and the requested file is created with the
//             plan (put-if-absent: a taken time is kCommitConflict, never an overwrite);
//   inflight  the inflight file is created (the action has started; recovery now knows it
//             may have left files);
//   execute   the action's own work, with or without the lock;
//   complete  under the table lock, re-checked just before: the completed file, timed after
//             everything on those timelines, is created. That file appearing is the commit point.
//   abandon   a pending instant that will never complete (an abort, or a rollback of it) has
//             its inflight file, then its requested file removed, in Hudi's order.
//
// Recovery of a failed action takes the same path from the state it is found in (Resume).
// The write client, rollback and vacuum are each these steps with their own plan, work and
// checks (write/write_client.cc, write/rollback.cc, services/vacuum/hudi_vacuum.cc,
// services/compaction/compactor.cc); further services (clean, clustering) plug in the same way.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "lakeshore/clock.h"
#include "lakeshore/storage/storage.h"
#include "timeline/timeline.h"
#include "write/table_lock.h"

namespace lakeshore {

/// One instant of an action, from its plan to its completion, on the timeline at `location`.
class InstantLifecycle {
 public:
  /// The plan step. Under `guard` (checked held): a new instant of `action`, timed after `after`
  /// (the latest time on every timeline the instant must follow; see LatestTime), whose
  /// requested file holds `requested_bytes(instant)`. A far-future `after` → kCorruptMetadata
  /// (instant times stay within the format); a time taken meanwhile → kCommitConflict.
  static Result<InstantLifecycle> Plan(std::shared_ptr<Storage> storage, TimelineLocation location,
                                       const std::string& action, const std::string& after,
                                       const std::function<Result<std::string>(const Instant&)>& requested_bytes,
                                       const Clock& clock, const LockGuard& guard);

  /// The plan step of an action Hudi starts inflight, at a time the action names (a savepoint
  /// takes its commit's time): under `guard` (checked held), the inflight file with
  /// `inflight_bytes`. An inflight file already there → kCommitConflict.
  static Result<InstantLifecycle> StartAt(std::shared_ptr<Storage> storage, TimelineLocation location, Instant instant,
                                          const std::string& inflight_bytes, const LockGuard& guard);

  /// An instant found pending on the timeline (recovery): the steps continue from its state.
  static InstantLifecycle Resume(std::shared_ptr<Storage> storage, TimelineLocation location, Instant pending);

  /// The instant, in the furthest state this lifecycle has taken it to.
  const Instant& instant() const { return instant_; }
  const TimelineLocation& location() const { return location_; }

  /// The inflight step: creates the inflight file with `inflight_bytes` (nothing when the
  /// instant is already inflight or completed).
  Status StartInflight(const std::string& inflight_bytes);

  /// The complete step: under `guard` (checked held right before), the completed file with
  /// `completed_bytes`, its completion time after `after` (LatestTime of the timelines) and
  /// the clock. Returns the completion time.
  Result<std::string> Complete(const std::string& after, const std::string& completed_bytes, const Clock& clock,
                               const LockGuard& guard);
  /// The complete step with a completion time chosen before (a commit decision's, which a
  /// roll forward reuses). An instant this lifecycle completed already, or a completed file
  /// already there at that time → kCommitConflict. Completions at two different times are
  /// excluded by the table lock (or, for writes, by the commit decision), not by storage.
  Status CompleteAt(const std::string& completion_time, const std::string& completed_bytes);

  /// The abandon step: removes the pending files (inflight, then requested; missing is fine).
  Status Abandon();

 private:
  InstantLifecycle(std::shared_ptr<Storage> storage, TimelineLocation location, Instant instant)
      : storage_(std::move(storage)), location_(std::move(location)), instant_(std::move(instant)) {}

  std::shared_ptr<Storage> storage_;
  TimelineLocation location_;
  Instant instant_;
};

/// The latest instant or completion time on `timelines` ("" when all are empty): what a new
/// instant's times must follow.
std::string LatestTime(const std::vector<const Timeline*>& timelines);

}  // namespace lakeshore
