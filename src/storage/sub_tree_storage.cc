#include "lakeshore/storage/sub_tree_storage.h"

namespace lakeshore {

Result<std::shared_ptr<Storage>> SubTreeStorage::Make(std::shared_ptr<Storage> base, std::string_view prefix) {
  if (base == nullptr) return Status::Invalid("a sub-tree needs a base storage");
  ARROW_ASSIGN_OR_RAISE(std::string normal, NormalizeRelativePath(prefix));
  return std::shared_ptr<Storage>(new SubTreeStorage(std::move(base), std::move(normal)));
}

Result<std::string> SubTreeStorage::Full(std::string_view path, bool allow_root) const {
  ARROW_ASSIGN_OR_RAISE(std::string normal, NormalizeRelativePath(path, allow_root));
  return normal.empty() ? prefix_ : JoinPath(prefix_, normal);
}

std::string SubTreeStorage::Relative(const std::string& base_path) const {
  if (base_path.size() > prefix_.size() && base_path.compare(0, prefix_.size(), prefix_) == 0 &&
      base_path[prefix_.size()] == '/') {
    return base_path.substr(prefix_.size() + 1);
  }
  return base_path;
}

std::vector<FileEntry> SubTreeStorage::Strip(std::vector<FileEntry> entries) const {
  for (auto& e : entries) e.path = Relative(e.path);
  return entries;
}

std::string SubTreeStorage::root_uri() const { return JoinPath(base_->root_uri(), prefix_); }

std::string SubTreeStorage::ExternalPath(std::string_view path) const {
  return base_->ExternalPath(path.empty() ? std::string_view(prefix_) : std::string_view(JoinPath(prefix_, path)));
}

Result<std::shared_ptr<arrow::Buffer>> SubTreeStorage::ReadFile(std::string_view path) {
  ARROW_ASSIGN_OR_RAISE(auto full, Full(path));
  return base_->ReadFile(full);
}

Result<std::shared_ptr<arrow::io::RandomAccessFile>> SubTreeStorage::OpenInputFile(std::string_view path,
                                                                                   std::optional<int64_t> size_hint) {
  ARROW_ASSIGN_OR_RAISE(auto full, Full(path));
  return base_->OpenInputFile(full, size_hint);
}

Status SubTreeStorage::WriteFile(std::string_view path, std::shared_ptr<arrow::Buffer> data) {
  ARROW_ASSIGN_OR_RAISE(auto full, Full(path));
  return base_->WriteFile(full, std::move(data));
}

Result<std::shared_ptr<arrow::io::OutputStream>> SubTreeStorage::OpenOutputStream(std::string_view path) {
  ARROW_ASSIGN_OR_RAISE(auto full, Full(path));
  return base_->OpenOutputStream(full);
}

Result<bool> SubTreeStorage::PutIfAbsent(std::string_view path, std::shared_ptr<arrow::Buffer> data) {
  ARROW_ASSIGN_OR_RAISE(auto full, Full(path));
  return base_->PutIfAbsent(full, std::move(data));
}

Result<std::optional<FileEntry>> SubTreeStorage::GetFileInfo(std::string_view path) {
  ARROW_ASSIGN_OR_RAISE(auto full, Full(path, /*allow_root=*/true));
  ARROW_ASSIGN_OR_RAISE(auto info, base_->GetFileInfo(full));
  if (info) info->path = Relative(info->path);
  return info;
}

Result<std::vector<FileEntry>> SubTreeStorage::List(std::string_view prefix, bool recursive) {
  ARROW_ASSIGN_OR_RAISE(auto full, Full(prefix, /*allow_root=*/true));
  ARROW_ASSIGN_OR_RAISE(auto entries, base_->List(full, recursive));
  return Strip(std::move(entries));
}

Result<std::vector<FileEntry>> SubTreeStorage::ListSkippingDetails(std::string_view prefix, bool recursive,
                                                                   const NeedsDetails& needs_details) {
  ARROW_ASSIGN_OR_RAISE(auto full, Full(prefix, /*allow_root=*/true));
  NeedsDetails relative_needs;
  if (needs_details) {
    relative_needs = [this, &needs_details](std::string_view base_path) {
      return needs_details(Relative(std::string(base_path)));
    };
  }
  ARROW_ASSIGN_OR_RAISE(auto entries, base_->ListSkippingDetails(full, recursive, relative_needs));
  return Strip(std::move(entries));
}

Result<DeleteOutcome> SubTreeStorage::DeleteFiles(const std::vector<std::string>& paths) {
  std::vector<std::string> full;
  full.reserve(paths.size());
  for (const auto& p : paths) {
    ARROW_ASSIGN_OR_RAISE(auto f, Full(p));
    full.push_back(std::move(f));
  }
  ARROW_ASSIGN_OR_RAISE(auto outcome, base_->DeleteFiles(full));
  for (auto& p : outcome.deleted_paths) p = Relative(p);
  for (auto& p : outcome.refused_paths) p = Relative(p);
  return outcome;
}

Result<bool> SubTreeStorage::DeleteDirIfEmpty(std::string_view path) {
  ARROW_ASSIGN_OR_RAISE(auto full, Full(path));
  return base_->DeleteDirIfEmpty(full);
}

Status SubTreeStorage::SetModificationTimeForTesting(std::string_view path, int64_t mtime_ms) {
  ARROW_ASSIGN_OR_RAISE(auto full, Full(path));
  return base_->SetModificationTimeForTesting(full, mtime_ms);
}

}  // namespace lakeshore
