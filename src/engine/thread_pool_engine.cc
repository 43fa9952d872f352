#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "lakeshore/engine/engine.h"

#include "engine/callback_scope.h"

namespace lakeshore {
namespace {

thread_local bool tls_inside_engine_task = false;

/// A fixed set of workers pulling indices from a shared counter per ParallelFor call. The
/// driver thread works too, so a pool of N runs N+1 tasks at a time at most briefly.
class ThreadPoolEngine : public Engine {
 public:
  ThreadPoolEngine(int threads, bool serialize_tasks) : threads_(threads), serialize_tasks_(serialize_tasks) {
    for (int i = 0; i < threads_ - 1; ++i) workers_.emplace_back([this] { WorkerLoop(); });
  }
  ~ThreadPoolEngine() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }

  int parallelism() const override { return threads_; }
  bool SerializesTasks() const override { return serialize_tasks_; }

  Status ParallelFor(int64_t n, const std::function<Status(int64_t)>& task) override {
    if (n <= 0) return Status::OK();
    if (n == 1 || threads_ <= 1 || tls_inside_engine_task) return RunInline(n, task);
    auto job = std::make_shared<Job>(n, &task);
    job->callback_owners = CallbackScope::Current();  // the tasks run inside what the caller runs inside
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.push_back(job);
    }
    cv_.notify_all();
    RunJob(*job);  // the caller helps
    {
      std::unique_lock<std::mutex> lock(job->mu);
      job->done_cv.wait(lock, [&] { return job->finished == job->n_started_or_skipped_total(); });
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.erase(std::remove(jobs_.begin(), jobs_.end(), job), jobs_.end());
    }
    return job->FirstError();
  }

 private:
  struct Job {
    Job(int64_t n, const std::function<Status(int64_t)>* task)
        : n(n), task(task), statuses(static_cast<size_t>(n)) {}
    int64_t n;
    const std::function<Status(int64_t)>* task;
    CallbackScope::Owners callback_owners;
    std::atomic<int64_t> next{0};
    std::atomic<bool> failed{false};
    std::vector<Status> statuses;
    std::mutex mu;
    std::condition_variable done_cv;
    int64_t finished = 0;  // guarded by mu
    int64_t n_started_or_skipped_total() const { return n; }
    Status FirstError() const {
      for (const auto& st : statuses)
        if (!st.ok()) return st;
      return Status::OK();
    }
  };

  static Status RunInline(int64_t n, const std::function<Status(int64_t)>& task) {
    for (int64_t i = 0; i < n; ++i) ARROW_RETURN_NOT_OK(RunTask(task, i));
    return Status::OK();
  }

  // An exception escaping a task would end the process on a worker thread; it becomes a Status.
  static Status RunTask(const std::function<Status(int64_t)>& task, int64_t i) {
    try {
      return task(i);
    } catch (const std::exception& e) {
      return Status::UnknownError("engine task ", i, " threw: ", e.what());
    } catch (...) {
      return Status::UnknownError("engine task ", i, " threw a non-standard exception");
    }
  }

  static void RunJob(Job& job) {
    bool was_inside = tls_inside_engine_task;
    tls_inside_engine_task = true;
    CallbackScope::Inherit inherited(job.callback_owners);
    for (;;) {
      int64_t i = job.next.fetch_add(1);
      if (i >= job.n) break;
      if (!job.failed.load()) {
        Status st = RunTask(*job.task, i);
        if (!st.ok()) {
          job.statuses[static_cast<size_t>(i)] = std::move(st);
          job.failed.store(true);
        }
      }
      std::lock_guard<std::mutex> lock(job.mu);
      if (++job.finished == job.n) job.done_cv.notify_all();
    }
    tls_inside_engine_task = was_inside;
  }

  void WorkerLoop() {
    for (;;) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] {
          if (stop_) return true;
          for (auto& j : jobs_)
            if (j->next.load() < j->n) return true;
          return false;
        });
        if (stop_) return;
        for (auto& j : jobs_)
          if (j->next.load() < j->n) {
            job = j;
            break;
          }
      }
      if (job) RunJob(*job);
    }
  }

  int threads_;
  bool serialize_tasks_;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Job>> jobs_;
  bool stop_ = false;
};

}  // namespace

namespace {
/// Threads of a pool asked for 0: the cores, and at least 4 (tasks wait on storage too).
int DefaultThreads() { return std::max(4, static_cast<int>(std::thread::hardware_concurrency())); }
/// Workers of the pool for tasks that wait on storage. Measured on a local ext4 file system
/// mounted with `discard` (each unlink waits for its discard): 16 deleters take 0.6-0.8x the
/// time of 4; 64 are slower again (bench/vacuum.py, flushed copies).
constexpr int kStorageWaitThreads = 16;
}  // namespace

Result<std::shared_ptr<Engine>> Engine::MakeThreadPool(int threads, bool serialize_tasks) {
  if (threads < 0) return Status::Invalid("thread count must be >= 0, got ", threads);
  return std::shared_ptr<Engine>(
      std::make_shared<ThreadPoolEngine>(threads == 0 ? DefaultThreads() : threads, serialize_tasks));
}

std::shared_ptr<Engine> Engine::Default() {
  static std::shared_ptr<Engine> engine = std::make_shared<ThreadPoolEngine>(DefaultThreads(), false);
  return engine;
}

std::shared_ptr<Engine> Engine::DefaultForStorageWaits() {
  static std::shared_ptr<Engine> engine = std::make_shared<ThreadPoolEngine>(kStorageWaitThreads, false);
  return engine;
}

}  // namespace lakeshore
