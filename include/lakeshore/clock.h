// The clock every retention and heartbeat decision is made against.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace lakeshore {

/// A source of wall-clock time in UTC milliseconds since the Unix epoch. Injectable so tests
/// control time; all retention decisions of one operation use one Clock.
class Clock {
 public:
  virtual ~Clock() = default;
  /// Current UTC time in milliseconds since the epoch.
  virtual int64_t NowMs() const = 0;
  /// The process-wide system clock.
  static std::shared_ptr<Clock> System();
};

/// A clock that moves only when told to. Thread-safe.
class ManualClock : public Clock {
 public:
  explicit ManualClock(int64_t now_ms) : now_ms_(now_ms) {}
  int64_t NowMs() const override { return now_ms_.load(); }
  void Set(int64_t now_ms) { now_ms_.store(now_ms); }
  void Advance(int64_t delta_ms) { now_ms_.fetch_add(delta_ms); }

 private:
  std::atomic<int64_t> now_ms_;
};

}  // namespace lakeshore
