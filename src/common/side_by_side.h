// Internal: a few tasks run at the same time on threads of their own, for work that is already
// inside an engine task (where a nested engine job would run inline, one task after another).
#pragma once

#include <cstddef>
#include <functional>

namespace lakeshore {

/// Runs task(0) … task(n-1) at the same time: task 0 on the calling thread, each other one on a
/// thread started for it, and returns when all have finished. Where a thread cannot be started,
/// the tasks it would have run go on this thread after task 0: the thread library's errors never
/// escape. Tasks report through what they capture and must not throw. n = 0 runs nothing.
/// Cost: one thread start per task after the first.
void RunSideBySide(size_t n, const std::function<void(size_t)>& task);

}  // namespace lakeshore
