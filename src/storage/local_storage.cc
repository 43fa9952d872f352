#include "storage/local_storage.h"

#include "storage/publish_on_close_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include <arrow/io/file.h>

namespace lakeshore {
namespace fs = std::filesystem;

namespace {
Status ErrnoError(const char* what, const std::string& path, int err) {
  return Status::IOError(what, " '", path, "': ", std::strerror(err));
}

int64_t MtimeMs(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

std::string UniqueSuffix() {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return std::to_string(getpid()) + "." + std::to_string(counter.fetch_add(1)) + "." +
         std::to_string(rng() & 0xffffff);
}

Status WriteAll(int fd, const uint8_t* data, int64_t size, const std::string& path) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, static_cast<size_t>(std::min<int64_t>(size, 1 << 30)));
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("cannot write", path, errno);
    }
    data += n;
    size -= n;
  }
  return Status::OK();
}
}  // namespace

Result<std::shared_ptr<Storage>> LocalStorage::Make(const std::string& root,
                                                    std::vector<std::string> unsynced_folders) {
  if (root.empty()) return Status::Invalid("empty local storage root");
  std::error_code ec;
  fs::path p = fs::absolute(fs::path(root), ec).lexically_normal();
  if (ec) return Status::IOError("cannot resolve '", root, "': ", ec.message());
  std::string s = p.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  for (auto& folder : unsynced_folders) {
    ARROW_ASSIGN_OR_RAISE(folder, NormalizeRelativePath(folder));
  }
  return std::shared_ptr<Storage>(new LocalStorage(std::move(s), std::move(unsynced_folders)));
}

bool LocalStorage::NeedsSync(const std::string& abs) const {
  for (const auto& folder : unsynced_folders_) {
    std::string prefix = root_ + "/" + folder + "/";
    if (abs.compare(0, prefix.size(), prefix) == 0) return false;
  }
  return true;
}

Result<std::string> LocalStorage::Abs(std::string_view path, bool allow_root) const {
  ARROW_ASSIGN_OR_RAISE(auto rel, NormalizeRelativePath(path, allow_root));
  return rel.empty() ? root_ : root_ + "/" + rel;
}

Result<std::shared_ptr<arrow::Buffer>> LocalStorage::ReadFile(std::string_view path) {
  ARROW_ASSIGN_OR_RAISE(auto file, OpenInputFile(path, std::nullopt));
  ARROW_ASSIGN_OR_RAISE(int64_t size, file->GetSize());
  return file->ReadAt(0, size);
}

Result<std::shared_ptr<arrow::io::RandomAccessFile>> LocalStorage::OpenInputFile(
    std::string_view path, std::optional<int64_t>) {
  ARROW_ASSIGN_OR_RAISE(auto abs, Abs(path));
  auto result = arrow::io::ReadableFile::Open(abs);
  if (!result.ok()) return Status::IOError("cannot open '", abs, "': ", result.status().message());
  return std::shared_ptr<arrow::io::RandomAccessFile>(*std::move(result));
}

Result<std::pair<int, std::string>> LocalStorage::CreateTemp(const std::string& abs) const {
  fs::path parent = fs::path(abs).parent_path();
  std::string tmp = parent.string() + "/." + fs::path(abs).filename().string() + ".tmp." + UniqueSuffix();
  int fd = -1;
  // A concurrent DeleteDirIfEmpty may remove the folder between its creation and the open;
  // once the temp file is in it, the folder is not empty and stays.
  for (int attempt = 0; fd < 0; ++attempt) {
    std::error_code ec;
    fs::create_directories(parent, ec);
    if (ec) return Status::IOError("cannot create folder '", parent.string(), "': ", ec.message());
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) break;
    if (errno != ENOENT || attempt == 1000) return ErrnoError("cannot create", tmp, errno);
    // Lost the race to a remover: back off a little so it cannot win every round on a busy
    // machine.
    if (attempt >= 8) std::this_thread::sleep_for(std::chrono::microseconds(100 * std::min(attempt, 50)));
  }
  return std::make_pair(fd, tmp);
}

Result<std::string> LocalStorage::WriteTemp(const std::string& abs, const arrow::Buffer& data) const {
  ARROW_ASSIGN_OR_RAISE(auto created, CreateTemp(abs));
  auto [fd, tmp] = created;
  Status st = WriteAll(fd, data.data(), data.size(), tmp);
  if (st.ok() && NeedsSync(abs) && ::fsync(fd) != 0) st = ErrnoError("cannot sync", tmp, errno);
  ::close(fd);
  if (!st.ok()) {
    ::unlink(tmp.c_str());
    return st;
  }
  return tmp;
}

namespace {
/// Streams into a temp file beside the target; Close syncs it and renames it into place.
/// Dropped without Close, it removes the temp file.
class LocalReplaceOnCloseStream : public PublishOnCloseStream {
 public:
  LocalReplaceOnCloseStream(std::shared_ptr<arrow::io::FileOutputStream> file, std::string tmp, std::string target,
                            bool sync)
      : file_(std::move(file)), tmp_(std::move(tmp)), target_(std::move(target)), sync_(sync) {}
  ~LocalReplaceOnCloseStream() override {
    if (!closed()) {
      (void)file_->Close();
      ::unlink(tmp_.c_str());
    }
  }

 protected:
  Status Append(const void* data, int64_t nbytes) override { return file_->Write(data, nbytes); }
  Status Publish() override {
    Status st;
    if (sync_ && ::fsync(file_->file_descriptor()) != 0) st = ErrnoError("cannot sync", tmp_, errno);
    Status close_st = file_->Close();
    if (st.ok()) st = close_st;
    if (st.ok() && ::rename(tmp_.c_str(), target_.c_str()) != 0) st = ErrnoError("cannot rename into", target_, errno);
    if (!st.ok()) ::unlink(tmp_.c_str());
    return st;
  }

 private:
  std::shared_ptr<arrow::io::FileOutputStream> file_;
  std::string tmp_;
  std::string target_;
  bool sync_;
};
}  // namespace

Result<std::shared_ptr<arrow::io::OutputStream>> LocalStorage::OpenOutputStream(std::string_view path) {
  ARROW_ASSIGN_OR_RAISE(auto abs, Abs(path));
  ARROW_ASSIGN_OR_RAISE(auto created, CreateTemp(abs));
  auto [fd, tmp] = created;
  auto file = arrow::io::FileOutputStream::Open(fd);
  if (!file.ok()) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return file.status();
  }
  return std::make_shared<LocalReplaceOnCloseStream>(*std::move(file), tmp, abs, NeedsSync(abs));
}

Status LocalStorage::WriteFile(std::string_view path, std::shared_ptr<arrow::Buffer> data) {
  ARROW_ASSIGN_OR_RAISE(auto abs, Abs(path));
  ARROW_ASSIGN_OR_RAISE(auto tmp, WriteTemp(abs, *data));
  if (::rename(tmp.c_str(), abs.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return ErrnoError("cannot rename into", abs, err);
  }
  return Status::OK();
}

Result<bool> LocalStorage::PutIfAbsent(std::string_view path, std::shared_ptr<arrow::Buffer> data) {
  ARROW_ASSIGN_OR_RAISE(auto abs, Abs(path));
  ARROW_ASSIGN_OR_RAISE(auto tmp, WriteTemp(abs, *data));
  // link(2) fails with EEXIST if the target exists: an atomic create-if-absent of a complete file.
  int rc = ::link(tmp.c_str(), abs.c_str());
  int err = errno;
  ::unlink(tmp.c_str());
  if (rc == 0) return true;
  if (err == EEXIST) return false;
  return ErrnoError("cannot create", abs, err);
}

Result<std::optional<FileEntry>> LocalStorage::GetFileInfo(std::string_view path) {
  ARROW_ASSIGN_OR_RAISE(auto abs, Abs(path, /*allow_root=*/true));
  struct stat st;
  if (::stat(abs.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::optional<FileEntry>();
    return ErrnoError("cannot stat", abs, errno);
  }
  ARROW_ASSIGN_OR_RAISE(auto rel, NormalizeRelativePath(path, true));
  FileEntry e{rel, S_ISDIR(st.st_mode) ? 0 : static_cast<int64_t>(st.st_size), MtimeMs(st),
              S_ISDIR(st.st_mode)};
  return std::optional<FileEntry>(std::move(e));
}

Result<std::vector<FileEntry>> LocalStorage::List(std::string_view prefix, bool recursive) {
  ARROW_ASSIGN_OR_RAISE(auto rel_prefix, NormalizeRelativePath(prefix, true));
  std::string abs = rel_prefix.empty() ? root_ : root_ + "/" + rel_prefix;
  std::vector<FileEntry> out;
  std::error_code ec;
  if (!fs::is_directory(abs, ec)) return out;
  auto visit = [&](const fs::directory_entry& entry) -> Status {
    struct stat st;
    std::string p = entry.path().string();
    if (::lstat(p.c_str(), &st) != 0) {
      if (errno == ENOENT) return Status::OK();  // deleted while listing
      return ErrnoError("cannot stat", p, errno);
    }
    std::string name = entry.path().filename().string();
    if (name.find(".tmp.") != std::string::npos && name.front() == '.') return Status::OK();
    bool is_dir = S_ISDIR(st.st_mode);
    std::string rel = p.substr(root_.size() + 1);
    if (is_dir) {
      if (recursive && !fs::is_empty(entry.path(), ec)) return Status::OK();
      out.push_back({rel, 0, MtimeMs(st), true});
    } else {
      out.push_back({rel, static_cast<int64_t>(st.st_size), MtimeMs(st), false});
    }
    return Status::OK();
  };
  if (recursive) {
    for (auto it = fs::recursive_directory_iterator(abs, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      ARROW_RETURN_NOT_OK(visit(*it));
    }
  } else {
    for (auto it = fs::directory_iterator(abs, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
      ARROW_RETURN_NOT_OK(visit(*it));
    }
  }
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return Status::IOError("cannot list '", abs, "': ", ec.message());
  }
  return out;
}

Result<DeleteOutcome> LocalStorage::DeleteFiles(const std::vector<std::string>& paths) {
  // Validate everything before deleting anything.
  std::vector<std::string> abs_paths;
  abs_paths.reserve(paths.size());
  for (const auto& path : paths) {
    ARROW_ASSIGN_OR_RAISE(auto abs, Abs(path));
    abs_paths.push_back(std::move(abs));
  }
  DeleteOutcome outcome;
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::string& abs = abs_paths[i];
    if (::unlink(abs.c_str()) == 0) {
      ++outcome.deleted;
      outcome.deleted_paths.push_back(paths[i]);
    } else if (errno == ENOENT || errno == ENOTDIR) {
      ++outcome.already_gone;
    } else {
      return ErrnoError("cannot delete", abs, errno);
    }
  }
  return outcome;
}

Result<bool> LocalStorage::DeleteDirIfEmpty(std::string_view path) {
  ARROW_ASSIGN_OR_RAISE(auto abs, Abs(path));
  if (::rmdir(abs.c_str()) == 0) return true;
  if (errno == ENOENT || errno == ENOTEMPTY || errno == EEXIST || errno == ENOTDIR) return false;
  return ErrnoError("cannot remove folder", abs, errno);
}

Status LocalStorage::SetModificationTimeForTesting(std::string_view path, int64_t mtime_ms) {
  ARROW_ASSIGN_OR_RAISE(auto abs, Abs(path));
  struct timespec times[2];
  times[0].tv_sec = times[1].tv_sec = static_cast<time_t>(mtime_ms / 1000);
  times[0].tv_nsec = times[1].tv_nsec = static_cast<long>(mtime_ms % 1000) * 1000000;
  if (::utimensat(AT_FDCWD, abs.c_str(), times, 0) != 0) return ErrnoError("cannot set the mtime of", abs, errno);
  return Status::OK();
}

}  // namespace lakeshore
