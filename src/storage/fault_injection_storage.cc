#include "lakeshore/storage/fault_injection_storage.h"

namespace lakeshore {
namespace {

Status CrashError(std::string_view what, std::string_view path, int64_t k) {
  return MakeError(ErrorKind::kCrashInjected, "injected crash (at mutating call " + std::to_string(k) +
                                                  "): " + std::string(what) + " '" + std::string(path) +
                                                  "' refused");
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

Status FaultInjectionStorage::BeforeMutation(std::string_view what, std::string_view path) {
  int64_t n = mutating_calls_.fetch_add(1) + 1;
  if (crashed_.load()) return CrashError(what, path, k_);
  if (k_ == 0 || n != k_) return Status::OK();
  injected_.store(true);
  if (mode_ == FaultMode::kCrash) {
    crashed_.store(true);
    return CrashError(what, path, k_);
  }
  return Status::IOError("injected failure (mutating call ", n, "): ", what, " '", path, "' failed");
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
  ARROW_RETURN_NOT_OK(BeforeMutation("write", path));
  return inner_->WriteFile(path, std::move(data));
}

Result<bool> FaultInjectionStorage::PutIfAbsent(std::string_view path, std::shared_ptr<arrow::Buffer> data) {
  ARROW_RETURN_NOT_OK(BeforeMutation("put-if-absent", path));
  return inner_->PutIfAbsent(path, std::move(data));
}

Result<std::optional<FileEntry>> FaultInjectionStorage::GetFileInfo(std::string_view path) {
  ARROW_RETURN_NOT_OK(BeforeRead("stat", path));
  return inner_->GetFileInfo(path);
}

Result<std::vector<FileEntry>> FaultInjectionStorage::List(std::string_view prefix, bool recursive) {
  ARROW_RETURN_NOT_OK(BeforeRead("list", prefix));
  return inner_->List(prefix, recursive);
}

Result<DeleteOutcome> FaultInjectionStorage::DeleteFiles(const std::vector<std::string>& paths) {
  ARROW_RETURN_NOT_OK(BeforeMutation("delete", paths.empty() ? std::string() : paths.front() +
                                                   (paths.size() > 1 ? " (+" + std::to_string(paths.size() - 1) + " more)" : "")));
  return inner_->DeleteFiles(paths);
}

Result<bool> FaultInjectionStorage::DeleteDirIfEmpty(std::string_view path) {
  ARROW_RETURN_NOT_OK(BeforeMutation("remove folder", path));
  return inner_->DeleteDirIfEmpty(path);
}

Status FaultInjectionStorage::SetModificationTimeForTesting(std::string_view path, int64_t mtime_ms) {
  return inner_->SetModificationTimeForTesting(path, mtime_ms);
}

}  // namespace lakeshore
