#include "actions/instant_lifecycle.h"

#include <gtest/gtest.h>

#include "table/layout.h"
#include "testing/status_test_util.h"
#include "timeline/instant_time.h"

namespace lakeshore {
namespace {

constexpr int64_t kStartMs = 1767225600000;

struct Fixture {
  explicit Fixture(const std::string& name)
      : storage(*Storage::Open("mem://" + name)), clock(std::make_shared<ManualClock>(kStartMs)),
        lock(storage, clock, LockSettings{1000, 5000}) {}
  Result<Timeline> Load() const { return Timeline::Load(*storage, at); }
  std::shared_ptr<Storage> storage;
  std::shared_ptr<ManualClock> clock;
  TableLock lock;
  TimelineLocation at{".hoodie/timeline", TimelineLayout::kV2};
};

auto Bytes(std::string text) {
  return [text](const Instant&) -> Result<std::string> { return text; };
}

TEST(InstantLifecycle, GoesRequestedInflightCompletedWithTimesAfterEverything) {
  Fixture f("lifecycle_steps");
  ASSERT_OK_AND_ASSIGN(auto guard, f.lock.Acquire("test"));
  // A time ahead of the clock on the timeline: the new instant still comes after it.
  const std::string ahead = FormatInstantTime(kStartMs + 60000);
  ASSERT_OK_AND_ASSIGN(auto life, InstantLifecycle::Plan(f.storage, f.at, actions::kCommit, ahead, Bytes("plan"),
                                                         *f.clock, *guard));
  EXPECT_GT(life.instant().time, ahead);
  EXPECT_EQ(life.instant().state, InstantState::kRequested);
  ASSERT_OK_AND_ASSIGN(auto timeline, f.Load());
  ASSERT_EQ(timeline.Pending().size(), 1u);
  EXPECT_EQ(*timeline_ops::ReadContent(*f.storage, f.at, timeline.Pending()[0]), "plan");

  ASSERT_OK(life.StartInflight("inflight"));
  ASSERT_OK(life.StartInflight("again"));  // already inflight: nothing more
  ASSERT_OK_AND_ASSIGN(timeline, f.Load());
  EXPECT_EQ(timeline.Pending()[0].state, InstantState::kInflight);

  ASSERT_OK_AND_ASSIGN(auto completion, life.Complete(LatestTime({&timeline}), "done", *f.clock, *guard));
  EXPECT_GT(completion, life.instant().time);
  EXPECT_TRUE(life.instant().is_completed());
  ASSERT_OK_AND_ASSIGN(timeline, f.Load());
  ASSERT_EQ(timeline.CompletedByCompletionTime().size(), 1u);
  EXPECT_EQ(timeline.CompletedByCompletionTime()[0].completion_time, completion);
  EXPECT_GT(completion, timeline.CompletedByCompletionTime()[0].time);
  EXPECT_EQ(*timeline_ops::ReadContent(*f.storage, f.at, timeline.CompletedByCompletionTime()[0]), "done");
}

TEST(InstantLifecycle, NothingIsCreatedWithoutTheLockOrPastTheFormat) {
  Fixture f("lifecycle_fenced");
  ASSERT_OK_AND_ASSIGN(auto guard, f.lock.Acquire("slow"));
  // A far-future time on the timeline: a clear error, and no instant.
  auto far = InstantLifecycle::Plan(f.storage, f.at, actions::kCommit, "99991231235959999", Bytes(""), *f.clock, *guard);
  EXPECT_TRUE(IsError(far.status(), ErrorKind::kCorruptMetadata)) << far.status();
  ASSERT_OK_AND_ASSIGN(auto life, InstantLifecycle::Plan(f.storage, f.at, actions::kCommit, "", Bytes(""), *f.clock, *guard));
  ASSERT_OK(life.StartInflight(""));
  // The lease runs out and another process takes the lock: the old holder cannot complete.
  auto other_clock = std::make_shared<ManualClock>(kStartMs + 10000);
  TableLock other(f.storage, other_clock, LockSettings{1000, 5000});
  ASSERT_OK_AND_ASSIGN(auto taker, other.Acquire("taker"));
  auto done = life.Complete("", "done", *f.clock, *guard);
  EXPECT_TRUE(IsError(done.status(), ErrorKind::kLockTimeout)) << done.status();
  ASSERT_OK_AND_ASSIGN(auto timeline, f.Load());
  EXPECT_TRUE(timeline.CompletedByCompletionTime().empty());
  // Nor plan a new instant.
  auto late = InstantLifecycle::Plan(f.storage, f.at, actions::kCommit, "", Bytes(""), *f.clock, *guard);
  EXPECT_FALSE(late.ok());
  ASSERT_OK_AND_ASSIGN(timeline, f.Load());
  EXPECT_EQ(timeline.Pending().size(), 1u);
}

TEST(InstantLifecycle, RecoveryResumesFromTheStateFoundAndAbandonRemovesPendingFiles) {
  Fixture f("lifecycle_resume");
  ASSERT_OK_AND_ASSIGN(auto guard, f.lock.Acquire("test"));
  ASSERT_OK_AND_ASSIGN(auto first, InstantLifecycle::Plan(f.storage, f.at, actions::kRollback, "", Bytes("p1"), *f.clock, *guard));
  ASSERT_OK_AND_ASSIGN(auto second, InstantLifecycle::Plan(f.storage, f.at, actions::kCommit, first.instant().time,
                                                           Bytes("p2"), *f.clock, *guard));
  ASSERT_OK(second.StartInflight("i2"));
  // A crash; recovery finds both pending and continues each from where it stopped.
  ASSERT_OK_AND_ASSIGN(auto timeline, f.Load());
  ASSERT_EQ(timeline.Pending().size(), 2u);
  auto resumed_first = InstantLifecycle::Resume(f.storage, f.at, timeline.Pending()[0]);
  ASSERT_OK(resumed_first.StartInflight(""));
  ASSERT_OK(resumed_first.Complete(LatestTime({&timeline}), "done", *f.clock, *guard).status());
  auto resumed_second = InstantLifecycle::Resume(f.storage, f.at, timeline.Pending()[1]);
  EXPECT_EQ(resumed_second.instant().state, InstantState::kInflight);
  ASSERT_OK(resumed_second.Abandon());
  ASSERT_OK(resumed_second.Abandon());  // idempotent
  ASSERT_OK_AND_ASSIGN(timeline, f.Load());
  EXPECT_TRUE(timeline.Pending().empty());
  ASSERT_EQ(timeline.CompletedByCompletionTime().size(), 1u);
  EXPECT_EQ(timeline.CompletedByCompletionTime()[0].action, actions::kRollback);
  // A completion already there is a conflict, never an overwrite.
  auto again = resumed_first.CompleteAt("20991231235959999", "other");
  EXPECT_TRUE(IsError(again, ErrorKind::kCommitConflict)) << again;
}

}  // namespace
}  // namespace lakeshore
