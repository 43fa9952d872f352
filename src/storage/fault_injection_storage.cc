#include "lakeshore/storage/fault_injection_storage.h"

namespace lakeshore {
namespace {

Status CrashError(std::string_view what, std::string_view path, int64_t k) {
  return CrashInjected("injected crash (at mutating call " + std::to_string(k) +
                                                  "): " + std::string(what) + " '" + std::string(path) +
                                                  "' refused");
}

Status InjectedFailure(std::string_view what, std::string_view path, int64_t n) {
  return Status::IOError("injected failure (mutating call ", n, "): ", what, " '", path, "' failed");
}

}  // namespace

Result<std::shared_ptr<FaultInjectionStorage>> FaultInjectionStorage::Make(std::shared_ptr<Storage> inner,
                                                                           int64_t k, FaultMode mode) {
  if (!inner) return Status::Invalid("FaultInjectionStorage needs an inner storage");
  if (k < 0) return Status::Invalid("FaultInjectionStorage: k must be >= 0, got ", k);
  return std::shared_ptr<FaultInjectionStorage>(new FaultInjectionStorage(std::move(inner), k, mode));
}

Status FaultInjectionStorage::BeforeRead(std::string_view what, std::string_view path) const {
  if (crashed_.load()) return CrashError(what, path, k_);
  return Status::OK();
}

Status FaultInjectionStorage::BeforeMutation(std::string_view what, std::string_view path, bool* fail_after) {
  int64_t n = mutating_calls_.fetch_add(1) + 1;
  if (crashed_.load()) return CrashError(what, path, k_);
  if (k_ == 0 || n != k_) return Status::OK();
  injected_.store(true);
  switch (mode_) {
    case FaultMode::kCrash:
      crashed_.store(true);
      return CrashError(what, path, k_);
    case FaultMode::kFailOnceAfterEffect:
      *fail_after = true;
      return Status::OK();
    case FaultMode::kFailOnce:
      break;
  }
  return InjectedFailure(what, path, n);
}

template <typename Call>
auto FaultInjectionStorage::Mutate(std::string_view what, std::string_view path, Call&& call) -> decltype(call()) {
  bool fail_after = false;
  ARROW_RETURN_NOT_OK(BeforeMutation(what, path, &fail_after));
  auto result = call();
  if (fail_after) return InjectedFailure(what, path, k_);
  return result;
}

Result<std::shared_ptr<arrow::Buffer>> FaultInjectionStorage::ReadFile(std::string_view path) {
  ARROW_RETURN_NOT_OK(BeforeRead("read", path));
  return inner_->ReadFile(path);
}

Result<std::shared_ptr<arrow::io::RandomAccessFile>> FaultInjectionStorage::OpenInputFile(
    std::string_view path, std::optional<int64_t> size_hint) {
  ARROW_RETURN_NOT_OK(BeforeRead("open", path));
  return inner_->OpenInputFile(path, size_hint);
}

Status FaultInjectionStorage::WriteFile(std::string_view path, std::shared_ptr<arrow::Buffer> data) {
  return Mutate("write", path, [&] { return inner_->WriteFile(path, std::move(data)); });
}

Result<bool> FaultInjectionStorage::PutIfAbsent(std::string_view path, std::shared_ptr<arrow::Buffer> data) {
  return Mutate("put-if-absent", path, [&] { return inner_->PutIfAbsent(path, std::move(data)); });
}

Result<std::optional<FileEntry>> FaultInjectionStorage::GetFileInfo(std::string_view path) {
  ARROW_RETURN_NOT_OK(BeforeRead("stat", path));
  return inner_->GetFileInfo(path);
}

Result<std::vector<FileEntry>> FaultInjectionStorage::List(std::string_view prefix, bool recursive) {
  ARROW_RETURN_NOT_OK(BeforeRead("list", prefix));
  return inner_->List(prefix, recursive);
}

Result<std::vector<FileEntry>> FaultInjectionStorage::ListSkippingDetails(std::string_view prefix, bool recursive,
                                                                          const NeedsDetails& needs_details) {
  ARROW_RETURN_NOT_OK(BeforeRead("list", prefix));
  return inner_->ListSkippingDetails(prefix, recursive, needs_details);
}

Result<DeleteOutcome> FaultInjectionStorage::DeleteFiles(const std::vector<std::string>& paths) {
  std::string what = paths.empty() ? std::string()
                                   : paths.front() + (paths.size() > 1 ? " (+" + std::to_string(paths.size() - 1) + " more)" : "");
  return Mutate("delete", what, [&] { return inner_->DeleteFiles(paths); });
}

Result<bool> FaultInjectionStorage::DeleteDirIfEmpty(std::string_view path) {
  return Mutate("remove folder", path, [&] { return inner_->DeleteDirIfEmpty(path); });
}

Status FaultInjectionStorage::SetModificationTimeForTesting(std::string_view path, int64_t mtime_ms) {
  return inner_->SetModificationTimeForTesting(path, mtime_ms);
}

}  // namespace lakeshore
