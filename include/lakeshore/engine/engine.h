// The engine seam: every fan-out (writing many file groups, reading many files, listing many
// folders, deleting many batches) runs as a parallel map of small, independent tasks planned on
// the driver. The default engine is a thread pool; a distributed engine plugs in behind the same
// interface.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "lakeshore/status.h"

namespace lakeshore {

/// Runs independent tasks in parallel.
///
/// Contract: ParallelFor calls `task(i)` exactly once for each i in [0, n) unless an earlier
/// task failed (then tasks not yet started are skipped), waits for all started tasks, and
/// returns the first error by index order among those that failed. Tasks must not depend on
/// each other's order. A task may itself call ParallelFor on the same engine (nested calls run
/// inline, so they never deadlock).
class Engine {
 public:
  virtual ~Engine() = default;

  /// Number of tasks that can run at once.
  virtual int parallelism() const = 0;

  /// True when tasks must not rely on the driver's memory (a distributed engine, or a thread
  /// pool told to behave like one): actions then hand over each task in its serialized form
  /// (write/file_group_task.h) and read back serialized results.
  virtual bool SerializesTasks() const { return false; }

  /// Runs task(0..n-1) as above.
  virtual Status ParallelFor(int64_t n, const std::function<Status(int64_t)>& task) = 0;

  /// Maps fn over [0, n), collecting results in index order.
  template <typename T>
  Result<std::vector<T>> Map(int64_t n, const std::function<Result<T>(int64_t)>& fn) {
    std::vector<T> out(static_cast<size_t>(n));
    ARROW_RETURN_NOT_OK(ParallelFor(n, [&](int64_t i) -> Status {
      ARROW_ASSIGN_OR_RAISE(out[static_cast<size_t>(i)], fn(i));
      return Status::OK();
    }));
    return out;
  }

  /// A thread-pool engine with `threads` workers (0: the machine's core count, at least 4,
  /// since most table tasks wait on storage). With `serialize_tasks`, every task an action
  /// hands it crosses as bytes, as it would to a remote worker: a check that the tasks are
  /// self-contained (SerializesTasks).
  static Result<std::shared_ptr<Engine>> MakeThreadPool(int threads = 0, bool serialize_tasks = false);

  /// The process-wide default thread-pool engine.
  static std::shared_ptr<Engine> Default();
  /// The process-wide thread-pool engine for fan-outs whose tasks wait on storage, not on a
  /// core (deletes: a local file system's discard, an object store's round trip): 16 workers
  /// on any machine, so that many requests are in flight while few cores compute.
  static std::shared_ptr<Engine> DefaultForStorageWaits();
};

}  // namespace lakeshore
