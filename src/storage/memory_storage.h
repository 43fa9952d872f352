// In-memory backend of Storage: process-wide named trees, for tests and ephemeral tables.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "lakeshore/storage/storage.h"

namespace lakeshore {

/// Storage over a named in-memory tree. `mem://name/prefix` opens the tree `name` of a
/// process-wide registry, rooted at `prefix`, so two opens of the same name see the same files.
/// Thread-safe: every call holds the tree's mutex, so each is atomic (WriteFile replaces the
/// buffer in one step; PutIfAbsent checks and inserts in one step). Folders are implied by their
/// files, as on object stores: an emptied folder disappears and DeleteDirIfEmpty is a no-op.
/// Writing a file where a folder is, or under a file, is an IOError, as on a local disk.
/// mtimes come from StorageOptions::clock. Memory is held until the tree is forgotten.
class MemoryStorage : public Storage {
 public:
  /// Opens (creating if needed) the tree `name`, rooted at the relative folder `prefix`.
  static Result<std::shared_ptr<Storage>> Make(const std::string& name, const std::string& prefix,
                                               std::shared_ptr<Clock> clock);

  /// Drops the tree `name` from the registry; storages already open keep their files, later
  /// opens start empty. Returns true if the tree existed.
  static bool ForgetTree(const std::string& name);

  std::string root_uri() const override;
  Result<std::shared_ptr<arrow::Buffer>> ReadFile(std::string_view path) override;
  Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInputFile(
      std::string_view path, std::optional<int64_t> size_hint) override;
  Status WriteFile(std::string_view path, std::shared_ptr<arrow::Buffer> data) override;
  Result<bool> PutIfAbsent(std::string_view path, std::shared_ptr<arrow::Buffer> data) override;
  Result<std::optional<FileEntry>> GetFileInfo(std::string_view path) override;
  Result<std::vector<FileEntry>> List(std::string_view prefix, bool recursive) override;
  Result<DeleteOutcome> DeleteFiles(const std::vector<std::string>& paths) override;
  Result<bool> DeleteDirIfEmpty(std::string_view path) override;
  Status SetModificationTimeForTesting(std::string_view path, int64_t mtime_ms) override;

  /// One stored file: an immutable buffer (replaced whole on overwrite) and its mtime.
  struct File {
    std::shared_ptr<arrow::Buffer> data;
    int64_t mtime_ms = 0;
  };
  /// One named tree: full key ("prefix/rel") → file.
  struct Tree {
    std::mutex mu;
    std::map<std::string, File> files;
  };

 private:
  MemoryStorage(std::string name, std::string prefix, std::shared_ptr<Tree> tree,
                std::shared_ptr<Clock> clock)
      : name_(std::move(name)), prefix_(std::move(prefix)), tree_(std::move(tree)), clock_(std::move(clock)) {}
  Result<std::string> Key(std::string_view path, bool allow_root = false) const;
  // Refuses to place a file at `key` if a folder is there or an ancestor is a file. Holds mu.
  Status CheckPlaceable(const std::string& key, std::string_view path) const;
  Status Store(const std::string& key, std::shared_ptr<arrow::Buffer> data);

  std::string name_;
  std::string prefix_;
  std::shared_ptr<Tree> tree_;
  std::shared_ptr<Clock> clock_;
};

}  // namespace lakeshore
