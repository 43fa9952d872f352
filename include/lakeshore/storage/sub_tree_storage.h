// A Storage over a folder of another Storage (Arrow's SubTreeFileSystem idea): a table is a sub-tree
// of a storage root, and a table inside a table (Hudi's metadata table at .hoodie/metadata) is a
// sub-tree of its parent's.
#pragma once

#include <memory>
#include <string>

#include "lakeshore/storage/storage.h"

namespace lakeshore {

/// Every path is `prefix/path` in the base storage; listings come back relative to the prefix.
/// The base's contract holds unchanged (atomic replace, put-if-absent, idempotent deletes,
/// refused links), so decorators compose: fault injection over a sub-tree, a sub-tree over S3.
class SubTreeStorage : public Storage {
 public:
  /// The sub-tree `prefix` (a plain relative folder, normalized) of `base`. kPathOutsideTable
  /// for a prefix that is not a plain relative path; Invalid for a null base.
  static Result<std::shared_ptr<Storage>> Make(std::shared_ptr<Storage> base, std::string_view prefix);

  const std::shared_ptr<Storage>& base() const { return base_; }
  const std::string& prefix() const { return prefix_; }

  std::string root_uri() const override;
  std::string ExternalPath(std::string_view path) const override;
  Result<std::shared_ptr<arrow::Buffer>> ReadFile(std::string_view path) override;
  Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInputFile(
      std::string_view path, std::optional<int64_t> size_hint = std::nullopt) override;
  Status WriteFile(std::string_view path, std::shared_ptr<arrow::Buffer> data) override;
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutputStream(std::string_view path) override;
  Result<bool> PutIfAbsent(std::string_view path, std::shared_ptr<arrow::Buffer> data) override;
  Result<std::optional<FileEntry>> GetFileInfo(std::string_view path) override;
  Result<std::vector<FileEntry>> List(std::string_view prefix, bool recursive) override;
  Result<std::vector<FileEntry>> ListSkippingDetails(std::string_view prefix, bool recursive,
                                                     const NeedsDetails& needs_details) override;
  Result<DeleteOutcome> DeleteFiles(const std::vector<std::string>& paths) override;
  Result<bool> DeleteDirIfEmpty(std::string_view path) override;
  Status SetModificationTimeForTesting(std::string_view path, int64_t mtime_ms) override;

 private:
  SubTreeStorage(std::shared_ptr<Storage> base, std::string prefix) : base_(std::move(base)), prefix_(std::move(prefix)) {}
  /// `path` in the base, after the same normalization every backend applies.
  Result<std::string> Full(std::string_view path, bool allow_root = false) const;
  /// A base path under the prefix, relative to it again.
  std::string Relative(const std::string& base_path) const;
  std::vector<FileEntry> Strip(std::vector<FileEntry> entries) const;

  std::shared_ptr<Storage> base_;
  std::string prefix_;
};

}  // namespace lakeshore
