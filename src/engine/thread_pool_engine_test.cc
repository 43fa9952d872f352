#include <atomic>

#include <gtest/gtest.h>

#include "lakeshore/engine/engine.h"

#include "engine/callback_scope.h"

namespace lakeshore {

TEST(ThreadPoolEngine, MapsInIndexOrder) {
  auto engine = *Engine::MakeThreadPool(4);
  auto out = engine->Map<int64_t>(1000, [](int64_t i) -> Result<int64_t> { return i * i; });
  ASSERT_TRUE(out.ok());
  for (int64_t i = 0; i < 1000; ++i) EXPECT_EQ((*out)[i], i * i);
}

TEST(ThreadPoolEngine, ReturnsFirstErrorAndRunsEachTaskAtMostOnce) {
  auto engine = *Engine::MakeThreadPool(3);
  std::atomic<int> calls{0};
  Status st = engine->ParallelFor(100, [&](int64_t i) -> Status {
    calls++;
    if (i == 7) return Status::IOError("task 7 failed");
    return Status::OK();
  });
  EXPECT_TRUE(st.IsIOError());
  EXPECT_LE(calls.load(), 100);
}

TEST(ThreadPoolEngine, NestedCallsDoNotDeadlock) {
  auto engine = *Engine::MakeThreadPool(2);
  std::atomic<int64_t> sum{0};
  ASSERT_TRUE(engine->ParallelFor(8, [&](int64_t) {
                      return engine->ParallelFor(8, [&](int64_t j) {
                        sum += j;
                        return Status::OK();
                      });
                    }).ok());
  EXPECT_EQ(sum.load(), 8 * 28);
}

// A task runs inside the callbacks its starter runs inside (found by outside testing: table
// A's callback wrote table B, whose callback, on an engine worker, wrote A and waited for ever
// for A's lock); once the tasks are done, the workers are inside nothing again.
TEST(ThreadPoolEngine, TasksRunInsideTheCallbacksTheirStarterRunsInside) {
  auto engine = *Engine::MakeThreadPool(3);
  const int a = 0, b = 0;
  std::atomic<int> inside{0}, outside{0};
  {
    CallbackScope in_a(&a);
    ASSERT_TRUE(engine->ParallelFor(64, [&](int64_t) {
                          if (CallbackScope::Inside(&a) && !CallbackScope::Inside(&b)) ++inside;
                          return Status::OK();
                        }).ok());
  }
  EXPECT_EQ(inside.load(), 64);
  EXPECT_FALSE(CallbackScope::Inside(&a));
  ASSERT_TRUE(engine->ParallelFor(64, [&](int64_t) {
                        if (CallbackScope::Current().empty()) ++outside;
                        return Status::OK();
                      }).ok());
  EXPECT_EQ(outside.load(), 64);
}

}  // namespace lakeshore
