#include "common/side_by_side.h"

#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace lakeshore {
namespace {

TEST(SideBySide, RunsEveryTaskOnceTheFirstOnTheCaller) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{7}}) {
    std::vector<std::atomic<int>> runs(n);
    std::vector<std::thread::id> on(n);
    RunSideBySide(n, [&](size_t i) {
      ++runs[i];
      on[i] = std::this_thread::get_id();
    });
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(runs[i].load(), 1) << "task " << i << " of " << n;
    if (n > 0) EXPECT_EQ(on[0], std::this_thread::get_id());
    for (size_t i = 1; i < n; ++i) EXPECT_NE(on[i], std::this_thread::get_id()) << "task " << i;
  }
}

TEST(SideBySide, TasksRunAtTheSameTime) {
  // Each task waits until all have started: run one after another, this would never return.
  constexpr size_t kTasks = 4;
  std::atomic<size_t> started{0};
  RunSideBySide(kTasks, [&](size_t) {
    ++started;
    while (started.load() < kTasks) std::this_thread::yield();
  });
  EXPECT_EQ(started.load(), kTasks);
}

}  // namespace
}  // namespace lakeshore
