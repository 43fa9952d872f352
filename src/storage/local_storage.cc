#include "storage/local_storage.h"

#include "storage/local_real_path.h"

#include "storage/publish_on_close_stream.h"

#include <dirent.h>
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

// The hidden name a file or folder `name` is staged under before its rename into place:
// ".<name><marker><pid>.<n>.<r>" (storage.h IsStagedWriteName). Long names are cut, so a
// name the file system allows (255 bytes) never stages under one it refuses.
std::string StagingName(const std::string& name, std::string_view marker) {
  constexpr size_t kKeptBytes = 128;
  return "." + name.substr(0, kKeptBytes) + std::string(marker) + UniqueSuffix();
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
    std::string prefix = JoinPath(root_, folder) + "/";
    if (abs.compare(0, prefix.size(), prefix) == 0) return false;
  }
  return true;
}

Result<std::string> LocalStorage::Abs(std::string_view path, bool allow_root) const {
  ARROW_ASSIGN_OR_RAISE(auto rel, NormalizeRelativePath(path, allow_root));
  return rel.empty() ? root_ : JoinPath(root_, rel);  // a root of "/" gives "/x", not "//x"
}

Result<std::shared_ptr<arrow::Buffer>> LocalStorage::ReadFile(std::string_view path) {
  ARROW_ASSIGN_OR_RAISE(auto file, OpenInputFile(path, std::nullopt));
  ARROW_ASSIGN_OR_RAISE(int64_t size, file->GetSize());
  return file->ReadAt(0, size);
}

Result<std::shared_ptr<arrow::io::RandomAccessFile>> LocalStorage::OpenInputFile(
    std::string_view path, std::optional<int64_t>) {
  ARROW_ASSIGN_OR_RAISE(auto abs, Abs(path));
  // Reading never updates the access time: a first read after a file's creation would
  // otherwise write its inode (relatime), a journal write per file a reader opens. O_NOATIME
  // is refused (EPERM) for another user's file: that one is opened as usual.
  int fd = ::open(abs.c_str(), O_RDONLY | O_CLOEXEC | O_NOATIME);
  if (fd < 0 && errno == EPERM) fd = ::open(abs.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("cannot open", abs, errno);
  auto result = arrow::io::ReadableFile::Open(fd);  // owns `fd` from here
  if (!result.ok()) return Status::IOError("cannot open '", abs, "': ", result.status().message());
  return std::shared_ptr<arrow::io::RandomAccessFile>(*std::move(result));
}

namespace {
constexpr int kOpenTempFlags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC;

// Makes the entries of a folder durable (a file's rename or link into it, a new sub-folder):
// fsync of the file alone does not persist its name.
Status SyncFolder(const std::string& folder) {
  int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("cannot open folder", folder, errno);
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  return rc == 0 ? Status::OK() : ErrnoError("cannot sync folder", folder, err);
}

// Lists the link `name` in the folder `dirfd` when it leads to a regular file (see FileEntry).
void ListLinkedFile(int dirfd, const char* name, std::string rel, std::vector<FileEntry>* out) {
  struct stat target;
  if (::fstatat(dirfd, name, &target, 0) != 0 || !S_ISREG(target.st_mode)) return;
  FileEntry entry{std::move(rel), static_cast<int64_t>(target.st_size), MtimeMs(target), false};
  entry.is_link = true;
  out->push_back(std::move(entry));
}

// Removes a staging tree left by a lost race (best effort).
void RemoveTree(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}
}  // namespace

Result<int> LocalStorage::CreateInFreshFolder(const std::string& folder, const std::string& temp_name) const {
  // The deepest existing ancestor; it cannot vanish while our staging folder sits in it.
  fs::path existing = fs::path(folder);
  std::error_code ec;
  while (existing.string().size() > root_.size() && !fs::is_directory(existing, ec)) existing = existing.parent_path();
  if (!fs::is_directory(existing, ec)) {
    fs::create_directories(existing, ec);
    if (ec) return Status::IOError("cannot create folder '", existing.string(), "': ", ec.message());
  }
  fs::path missing = fs::path(folder).lexically_relative(existing);
  std::string first = missing.begin()->string();
  std::string staging = (existing / StagingName(first, kStagedFolderMarker)).string();
  fs::path staged_folder = fs::path(staging);
  for (auto it = std::next(missing.begin()); it != missing.end(); ++it) staged_folder /= *it;
  fs::create_directories(staged_folder, ec);
  if (ec) {
    RemoveTree(staging);
    return -1;  // the ancestor went away meanwhile; the caller retries
  }
  int fd = ::open((staged_folder / temp_name).c_str(), kOpenTempFlags, 0644);
  if (fd < 0) {
    int err = errno;
    RemoveTree(staging);
    return ErrnoError("cannot create", (staged_folder / temp_name).string(), err);
  }
  // The folder appears with our temp file already in it, so no remover can take it away.
  if (::rename(staging.c_str(), (existing / first).c_str()) == 0) {
    Status synced = SyncFolder(existing.string());
    if (!synced.ok()) {
      ::close(fd);
      return synced;
    }
    return fd;
  }
  ::close(fd);
  RemoveTree(staging);
  return -1;  // someone else created the folder first: use theirs
}

Result<std::pair<int, std::string>> LocalStorage::CreateTemp(const std::string& abs) const {
  fs::path parent = fs::path(abs).parent_path();
  std::string temp_name = StagingName(fs::path(abs).filename().string(), kStagedFileMarker);
  std::string tmp = (parent / temp_name).string();
  // A concurrent DeleteDirIfEmpty may remove an empty folder at any moment. A missing folder
  // is therefore never created empty: it is built aside, with the temp file in it, and renamed
  // into place whole (see CreateInFreshFolder). Once the temp file is in it, it stays.
  for (int attempt = 0; attempt < 1000; ++attempt) {
    int fd = ::open(tmp.c_str(), kOpenTempFlags, 0644);
    if (fd >= 0) return std::make_pair(fd, tmp);
    if (errno != ENOENT) return ErrnoError("cannot create", tmp, errno);
    ARROW_ASSIGN_OR_RAISE(fd, CreateInFreshFolder(parent.string(), temp_name));
    if (fd >= 0) return std::make_pair(fd, tmp);
  }
  return Status::IOError("cannot create '", tmp, "': its folder kept disappearing");
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
  Status Append(const void* data, int64_t nbytes) override {
    ARROW_RETURN_NOT_OK(file_->Write(data, nbytes));
    written_ += nbytes;
    if (sync_ && written_ - writeback_from_ >= kWritebackStep) StartWriteback();
    return Status::OK();
  }
  Status Publish() override {
    Status st;
    if (sync_ && ::fsync(file_->file_descriptor()) != 0) st = ErrnoError("cannot sync", tmp_, errno);
    Status close_st = file_->Close();
    if (st.ok()) st = close_st;
    if (st.ok() && ::rename(tmp_.c_str(), target_.c_str()) != 0) st = ErrnoError("cannot rename into", target_, errno);
    if (!st.ok()) {
      ::unlink(tmp_.c_str());
      return st;
    }
    return sync_ ? SyncFolder(fs::path(target_).parent_path().string()) : Status::OK();
  }

 private:
  std::shared_ptr<arrow::io::FileOutputStream> file_;
  std::string tmp_;
  std::string target_;
  bool sync_;
  /// The sync at Close waits for every byte not yet on the disk. Writeback of what is written
  /// starts every kWritebackStep bytes instead (sync_file_range, a hint that does not wait), so
  /// that wait overlaps the encoding of the rest; the sync at Close is still what makes the
  /// file durable.
  static constexpr int64_t kWritebackStep = 4 << 20;
  int64_t written_ = 0;
  int64_t writeback_from_ = 0;
  void StartWriteback() {
#ifdef __linux__
    (void)::sync_file_range(file_->file_descriptor(), writeback_from_, written_ - writeback_from_,
                            SYNC_FILE_RANGE_WRITE);
#endif
    writeback_from_ = written_;
  }
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
  return NeedsSync(abs) ? SyncFolder(fs::path(abs).parent_path().string()) : Status::OK();
}

Result<bool> LocalStorage::PutIfAbsent(std::string_view path, std::shared_ptr<arrow::Buffer> data) {
  ARROW_ASSIGN_OR_RAISE(auto abs, Abs(path));
  ARROW_ASSIGN_OR_RAISE(auto tmp, WriteTemp(abs, *data));
  // link(2) fails with EEXIST if the target exists: an atomic create-if-absent of a complete file.
  int rc = ::link(tmp.c_str(), abs.c_str());
  int err = errno;
  ::unlink(tmp.c_str());
  if (rc == 0) {
    if (NeedsSync(abs)) ARROW_RETURN_NOT_OK(SyncFolder(fs::path(abs).parent_path().string()));
    return true;
  }
  if (err == EEXIST) return false;
  return ErrnoError("cannot create", abs, err);
}

namespace {
// stat(2) of `root`/`rel` for a path longer than the kernel takes whole (ENAMETOOLONG): the
// folders are opened one at a time, following links as stat does. 0, or -1 with errno set.
int StatByComponents(const std::string& root, const std::string& rel, struct stat* st) {
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -1;
  size_t start = 0;
  for (size_t end = rel.find('/'); end != std::string::npos; start = end + 1, end = rel.find('/', start)) {
    const std::string name = rel.substr(start, end - start);
    const int sub = ::openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const int err = errno;
    ::close(fd);
    if (sub < 0) {
      errno = err;
      return -1;
    }
    fd = sub;
  }
  const int rc = ::fstatat(fd, rel.c_str() + start, st, 0);
  const int err = errno;
  ::close(fd);
  errno = err;
  return rc;
}
}  // namespace

Result<std::optional<FileEntry>> LocalStorage::GetFileInfo(std::string_view path) {
  ARROW_ASSIGN_OR_RAISE(auto abs, Abs(path, /*allow_root=*/true));
  ARROW_ASSIGN_OR_RAISE(auto rel, NormalizeRelativePath(path, true));
  struct stat st;
  int rc = ::stat(abs.c_str(), &st);
  // A path deeper than PATH_MAX (a listing and deletes reach it folder by folder) is asked so too.
  if (rc != 0 && errno == ENAMETOOLONG && !rel.empty()) rc = StatByComponents(root_, rel, &st);
  if (rc != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::optional<FileEntry>();
    return ErrnoError("cannot stat", abs, errno);
  }
  FileEntry e{rel, S_ISDIR(st.st_mode) ? 0 : static_cast<int64_t>(st.st_size), MtimeMs(st),
              S_ISDIR(st.st_mode)};
  return std::optional<FileEntry>(std::move(e));
}

namespace {

// Lists the folder open at `dirfd` (taking ownership) as `rel_dir`: one readdir pass and one
// fstatat per entry relative to the folder handle, so no full path is resolved per entry.
// Regular files `needs_details` rejects are left out: asked by a path built in one reused
// buffer, they cost no allocation. Sets *has_entries when the folder holds anything (our temp
// files included).
Status WalkFolder(int dirfd, const std::string& abs_dir, const std::string& rel_dir, bool recursive,
                  const Storage::NeedsDetails& needs_details, std::vector<FileEntry>* out, bool* has_entries) {
  DIR* dir = ::fdopendir(dirfd);
  if (dir == nullptr) {
    int err = errno;
    ::close(dirfd);
    return ErrnoError("cannot list", abs_dir, err);
  }
  std::unique_ptr<DIR, int (*)(DIR*)> guard(dir, ::closedir);
  *has_entries = false;
  std::string asked = rel_dir.empty() ? std::string() : rel_dir + "/";  // "<rel_dir>/<name>", for needs_details
  const size_t asked_prefix = asked.size();
  for (;;) {
    errno = 0;  // readdir reports an error only through errno; skipped entries must not leak one
    struct dirent* e = ::readdir(dir);
    if (e == nullptr) {
      if (errno != 0) return ErrnoError("cannot list", abs_dir, errno);
      break;
    }
    const char* name = e->d_name;
    if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
    *has_entries = true;
    if (e->d_type == DT_REG && needs_details) {
      asked.resize(asked_prefix);
      asked.append(name);
      if (!needs_details(asked)) continue;  // a regular file whose details nobody needs
    }
    std::string rel = rel_dir.empty() ? std::string(name) : rel_dir + "/" + name;
    // A link to a folder is not listed (a listing never leaves the tree through one, and a
    // vacuum never sees a folder of live files as one untracked file); a link to a file is,
    // marked, so that a commit file linked into a log is read, not silently skipped.
    if (e->d_type == DT_LNK) {
      ListLinkedFile(dirfd, name, std::move(rel), out);
      continue;
    }
    struct stat st;
    if (::fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;  // deleted while listing
      return ErrnoError("cannot stat", abs_dir + "/" + name, errno);
    }
    if (S_ISLNK(st.st_mode)) {
      ListLinkedFile(dirfd, name, std::move(rel), out);
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      out->push_back({std::move(rel), static_cast<int64_t>(st.st_size), MtimeMs(st), false});
      continue;
    }
    if (!recursive) {
      out->push_back({std::move(rel), 0, MtimeMs(st), true});
      continue;
    }
    int sub = ::openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0) {
      if (errno == ENOENT) continue;
      return ErrnoError("cannot open folder", abs_dir + "/" + name, errno);
    }
    bool sub_has_entries = false;
    ARROW_RETURN_NOT_OK(
        WalkFolder(sub, abs_dir + "/" + name, rel, true, needs_details, out, &sub_has_entries));
    if (!sub_has_entries) out->push_back({std::move(rel), 0, MtimeMs(st), true});  // an empty folder
  }
  return Status::OK();
}
}  // namespace

Result<std::vector<FileEntry>> LocalStorage::List(std::string_view prefix, bool recursive) {
  return ListSkippingDetails(prefix, recursive, NeedsDetails());
}

Result<std::vector<FileEntry>> LocalStorage::ListSkippingDetails(std::string_view prefix, bool recursive,
                                                                 const NeedsDetails& needs_details) {
  ARROW_ASSIGN_OR_RAISE(auto rel_prefix, NormalizeRelativePath(prefix, true));
  std::string abs = rel_prefix.empty() ? root_ : JoinPath(root_, rel_prefix);
  std::vector<FileEntry> out;
  int fd = ::open(abs.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return out;  // a missing folder lists as empty
    return ErrnoError("cannot list", abs, errno);
  }
  bool has_entries = false;
  ARROW_RETURN_NOT_OK(WalkFolder(fd, abs, rel_prefix, recursive, needs_details, &out, &has_entries));
  // Where each link leads, when that is inside the tree (one realpath per link; links are rare).
  std::optional<std::string> real_root;
  for (auto& e : out) {
    if (!e.is_link) continue;
    if (!real_root) {
      auto resolved = RealPathOfLocal(root_);
      if (!resolved.ok()) return resolved.status();
      real_root = *resolved == "/" ? std::string("/") : *resolved + "/";
    }
    auto target = RealPathOfLocal(JoinPath(root_, e.path));
    if (!target.ok()) return target.status();
    if (target->rfind(*real_root, 0) == 0) e.link_target = target->substr(real_root->size());
  }
  return out;
}

LocalStorage::Folder& LocalStorage::Folder::operator=(Folder&& other) noexcept {
  if (this != &other) {
    if (fd >= 0) ::close(fd);
    state = other.state;
    fd = std::exchange(other.fd, -1);
  }
  return *this;
}

LocalStorage::Folder::~Folder() {
  if (fd >= 0) ::close(fd);
}

Result<LocalStorage::Folder> LocalStorage::OpenFolderNoFollow(const std::string& rel_folder) const {
  Folder out;
  int fd = ::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);  // the root itself may be a link
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return out;  // kMissing
    return ErrnoError("cannot open folder", root_, errno);
  }
  size_t start = 0;
  while (!rel_folder.empty() && start <= rel_folder.size()) {
    size_t end = rel_folder.find('/', start);
    if (end == std::string::npos) end = rel_folder.size();
    std::string name = rel_folder.substr(start, end - start);
    start = end + 1;
    int sub = ::openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int err = errno;
    ::close(fd);
    if (sub >= 0) {
      fd = sub;
      continue;
    }
    if (err == ENOENT) return out;  // kMissing
    if (err == ELOOP || err == ENOTDIR) {
      // ELOOP: the component is a symbolic link. ENOTDIR: a file, or a link to one; tell apart.
      out.state = Folder::kBehindLink;
      if (err == ENOTDIR) {
        struct stat st;
        std::string abs_parent = JoinPath(root_, rel_folder.substr(0, end));
        if (::lstat(abs_parent.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) out.state = Folder::kMissing;
      }
      return out;
    }
    return ErrnoError("cannot open folder", JoinPath(root_, rel_folder.substr(0, end)), err);
  }
  out.state = Folder::kOpen;
  out.fd = fd;
  return out;
}

Result<DeleteOutcome> LocalStorage::DeleteFiles(const std::vector<std::string>& paths) {
  // Validate everything before deleting anything.
  std::vector<std::string> rel_paths;
  rel_paths.reserve(paths.size());
  for (const auto& path : paths) {
    ARROW_ASSIGN_OR_RAISE(auto rel, NormalizeRelativePath(path));
    rel_paths.push_back(std::move(rel));
  }
  // One folder handle per run of paths in the same folder, opened without following links;
  // unlinkat resolves only the name.
  DeleteOutcome outcome;
  std::string open_folder;
  Folder folder;
  bool have_folder = false;
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::string& rel = rel_paths[i];
    std::string parent = ParentPath(rel);
    if (!have_folder || parent != open_folder) {
      folder = Folder();
      ARROW_ASSIGN_OR_RAISE(folder, OpenFolderNoFollow(parent));
      open_folder = parent;
      have_folder = true;
    }
    if (folder.state == Folder::kMissing) {
      ++outcome.already_gone;
      continue;
    }
    if (folder.state == Folder::kBehindLink) {
      outcome.refused_paths.push_back(paths[i]);
      continue;
    }
    std::string name(BaseName(rel));
    struct stat st;
    if (::fstatat(folder.fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
      outcome.refused_paths.push_back(paths[i]);  // a link is never deleted: it may lead to live files
      continue;
    }
    if (::unlinkat(folder.fd, name.c_str(), 0) == 0) {
      ++outcome.deleted;
      outcome.deleted_paths.push_back(paths[i]);
    } else if (errno == ENOENT || errno == ENOTDIR) {
      ++outcome.already_gone;
    } else {
      return ErrnoError("cannot delete", JoinPath(root_, rel), errno);
    }
  }
  return outcome;
}

Result<bool> LocalStorage::DeleteDirIfEmpty(std::string_view path) {
  ARROW_ASSIGN_OR_RAISE(auto rel, NormalizeRelativePath(path));
  ARROW_ASSIGN_OR_RAISE(Folder parent, OpenFolderNoFollow(ParentPath(rel)));
  if (parent.state != Folder::kOpen) return false;  // missing, or behind a link: not ours to remove
  std::string name(BaseName(rel));
  struct stat st;
  if (::fstatat(parent.fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode)) return false;
  if (::unlinkat(parent.fd, name.c_str(), AT_REMOVEDIR) == 0) return true;
  if (errno == ENOENT || errno == ENOTEMPTY || errno == EEXIST || errno == ENOTDIR) return false;
  return ErrnoError("cannot remove folder", JoinPath(root_, rel), errno);
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
