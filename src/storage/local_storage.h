// Local-filesystem backend of Storage.
#pragma once

#include <string>
#include <utility>

#include "lakeshore/storage/storage.h"

namespace lakeshore {

/// Storage over a local folder. WriteFile writes a temp file and renames it (atomic replace);
/// PutIfAbsent links a fully written temp file to the target with link(2), which fails if the
/// target exists, so a reader never sees a partial file and exactly one creator wins. A missing
/// folder is built under a hidden staging name with the new file in it and renamed into place,
/// so a concurrent DeleteDirIfEmpty can never remove it in between. Listing is one readdir pass
/// with fstatat per entry on the folder handle; deletes use unlinkat per folder handle.
class LocalStorage : public Storage {
 public:
  /// `root` is an absolute or relative folder path; it is created if missing.
  /// Files under `unsynced_folders` (relative) are not fsynced (see StorageOptions).
  static Result<std::shared_ptr<Storage>> Make(const std::string& root,
                                               std::vector<std::string> unsynced_folders = {});

  std::string root_uri() const override { return "file://" + root_; }
  std::string ExternalPath(std::string_view path) const override { return JoinPath(root_, path); }
  Result<std::shared_ptr<arrow::Buffer>> ReadFile(std::string_view path) override;
  Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInputFile(
      std::string_view path, std::optional<int64_t> size_hint) override;
  Status WriteFile(std::string_view path, std::shared_ptr<arrow::Buffer> data) override;
  /// Streams into a temp file; Close syncs and renames it into place.
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutputStream(std::string_view path) override;
  Result<bool> PutIfAbsent(std::string_view path, std::shared_ptr<arrow::Buffer> data) override;
  Result<std::optional<FileEntry>> GetFileInfo(std::string_view path) override;
  Result<std::vector<FileEntry>> List(std::string_view prefix, bool recursive) override;
  /// Regular files (by the directory entry's type) that `needs_details` rejects get no fstatat.
  Result<std::vector<FileEntry>> ListSkippingDetails(std::string_view prefix, bool recursive,
                                                     const NeedsDetails& needs_details) override;
  Result<DeleteOutcome> DeleteFiles(const std::vector<std::string>& paths) override;
  Result<bool> DeleteDirIfEmpty(std::string_view path) override;
  Status SetModificationTimeForTesting(std::string_view path, int64_t mtime_ms) override;

 private:
  LocalStorage(std::string root, std::vector<std::string> unsynced_folders)
      : root_(std::move(root)), unsynced_folders_(std::move(unsynced_folders)) {}
  // True when `abs` lies in an unsynced folder.
  bool NeedsSync(const std::string& abs) const;
  Result<std::string> Abs(std::string_view path, bool allow_root = false) const;
  // Creates `folder` (missing) holding a new empty file `temp_name`, atomically: built under a
  // hidden staging name and renamed into place. Returns the file's fd, or -1 if a race was
  // lost and the caller should retry.
  Result<int> CreateInFreshFolder(const std::string& folder, const std::string& temp_name) const;
  // Creates an empty temp file beside `abs` (creating folders); returns its fd and path.
  Result<std::pair<int, std::string>> CreateTemp(const std::string& abs) const;
  Result<std::string> WriteTemp(const std::string& abs, const arrow::Buffer& data) const;

  // A folder of the tree, opened without following symbolic links below the root (the root
  // itself may be a link). Owns its descriptor.
  struct Folder {
    enum State { kMissing, kBehindLink, kOpen } state = kMissing;
    int fd = -1;
    Folder() = default;
    Folder(Folder&& other) noexcept : state(other.state), fd(std::exchange(other.fd, -1)) {}
    Folder& operator=(Folder&& other) noexcept;
    Folder(const Folder&) = delete;
    Folder& operator=(const Folder&) = delete;
    ~Folder();
  };
  // Opens the folder `rel_folder` ("" is the root) one component at a time with O_NOFOLLOW:
  // kBehindLink if a component is a symbolic link, kMissing if one does not exist. Deletes go
  // through it, so nothing outside the tree is ever deleted through a link.
  Result<Folder> OpenFolderNoFollow(const std::string& rel_folder) const;

  std::string root_;  // absolute, no trailing '/'
  std::vector<std::string> unsynced_folders_;  // relative to root_
};

}  // namespace lakeshore
