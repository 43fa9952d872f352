// Writer heartbeats: a pending instant whose heartbeat has expired belongs to a dead writer.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "lakeshore/clock.h"
#include "lakeshore/storage/storage.h"

namespace lakeshore {

struct HeartbeatSettings {
  int64_t interval_ms = 60000;
  int64_t tolerable_misses = 2;
};

/// The path of an instant's heartbeat file.
std::string HeartbeatPath(const std::string& instant_time);

/// A running heartbeat: the file `.hoodie/.heartbeat/<instant>` (Hudi's place) holds the time of the
/// last beat (by the table clock), rewritten every interval by a background thread.
class Heartbeat {
 public:
  /// Writes the first beat (synchronously: the instant must not appear before its heartbeat)
  /// and starts the background thread.
  static Result<std::unique_ptr<Heartbeat>> Start(std::shared_ptr<Storage> storage,
                                                  std::shared_ptr<Clock> clock,
                                                  std::string instant_time, HeartbeatSettings settings);
  ~Heartbeat();
  /// Stops beating and deletes the heartbeat file.
  Status Stop();

 private:
  Heartbeat(std::shared_ptr<Storage> storage, std::shared_ptr<Clock> clock, std::string instant_time,
            HeartbeatSettings settings);
  Status Beat();
  void Loop();

  std::shared_ptr<Storage> storage_;
  std::shared_ptr<Clock> clock_;
  std::string instant_time_;
  HeartbeatSettings settings_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool stopped_ = false;
  std::thread thread_;
};

/// True when the instant's writer is presumed dead: no heartbeat file, or the last beat is
/// older than interval * (tolerable_misses + 1) by `clock`.
Result<bool> IsHeartbeatExpired(Storage& storage, const Clock& clock, const std::string& instant_time,
                                const HeartbeatSettings& settings);

}  // namespace lakeshore
