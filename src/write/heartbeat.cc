#include "write/heartbeat.h"

#include <charconv>
#include <system_error>
#include <thread>

#include "table/layout.h"

namespace lakeshore {

std::string HeartbeatPath(const std::string& instant_time) {
  return JoinPath(layout::kHeartbeatDir, instant_time);
}

Heartbeat::Heartbeat(std::shared_ptr<Storage> storage, std::shared_ptr<Clock> clock,
                     std::string instant_time, HeartbeatSettings settings)
    : storage_(std::move(storage)), clock_(std::move(clock)),
      instant_time_(std::move(instant_time)), settings_(settings) {}

Result<std::unique_ptr<Heartbeat>> Heartbeat::Start(std::shared_ptr<Storage> storage,
                                                    std::shared_ptr<Clock> clock,
                                                    std::string instant_time, HeartbeatSettings settings) {
  std::unique_ptr<Heartbeat> hb(new Heartbeat(std::move(storage), std::move(clock),
                                              std::move(instant_time), settings));
  ARROW_RETURN_NOT_OK(hb->Beat());
  try {
    hb->thread_ = std::thread([raw = hb.get()] { raw->Loop(); });
  } catch (const std::system_error& e) {
    return Status::IOError("the heartbeat of instant ", hb->instant_time_, " cannot start its thread: ", e.what());
  }
  return hb;
}

Heartbeat::~Heartbeat() { (void)Stop(); }

Status Heartbeat::Beat() {
  return storage_->WriteString(HeartbeatPath(instant_time_), std::to_string(clock_->NowMs()));
}

void Heartbeat::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, std::chrono::milliseconds(settings_.interval_ms), [&] { return stop_; });
    if (stop_) break;
    lock.unlock();
    (void)Beat();  // a missed beat is tolerated; too many make the write count as failed
    lock.lock();
  }
}

Status Heartbeat::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return Status::OK();
    stop_ = true;
    stopped_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  return storage_->DeleteFiles({HeartbeatPath(instant_time_)}).status();
}

Result<bool> IsHeartbeatExpired(Storage& storage, const Clock& clock, const std::string& instant_time,
                                const HeartbeatSettings& settings) {
  std::string path = HeartbeatPath(instant_time);
  ARROW_ASSIGN_OR_RAISE(bool exists, storage.Exists(path));
  if (!exists) return true;
  auto read = storage.ReadString(path);
  if (!read.ok()) {
    // Its writer may have stopped it between the two calls (a write that lost its commit
    // deletes its heartbeat after giving up the lock): gone now is expired, as missing was.
    ARROW_ASSIGN_OR_RAISE(bool still_there, storage.Exists(path));
    if (!still_there) return true;
    return read.status();
  }
  const std::string& text = *read;
  int64_t last = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), last);
  if (ec != std::errc()) return true;  // an unreadable heartbeat proves nothing alive
  return clock.NowMs() - last > settings.interval_ms * (settings.tolerable_misses + 1);
}

}  // namespace lakeshore
