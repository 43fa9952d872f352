#include "write/table_lock.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <system_error>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/parse_number.h"
#include "table/file_naming.h"
#include "table/layout.h"

namespace lakeshore {
namespace {
constexpr int kSeqDigits = 20;
constexpr int64_t kKeepLockObjects = 8;

std::string SeqName(int64_t seq) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%020lld", static_cast<long long>(seq));
  return buf;
}

bool ParseSeq(const std::string& name, int64_t* seq) {
  if (name.size() != kSeqDigits) return false;
  for (char c : name)
    if (c < '0' || c > '9') return false;
  auto parsed = ParseInt64(name);
  if (!parsed) return false;
  *seq = *parsed;
  return true;
}

struct LockState {
  int64_t max_seq = -1;
  std::map<int64_t, FileEntry> objects;
  std::map<int64_t, bool> released;
};

Result<LockState> ReadLockState(Storage& storage) {
  ARROW_ASSIGN_OR_RAISE(auto entries, storage.List(layout::kLockDir, false));
  LockState state;
  for (const auto& e : entries) {
    std::string name(BaseName(e.path));
    int64_t seq;
    if (ParseSeq(name, &seq)) {
      state.objects[seq] = e;
      state.max_seq = std::max(state.max_seq, seq);
    } else if (name.size() == kSeqDigits + 9 && name.compare(kSeqDigits, 9, ".released") == 0 &&
               ParseSeq(name.substr(0, kSeqDigits), &seq)) {
      state.released[seq] = true;
    }
  }
  return state;
}

// True when the lock object's lease has run out. An unreadable lock object (it cannot be
// partial: it was created whole by put-if-absent) falls back to its mtime and `default_lease`.
Result<bool> LeaseExpired(Storage& storage, const FileEntry& entry, int64_t now_ms, int64_t default_lease) {
  auto text = storage.ReadString(entry.path);
  if (!text.ok()) {
    ARROW_ASSIGN_OR_RAISE(auto info, storage.GetFileInfo(entry.path));
    if (!info) return true;  // pruned meanwhile: a newer lock exists; re-list decides
    return text.status();
  }
  try {
    auto j = nlohmann::json::parse(*text);
    int64_t until = 0;
    int64_t lease = j.at("lease_ms").get<int64_t>();
    if (lease >= 0 && !__builtin_add_overflow(j.at("acquired_ms").get<int64_t>(), lease, &until)) {
      return now_ms > until;
    }
    return now_ms > entry.mtime_ms + default_lease;  // absurd numbers: judged like an unreadable object
  } catch (const nlohmann::json::exception&) {
    return now_ms > entry.mtime_ms + default_lease;
  }
}
}  // namespace

LockGuard::LockGuard(std::shared_ptr<Storage> storage, std::shared_ptr<Clock> clock, std::string path,
                     std::string owner, int64_t acquired_ms, int64_t lease_ms)
    : storage_(std::move(storage)), clock_(std::move(clock)), path_(std::move(path)),
      owner_(std::move(owner)), acquired_ms_(acquired_ms), lease_ms_(lease_ms) {}

LockGuard::~LockGuard() { (void)Release(); }

void LockGuard::StopKeepAlive() {
  {
    std::lock_guard<std::mutex> hold(mu_);
    stop_keep_alive_ = true;
  }
  wake_.notify_all();
  if (keep_alive_.joinable()) keep_alive_.join();
}

Status LockGuard::Release() {
  StopKeepAlive();
  std::lock_guard<std::mutex> hold(mu_);
  if (released_) return Status::OK();
  released_ = true;
  ARROW_RETURN_NOT_OK(storage_->PutIfAbsentString(path_ + ".released", owner_).status());
  // Prune lock objects far behind this one; best effort, never needed for correctness.
  int64_t seq = 0;
  if (ParseSeq(std::string(BaseName(path_)), &seq) && seq >= 2 * kKeepLockObjects && seq % kKeepLockObjects == 0) {
    std::vector<std::string> old;
    for (int64_t s = seq - 2 * kKeepLockObjects; s < seq - kKeepLockObjects; ++s) {
      old.push_back(JoinPath(layout::kLockDir, SeqName(s)));
      old.push_back(JoinPath(layout::kLockDir, SeqName(s) + ".released"));
    }
    (void)storage_->DeleteFiles(old);
  }
  return Status::OK();
}

Status LockGuard::CheckHeld(int64_t margin_ms) const {
  std::lock_guard<std::mutex> hold(mu_);
  if (released_) return Status::Invalid("table lock ", path_, " was already released");
  if (!lost_.ok()) return lost_;
  if (clock_->NowMs() + margin_ms > acquired_ms_ + lease_ms_) {
    return LockTimeout(
                     "the lease of table lock '" + path_ + "' ran out before the commit point; "
                     "nothing was committed");
  }
  // Fencing that does not trust clocks: nobody may have taken a newer lock object.
  ARROW_ASSIGN_OR_RAISE(auto state, ReadLockState(*storage_));
  int64_t mine = -1;
  if (!ParseSeq(std::string(BaseName(path_)), &mine)) {
    return Status::Invalid("table lock object '", path_, "' has no sequence number");
  }
  if (state.max_seq != mine) {
    return LockTimeout(
                     "table lock '" + path_ + "' was taken over by lock object " + SeqName(state.max_seq) +
                         " (this holder's lease was judged expired); nothing was committed");
  }
  return Status::OK();
}

Status LockGuard::Renew() {
  std::lock_guard<std::mutex> hold(mu_);
  return RenewLocked();
}

Status LockGuard::RenewLocked() {
  if (released_) return Status::Invalid("table lock ", path_, " was already released");
  if (!lost_.ok()) return lost_;
  int64_t seq = -1;
  if (!ParseSeq(std::string(BaseName(path_)), &seq)) {
    return Status::Invalid("table lock object '", path_, "' has no sequence number");
  }
  auto lost = [&](const std::string& why) {
    lost_ = LockTimeout("table lock '" + path_ + "' could not be renewed: " + why + "; nothing more is committed under it");
    return lost_;
  };
  const int64_t now = clock_->NowMs();
  const std::string next = JoinPath(layout::kLockDir, SeqName(seq + 1));
  nlohmann::json content = {{"owner", owner_}, {"acquired_ms", now}, {"lease_ms", lease_ms_}, {"purpose", "renewal"}};
  ARROW_ASSIGN_OR_RAISE(bool won, storage_->PutIfAbsentString(next, content.dump()));
  if (!won) return lost("another process took lock object " + SeqName(seq + 1) + " (the lease was judged expired)");
  const std::string previous = path_;
  path_ = next;  // won: the lock is this object now, unless the check below finds a newer one
  acquired_ms_ = now;
  ARROW_ASSIGN_OR_RAISE(auto after, ReadLockState(*storage_));
  if (after.max_seq != seq + 1) {
    // The put landed on a number pruned long ago: others have held the lock since.
    (void)storage_->PutIfAbsentString(next + ".released", owner_);
    return lost("a newer lock object " + SeqName(after.max_seq) + " exists");
  }
  (void)storage_->PutIfAbsentString(previous + ".released", owner_);  // the old object is done with
  return Status::OK();
}

void LockGuard::KeepAlive() {
  std::lock_guard<std::mutex> hold(mu_);
  if (keep_alive_.joinable() || released_) return;
  try {
    keep_alive_ = std::thread([this] {
      const auto period = std::chrono::milliseconds(std::max<int64_t>(1, lease_ms_ / 3));
      std::unique_lock<std::mutex> lock(mu_);
      while (!wake_.wait_for(lock, period, [this] { return stop_keep_alive_; })) {
        // A storage error is retried at the next period (CheckHeld fences meanwhile); a lost
        // lock or a release ends the renewals.
        (void)RenewLocked();
        if (!lost_.ok() || released_) return;
      }
    });
  } catch (const std::system_error& e) {  // no renewals: the holder must not commit past the lease
    lost_ = LockTimeout("table lock '" + path_ + "' cannot start its renewals: " + e.what() +
                        "; nothing more is committed under it");
  }
}

TableLock::TableLock(std::shared_ptr<Storage> storage, std::shared_ptr<Clock> clock, LockSettings settings)
    : storage_(std::move(storage)), clock_(std::move(clock)), settings_(settings) {}

Result<std::unique_ptr<LockGuard>> TableLock::Acquire(const std::string& purpose) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(settings_.wait_timeout_ms);
  std::string owner = purpose + "@" + std::to_string(getpid()) + "-" + NewWriteToken();
  int sleep_ms = 5;
  int lost_races = 0;
  // A try that lost (another writer took the number, or our listing was stale) is tried
  // again at once the first time, then after a growing pause; the deadline holds for every
  // kind of wait.
  auto lost = [&](int64_t seq) -> Status {
    if (std::chrono::steady_clock::now() >= deadline) {
      return LockTimeout("could not take the table lock within " + std::to_string(settings_.wait_timeout_ms) +
                         " ms: " + std::to_string(lost_races + 1) + " tries to take the next lock object (the last " +
                         SeqName(seq) + ") lost to other writers, or the lock folder's listing is stale");
    }
    if (lost_races++ > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
      sleep_ms = std::min(sleep_ms * 2, 100);
    }
    return Status::OK();
  };
  for (;;) {
    ARROW_ASSIGN_OR_RAISE(auto state, ReadLockState(*storage_));
    int64_t now = clock_->NowMs();
    bool free = state.max_seq < 0 || state.released.count(state.max_seq) > 0;
    if (!free) {
      ARROW_ASSIGN_OR_RAISE(free, LeaseExpired(*storage_, state.objects[state.max_seq], now,
                                               settings_.lease_ms));
    }
    if (free) {
      int64_t seq = state.max_seq + 1;
      std::string path = JoinPath(layout::kLockDir, SeqName(seq));
      nlohmann::json content = {{"owner", owner}, {"acquired_ms", now}, {"lease_ms", settings_.lease_ms},
                                {"purpose", purpose}};
      ARROW_ASSIGN_OR_RAISE(bool won, storage_->PutIfAbsentString(path, content.dump()));
      if (!won) {  // someone else took seq
        ARROW_RETURN_NOT_OK(lost(seq));
        continue;
      }
      // Our listing may have been stale: while we waited, others may have taken seq and more,
      // and a release may have pruned seq, so the put succeeded on a number long past. Only a
      // lock object that is the newest is the lock.
      ARROW_ASSIGN_OR_RAISE(auto after, ReadLockState(*storage_));
      if (after.max_seq == seq) {
        return std::unique_ptr<LockGuard>(
            new LockGuard(storage_, clock_, path, owner, now, settings_.lease_ms));
      }
      (void)storage_->PutIfAbsentString(path + ".released", owner);  // mark the stray released
      ARROW_RETURN_NOT_OK(lost(seq));
      continue;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return LockTimeout(
                       "could not take the table lock within " + std::to_string(settings_.wait_timeout_ms) +
                           " ms (held by lock object " + SeqName(state.max_seq) + ")");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
    sleep_ms = std::min(sleep_ms * 2, 100);
  }
}

}  // namespace lakeshore
