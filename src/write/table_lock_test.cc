#include "write/table_lock.h"

#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "testing/pass_through_storage.h"
#include "testing/status_test_util.h"
#include "write/heartbeat.h"

namespace lakeshore {
namespace {

constexpr int64_t kStartMs = 1767225600000;

/// A storage whose file `vanishing` is deleted right after its existence is asked: its writer
/// stopping the heartbeat between the check and the read.
class VanishingAfterExists : public testing::PassThroughStorage {
 public:
  VanishingAfterExists(std::shared_ptr<Storage> inner, std::string vanishing)
      : PassThroughStorage(std::move(inner)), vanishing_(std::move(vanishing)) {}
  Result<std::optional<FileEntry>> GetFileInfo(std::string_view p) override {
    auto info = inner_->GetFileInfo(p);
    if (p == vanishing_) EXPECT_TRUE(inner_->DeleteFiles({vanishing_}).ok());
    return info;
  }

 private:
  std::string vanishing_;
};

TEST(Heartbeat, OneThatVanishesWhileReadIsExpiredNotAnError) {
  // Found by outside testing: a writer scanning pending instants got a bare "No such file"
  // StorageError when the loser of a commit race stopped its heartbeat between the two calls.
  auto inner = *Storage::Open("mem://heartbeat_vanishing");
  const std::string instant = "20260101000000000";
  auto clock = std::make_shared<ManualClock>(kStartMs);
  ASSERT_OK(inner->WriteString(HeartbeatPath(instant), std::to_string(kStartMs)));
  VanishingAfterExists storage(inner, HeartbeatPath(instant));
  ASSERT_OK_AND_ASSIGN(bool expired, IsHeartbeatExpired(storage, *clock, instant, HeartbeatSettings{}));
  EXPECT_TRUE(expired);
  ASSERT_OK(inner->WriteString(HeartbeatPath(instant), std::to_string(kStartMs)));  // beating, and there
  ASSERT_OK_AND_ASSIGN(expired, IsHeartbeatExpired(*inner, *clock, instant, HeartbeatSettings{}));
  EXPECT_FALSE(expired);
}

TEST(TableLock, ExcludesConcurrentHolders) {
  auto storage = *Storage::Open("mem://table_lock_exclusion");
  auto clock = std::make_shared<ManualClock>(kStartMs);
  std::atomic<int> inside{0};
  std::atomic<int> max_inside{0};
  std::atomic<int> acquisitions{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      TableLock lock(storage, clock, LockSettings{60000, 30000});
      for (int i = 0; i < 10; ++i) {
        auto guard = lock.Acquire("test");
        ASSERT_TRUE(guard.ok()) << guard.status();
        int now = ++inside;
        max_inside = std::max(max_inside.load(), now);
        ASSERT_OK((*guard)->CheckHeld());
        --inside;
        ASSERT_OK((*guard)->Release());
        ++acquisitions;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(max_inside.load(), 1);
  EXPECT_EQ(acquisitions.load(), 40);
  // Old lock objects are pruned: the folder stays small however often the lock is taken.
  EXPECT_LE(storage->List(".hoodie/.aux/lakeshore/lock", false)->size(), 40u);
}

TEST(TableLock, ExpiredLeaseIsTakenOverAndTheOldHolderIsFenced) {
  auto storage = *Storage::Open("mem://table_lock_takeover");
  auto slow_clock = std::make_shared<ManualClock>(kStartMs);  // the stalled holder's view
  auto fast_clock = std::make_shared<ManualClock>(kStartMs);
  TableLock slow(storage, slow_clock, LockSettings{1000, 5000});
  TableLock fast(storage, fast_clock, LockSettings{1000, 5000});
  ASSERT_OK_AND_ASSIGN(auto stalled, slow.Acquire("stalled"));
  fast_clock->Advance(5000);  // the other process judges the lease expired
  ASSERT_OK_AND_ASSIGN(auto taker, fast.Acquire("taker"));
  // The stalled holder's own clock says its lease is fine, but it has been fenced off.
  auto st = stalled->CheckHeld(0);
  EXPECT_TRUE(IsError(st, ErrorKind::kLockTimeout)) << st;
  ASSERT_OK(taker->CheckHeld(0));
}

TEST(TableLock, WaitsThenTimesOutWhileHeld) {
  auto storage = *Storage::Open("mem://table_lock_timeout");
  auto clock = std::make_shared<ManualClock>(kStartMs);
  TableLock lock(storage, clock, LockSettings{60000, 200});
  ASSERT_OK_AND_ASSIGN(auto held, lock.Acquire("holder"));
  auto second = lock.Acquire("waiter");
  EXPECT_TRUE(IsError(second.status(), ErrorKind::kLockTimeout)) << second.status();
  ASSERT_OK(held->Release());
  ASSERT_OK_AND_ASSIGN(auto after, lock.Acquire("waiter"));
  ASSERT_OK(after->CheckHeld(0));
}

/// A storage whose listings of the lock folder leave every entry out: a stale listing that
/// never catches up.
class StaleLockListing : public testing::PassThroughStorage {
 public:
  using PassThroughStorage::PassThroughStorage;
  Result<std::vector<FileEntry>> List(std::string_view prefix, bool recursive) override {
    if (prefix.find("lock") != std::string_view::npos) return std::vector<FileEntry>{};
    return inner_->List(prefix, recursive);
  }
};

TEST(TableLock, LostPutsAndStaleListingsStillTimeOut) {
  // Each put-if-absent lost (the object is there, the listing does not show it) went back to
  // the top at once, past the deadline check: the wait never ended.
  auto inner = *Storage::Open("mem://table_lock_stale");
  auto clock = std::make_shared<ManualClock>(kStartMs);
  TableLock first(inner, clock, LockSettings{60000, 200});
  ASSERT_OK_AND_ASSIGN(auto held, first.Acquire("holder"));
  TableLock second(std::make_shared<StaleLockListing>(inner), clock, LockSettings{60000, 200});
  const auto start = std::chrono::steady_clock::now();
  auto waited = second.Acquire("waiter");
  EXPECT_TRUE(IsError(waited.status(), ErrorKind::kLockTimeout)) << waited.status();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_OK(held->Release());
}

TEST(TableLock, RenewalHandsTheLockToTheNextObject) {
  auto storage = *Storage::Open("mem://table_lock_renewal");
  auto clock = std::make_shared<ManualClock>(kStartMs);
  TableLock lock(storage, clock, LockSettings{1000, 0});
  ASSERT_OK_AND_ASSIGN(auto held, lock.Acquire("long work"));
  for (int i = 0; i < 5; ++i) {
    clock->Advance(900);  // within the lease each time, past it in total
    ASSERT_OK(held->Renew());
    ASSERT_OK(held->CheckHeld(0));
    auto other = lock.Acquire("contender");
    EXPECT_TRUE(IsError(other.status(), ErrorKind::kLockTimeout)) << other.status();
  }
  ASSERT_OK(held->Release());
  ASSERT_OK_AND_ASSIGN(auto after, lock.Acquire("contender"));
  ASSERT_OK(after->CheckHeld(0));
}

TEST(TableLock, ARenewalAfterATakeoverFailsAndFencesTheHolder) {
  auto storage = *Storage::Open("mem://table_lock_renewal_takeover");
  auto slow_clock = std::make_shared<ManualClock>(kStartMs);
  auto fast_clock = std::make_shared<ManualClock>(kStartMs);
  TableLock slow(storage, slow_clock, LockSettings{1000, 5000});
  TableLock fast(storage, fast_clock, LockSettings{1000, 5000});
  ASSERT_OK_AND_ASSIGN(auto stalled, slow.Acquire("stalled"));
  fast_clock->Advance(5000);
  ASSERT_OK_AND_ASSIGN(auto taker, fast.Acquire("taker"));
  auto st = stalled->Renew();
  EXPECT_TRUE(IsError(st, ErrorKind::kLockTimeout)) << st;
  st = stalled->CheckHeld(0);
  EXPECT_TRUE(IsError(st, ErrorKind::kLockTimeout)) << st;
  ASSERT_OK(taker->CheckHeld(0));  // the renewal took nothing from the new holder
}

TEST(TableLock, KeepAliveOutlastsTheLease) {
  // Real time: a lease of 600 ms, held for two leases by the background renewal.
  auto storage = *Storage::Open("mem://table_lock_keep_alive");
  TableLock lock(storage, Clock::System(), LockSettings{600, 0});
  ASSERT_OK_AND_ASSIGN(auto held, lock.Acquire("index build"));
  held->KeepAlive();
  for (int i = 0; i < 6; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    auto other = lock.Acquire("contender");
    EXPECT_TRUE(IsError(other.status(), ErrorKind::kLockTimeout)) << other.status();
  }
  ASSERT_OK(held->CheckHeld(0));
  ASSERT_OK(held->Release());
  ASSERT_OK_AND_ASSIGN(auto after, lock.Acquire("contender"));
  ASSERT_OK(after->CheckHeld(0));
}

}  // namespace
}  // namespace lakeshore
