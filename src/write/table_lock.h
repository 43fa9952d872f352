// The table lock: a lease lock built on put-if-absent, so the same code serves local folders
// and object stores (S3 conditional PUT).
#pragma once

#include <memory>
#include <string>

#include "lakeshore/clock.h"
#include "lakeshore/storage/storage.h"

namespace lakeshore {

struct LockSettings {
  int64_t lease_ms = 60000;         ///< a holder that has not released by then loses the lock
  int64_t wait_timeout_ms = 120000; ///< real time to wait before kLockTimeout
};

/// A held lock; releasing happens on Release() or destruction (best effort there).
class LockGuard {
 public:
  ~LockGuard();
  /// Releases the lock (idempotent).
  Status Release();
  /// OK while the lease has more than `margin_ms` left by the lock's clock and no newer lock
  /// object exists (a fencing check that does not depend on clocks: one listing of the lock
  /// folder); an error naming the lock otherwise. Called right before a commit point, so a
  /// holder whose lease ran out and was taken over never commits.
  Status CheckHeld(int64_t margin_ms = 1000) const;
  const std::string& owner() const { return owner_; }

 private:
  friend class TableLock;
  LockGuard(std::shared_ptr<Storage> storage, std::shared_ptr<Clock> clock, std::string path,
            std::string owner, int64_t acquired_ms, int64_t lease_ms);
  std::shared_ptr<Storage> storage_;
  std::shared_ptr<Clock> clock_;
  std::string path_;
  std::string owner_;
  int64_t acquired_ms_;
  int64_t lease_ms_;
  bool released_ = false;
};

/// The lock protocol. Lock objects are `.hoodie/.aux/lakeshore/lock/<seq>` (20-digit sequence) holding
/// the owner and lease; `<seq>.released` marks a release. To acquire: find the highest seq n;
/// if n is released or its lease has expired (or there is none), create n+1 with put-if-absent
/// — exactly one contender wins. Nothing is ever overwritten or deleted to take the lock, so
/// the protocol needs only put-if-absent. Old lock objects are pruned after a release.
class TableLock {
 public:
  TableLock(std::shared_ptr<Storage> storage, std::shared_ptr<Clock> clock, LockSettings settings);

  /// Waits for the lock up to settings.wait_timeout_ms (real time), then kLockTimeout.
  Result<std::unique_ptr<LockGuard>> Acquire(const std::string& purpose);

 private:
  std::shared_ptr<Storage> storage_;
  std::shared_ptr<Clock> clock_;
  LockSettings settings_;
};

}  // namespace lakeshore
