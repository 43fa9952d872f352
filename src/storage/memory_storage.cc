#include "storage/memory_storage.h"

#include <unordered_map>

#include <arrow/io/memory.h>

namespace lakeshore {
namespace {

struct Registry {
  std::mutex mu;
  std::unordered_map<std::string, std::shared_ptr<MemoryStorage::Tree>> trees;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();  // never destroyed: usable during exit
  return *registry;
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

}  // namespace

Result<std::shared_ptr<Storage>> MemoryStorage::Make(const std::string& name, const std::string& prefix,
                                                     std::shared_ptr<Clock> clock) {
  if (name.empty()) return Status::Invalid("mem:// storage needs a tree name: mem://name[/prefix]");
  ARROW_ASSIGN_OR_RAISE(auto rel_prefix, NormalizeRelativePath(prefix, /*allow_root=*/true));
  auto& registry = GetRegistry();
  std::shared_ptr<Tree> tree;
  {
    std::lock_guard<std::mutex> lock(registry.mu);
    auto& slot = registry.trees[name];
    if (!slot) slot = std::make_shared<Tree>();
    tree = slot;
  }
  if (!clock) clock = Clock::System();
  return std::shared_ptr<Storage>(new MemoryStorage(name, rel_prefix, std::move(tree), std::move(clock)));
}

bool MemoryStorage::ForgetTree(const std::string& name) {
  auto& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  return registry.trees.erase(name) > 0;
}

std::string MemoryStorage::root_uri() const {
  return "mem://" + name_ + (prefix_.empty() ? "" : "/" + prefix_);
}

Result<std::string> MemoryStorage::Key(std::string_view path, bool allow_root) const {
  ARROW_ASSIGN_OR_RAISE(auto rel, NormalizeRelativePath(path, allow_root));
  return JoinPath(prefix_, rel);
}

Result<std::shared_ptr<arrow::Buffer>> MemoryStorage::ReadFile(std::string_view path) {
  ARROW_ASSIGN_OR_RAISE(auto key, Key(path));
  std::lock_guard<std::mutex> lock(tree_->mu);
  auto it = tree_->files.find(key);
  if (it == tree_->files.end()) {
    return Status::IOError("cannot read '", path, "' in ", root_uri(), ": no such file");
  }
  return it->second.data;
}

Result<std::shared_ptr<arrow::io::RandomAccessFile>> MemoryStorage::OpenInputFile(
    std::string_view path, std::optional<int64_t>) {
  ARROW_ASSIGN_OR_RAISE(auto data, ReadFile(path));
  // The reader keeps this version's buffer: a later overwrite does not change what it reads.
  return std::make_shared<arrow::io::BufferReader>(std::move(data));
}

Status MemoryStorage::CheckPlaceable(const std::string& key, std::string_view path) const {
  for (size_t pos = key.find('/'); pos != std::string::npos; pos = key.find('/', pos + 1)) {
    if (tree_->files.count(key.substr(0, pos)) > 0) {
      return Status::IOError("cannot write '", path, "' in ", root_uri(), ": its parent '",
                             key.substr(0, pos), "' is a file");
    }
  }
  auto it = tree_->files.lower_bound(key + "/");
  if (it != tree_->files.end() && StartsWith(it->first, key + "/")) {
    return Status::IOError("cannot write '", path, "' in ", root_uri(), ": it is a folder");
  }
  return Status::OK();
}

Status MemoryStorage::Store(const std::string& key, std::shared_ptr<arrow::Buffer> data) {
  if (data->is_mutable()) {
    // The caller could change a mutable buffer later; keep our own copy.
    ARROW_ASSIGN_OR_RAISE(data, data->CopySlice(0, data->size()));
  }
  tree_->files[key] = File{std::move(data), clock_->NowMs()};
  return Status::OK();
}

Status MemoryStorage::WriteFile(std::string_view path, std::shared_ptr<arrow::Buffer> data) {
  ARROW_ASSIGN_OR_RAISE(auto key, Key(path));
  std::lock_guard<std::mutex> lock(tree_->mu);
  ARROW_RETURN_NOT_OK(CheckPlaceable(key, path));
  return Store(key, std::move(data));
}

Result<bool> MemoryStorage::PutIfAbsent(std::string_view path, std::shared_ptr<arrow::Buffer> data) {
  ARROW_ASSIGN_OR_RAISE(auto key, Key(path));
  std::lock_guard<std::mutex> lock(tree_->mu);
  if (tree_->files.count(key) > 0) return false;
  ARROW_RETURN_NOT_OK(CheckPlaceable(key, path));
  ARROW_RETURN_NOT_OK(Store(key, std::move(data)));
  return true;
}

Result<std::optional<FileEntry>> MemoryStorage::GetFileInfo(std::string_view path) {
  ARROW_ASSIGN_OR_RAISE(auto rel, NormalizeRelativePath(path, /*allow_root=*/true));
  std::string key = JoinPath(prefix_, rel);
  std::lock_guard<std::mutex> lock(tree_->mu);
  if (rel.empty()) return std::optional<FileEntry>(FileEntry{"", 0, 0, true});
  auto it = tree_->files.find(key);
  if (it != tree_->files.end()) {
    return std::optional<FileEntry>(FileEntry{rel, it->second.data->size(), it->second.mtime_ms, false});
  }
  it = tree_->files.lower_bound(key + "/");
  if (it != tree_->files.end() && StartsWith(it->first, key + "/")) {
    return std::optional<FileEntry>(FileEntry{rel, 0, 0, true});
  }
  return std::optional<FileEntry>();
}

Result<std::vector<FileEntry>> MemoryStorage::List(std::string_view prefix, bool recursive) {
  ARROW_ASSIGN_OR_RAISE(auto rel_prefix, NormalizeRelativePath(prefix, /*allow_root=*/true));
  std::string base = JoinPath(prefix_, rel_prefix);
  std::string start = base.empty() ? "" : base + "/";
  size_t strip = prefix_.empty() ? 0 : prefix_.size() + 1;  // key → path relative to the root
  std::vector<FileEntry> out;
  std::lock_guard<std::mutex> lock(tree_->mu);
  std::string last_dir;
  for (auto it = tree_->files.lower_bound(start); it != tree_->files.end() && StartsWith(it->first, start); ++it) {
    const std::string& key = it->first;
    size_t slash = key.find('/', start.size());
    if (recursive || slash == std::string::npos) {
      out.push_back({key.substr(strip), it->second.data->size(), it->second.mtime_ms, false});
    } else if (std::string dir = key.substr(0, slash); dir != last_dir) {
      // Keys under one child folder are contiguous in sorted order.
      out.push_back({dir.substr(strip), 0, 0, true});
      last_dir = std::move(dir);
    }
  }
  return out;
}

Result<DeleteOutcome> MemoryStorage::DeleteFiles(const std::vector<std::string>& paths) {
  std::vector<std::string> keys;
  keys.reserve(paths.size());
  for (const auto& p : paths) {
    ARROW_ASSIGN_OR_RAISE(auto key, Key(p));
    keys.push_back(std::move(key));
  }
  DeleteOutcome outcome;
  std::lock_guard<std::mutex> lock(tree_->mu);
  for (size_t i = 0; i < keys.size(); ++i) {
    if (tree_->files.erase(keys[i]) > 0) {
      ++outcome.deleted;
      outcome.deleted_paths.push_back(paths[i]);
    } else {
      ++outcome.already_gone;
    }
  }
  return outcome;
}

Result<bool> MemoryStorage::DeleteDirIfEmpty(std::string_view path) {
  ARROW_RETURN_NOT_OK(Key(path).status());
  return false;
}

Status MemoryStorage::SetModificationTimeForTesting(std::string_view path, int64_t mtime_ms) {
  ARROW_ASSIGN_OR_RAISE(auto key, Key(path));
  std::lock_guard<std::mutex> lock(tree_->mu);
  auto it = tree_->files.find(key);
  if (it == tree_->files.end()) {
    return Status::IOError("cannot set the mtime of '", path, "' in ", root_uri(), ": no such file");
  }
  it->second.mtime_ms = mtime_ms;
  return Status::OK();
}

}  // namespace lakeshore
