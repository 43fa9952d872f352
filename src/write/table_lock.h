// The table lock: a lease lock built on put-if-absent, so the same code serves local folders
// and object stores (S3 conditional PUT).
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "lakeshore/clock.h"
#include "lakeshore/storage/storage.h"

namespace lakeshore {

struct LockSettings {
  int64_t lease_ms = 60000;         ///< a holder that has not released by then loses the lock
  int64_t wait_timeout_ms = 120000; ///< real time to wait before kLockTimeout
};

/// A held lock; releasing happens on Release() or destruction (best effort there). Thread-safe.
class LockGuard {
 public:
  ~LockGuard();
  /// Releases the lock (idempotent); stops a KeepAlive first.
  Status Release();
  /// OK while the lease has more than `margin_ms` left by the lock's clock and no newer lock
  /// object exists (a fencing check that does not depend on clocks: one listing of the lock
  /// folder); an error naming the lock otherwise, or the error of a failed renewal. Called
  /// right before a commit point, so a holder whose lease ran out and was taken over never
  /// commits.
  Status CheckHeld(int64_t margin_ms = 1000) const;
  /// Extends the lease by handing the lock to the next lock object, `<seq+1>`, taken with
  /// put-if-absent like any acquisition (then `<seq>.released`): a contender that judged the
  /// lease expired races for the same object, so exactly one of them holds the lock after.
  /// kLockTimeout when the lock was taken over (this guard no longer holds it).
  Status Renew();
  /// Keeps the lock for as long as this guard holds it: a background thread renews it every
  /// third of the lease (real time), so work under the lock may outlast one lease (an index
  /// built over a whole table, a metadata table update of a large write). A crashed process
  /// stops renewing, and its lease runs out as usual. A renewal that fails ends the thread;
  /// CheckHeld reports it.
  void KeepAlive();
  const std::string& owner() const { return owner_; }

 private:
  friend class TableLock;
  LockGuard(std::shared_ptr<Storage> storage, std::shared_ptr<Clock> clock, std::string path,
            std::string owner, int64_t acquired_ms, int64_t lease_ms);
  Status RenewLocked();
  void StopKeepAlive();
  std::shared_ptr<Storage> storage_;
  std::shared_ptr<Clock> clock_;
  mutable std::mutex mu_;  // guards everything below
  std::string path_;
  std::string owner_;
  int64_t acquired_ms_;
  int64_t lease_ms_;
  bool released_ = false;
  Status lost_;  ///< a failed renewal
  std::condition_variable wake_;
  bool stop_keep_alive_ = false;
  std::thread keep_alive_;
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
