// A Storage wrapper that fails, or simulates a process crash, at the k-th mutating call.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "lakeshore/storage/storage.h"

namespace lakeshore {

/// What happens at the k-th mutating call.
enum class FaultMode {
  /// The k-th mutating call fails with an IOError and has no effect; every other call passes.
  kFailOnce,
  /// The process "dies" just before the k-th mutating call: calls 1..k-1 took effect, call k
  /// has no effect, and it and every later call (reads included) fail with
  /// ErrorKind::kCrashInjected.
  kCrash,
  /// The k-th mutating call takes effect, then reports an IOError (a lost response: the put
  /// or delete happened but the caller cannot know); every other call passes.
  kFailOnceAfterEffect,
};

/// Wraps any Storage and injects one fault, for crash and failure tests.
///
/// Mutating calls are WriteFile, PutIfAbsent, DeleteFiles (one per call, whatever the batch
/// size) and DeleteDirIfEmpty; they are numbered 1, 2, ... in the order they reach the wrapper
/// (from any thread). The usual crash test: run the operation once with k = 0 (never inject) to
/// count N = mutating_calls(), then for k = 1..N run it on a fresh table with kCrash, check the
/// table through the inner storage (as a restarted process would), recover and re-check.
///
/// Limits: a RandomAccessFile opened before a crash keeps reading; SetModificationTimeForTesting
/// passes through uncounted. root_uri() is the inner storage's, so reopening it bypasses the
/// wrapper, as a restarted process would. Thread-safe.
class FaultInjectionStorage : public Storage {
 public:
  /// Wraps `inner`; `k` >= 1 injects at the k-th mutating call, `k` == 0 never injects.
  /// Invalid for a null `inner` or a negative `k`.
  static Result<std::shared_ptr<FaultInjectionStorage>> Make(std::shared_ptr<Storage> inner,
                                                             int64_t k, FaultMode mode);

  /// Mutating calls received so far, including an injected failure and refused calls after a
  /// crash.
  int64_t mutating_calls() const { return mutating_calls_.load(); }
  /// True once the crash was injected (kCrash only).
  bool crashed() const { return crashed_.load(); }
  /// True once the fault (of either mode) was injected.
  bool injected() const { return injected_.load(); }
  /// The wrapped storage.
  const std::shared_ptr<Storage>& inner() const { return inner_; }

  std::string root_uri() const override { return inner_->root_uri(); }
  std::string ExternalPath(std::string_view path) const override { return inner_->ExternalPath(path); }
  Result<std::shared_ptr<arrow::Buffer>> ReadFile(std::string_view path) override;
  Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInputFile(
      std::string_view path, std::optional<int64_t> size_hint = std::nullopt) override;
  Status WriteFile(std::string_view path, std::shared_ptr<arrow::Buffer> data) override;
  Result<bool> PutIfAbsent(std::string_view path, std::shared_ptr<arrow::Buffer> data) override;
  Result<std::optional<FileEntry>> GetFileInfo(std::string_view path) override;
  Result<std::vector<FileEntry>> List(std::string_view prefix, bool recursive) override;
  Result<std::vector<FileEntry>> ListSkippingDetails(std::string_view prefix, bool recursive,
                                                     const NeedsDetails& needs_details) override;
  Result<DeleteOutcome> DeleteFiles(const std::vector<std::string>& paths) override;
  Result<bool> DeleteDirIfEmpty(std::string_view path) override;
  Status SetModificationTimeForTesting(std::string_view path, int64_t mtime_ms) override;

 private:
  FaultInjectionStorage(std::shared_ptr<Storage> inner, int64_t k, FaultMode mode)
      : inner_(std::move(inner)), k_(k), mode_(mode) {}
  // OK if a read may proceed; the crash error after a crash.
  Status BeforeRead(std::string_view what, std::string_view path) const;
  // Numbers the mutating call and decides whether it may proceed; sets *fail_after when the
  // call must proceed and then report the injected failure.
  Status BeforeMutation(std::string_view what, std::string_view path, bool* fail_after);
  // Runs one mutating call: `call` reaches the inner storage unless the fault says otherwise.
  template <typename Call>
  auto Mutate(std::string_view what, std::string_view path, Call&& call) -> decltype(call());

  std::shared_ptr<Storage> inner_;
  const int64_t k_;
  const FaultMode mode_;
  std::atomic<int64_t> mutating_calls_{0};
  std::atomic<bool> crashed_{false};
  std::atomic<bool> injected_{false};
};

}  // namespace lakeshore
