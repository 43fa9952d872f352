#include "lakeshore/storage/storage.h"

#include <arrow/io/memory.h>

#include "storage/publish_on_close_stream.h"

#include <arrow/filesystem/s3fs.h>

#include "common/file_uri.h"
#include "storage/local_storage.h"
#include "storage/memory_storage.h"
#include "storage/s3_storage.h"

namespace lakeshore {

Result<std::shared_ptr<Storage>> Storage::Open(const std::string& uri,
                                               const StorageOptions& options) {
  if (uri.find('\0') != std::string::npos) {
    return Status::Invalid("storage URI '", std::string_view(uri.data(), uri.find('\0')),
                           "\\0...' contains a NUL byte; no file system path can");
  }
  if (uri.empty()) return Status::Invalid("empty storage URI; give a folder, file://, mem:// or s3:// URI");
  ARROW_ASSIGN_OR_RAISE(auto local, PathOfFileUri(uri));
  if (local) return LocalStorage::Make(std::string(*local), options.unsynced_folders);
  if (uri.rfind("mem://", 0) == 0) {
    std::string rest = uri.substr(6);
    size_t slash = rest.find('/');
    if (slash == std::string::npos) return MemoryStorage::Make(rest, "", options.clock);
    return MemoryStorage::Make(rest.substr(0, slash), rest.substr(slash + 1), options.clock);
  }
  if (uri.rfind("s3://", 0) == 0) return S3Storage::Make(uri, options);
  if (uri.find("://") != std::string::npos) {
    return Status::Invalid("unsupported storage URI '", uri,
                           "': expected a path, file://, mem:// or s3://");
  }
  return LocalStorage::Make(uri, options.unsynced_folders);
}

Result<std::vector<FileEntry>> Storage::ListSkippingDetails(std::string_view prefix, bool recursive,
                                                             const NeedsDetails&) {
  return List(prefix, recursive);
}

Status Storage::SetModificationTimeForTesting(std::string_view path, int64_t) {
  return Status::NotImplemented("setting the mtime of '", path, "' is not supported by ", root_uri());
}

Status FinalizeStorage() {
  if (arrow::fs::IsS3Initialized()) return arrow::fs::FinalizeS3();
  return Status::OK();
}

std::string Storage::ExternalPath(std::string_view path) const { return JoinPath(root_uri(), path); }

Result<bool> Storage::Exists(std::string_view path) {
  ARROW_ASSIGN_OR_RAISE(auto info, GetFileInfo(path));
  return info.has_value() && !info->is_dir;
}

namespace {
/// Buffers in memory; Close hands the buffer to Storage::WriteFile.
class WriteFileOnCloseStream : public PublishOnCloseStream {
 public:
  WriteFileOnCloseStream(Storage* storage, std::string path, std::shared_ptr<arrow::io::BufferOutputStream> buffer)
      : storage_(storage), path_(std::move(path)), buffer_(std::move(buffer)) {}

 protected:
  Status Append(const void* data, int64_t nbytes) override { return buffer_->Write(data, nbytes); }
  Status Publish() override {
    ARROW_ASSIGN_OR_RAISE(auto data, buffer_->Finish());
    return storage_->WriteFile(path_, std::move(data));
  }

 private:
  Storage* storage_;
  std::string path_;
  std::shared_ptr<arrow::io::BufferOutputStream> buffer_;
};
}  // namespace

Result<std::shared_ptr<arrow::io::OutputStream>> Storage::OpenOutputStream(std::string_view path) {
  ARROW_ASSIGN_OR_RAISE(auto rel, NormalizeRelativePath(path));
  ARROW_ASSIGN_OR_RAISE(auto buffer, arrow::io::BufferOutputStream::Create(1 << 20));
  return std::make_shared<WriteFileOnCloseStream>(this, std::move(rel), std::move(buffer));
}

Status Storage::WriteString(std::string_view path, std::string_view content) {
  return WriteFile(path, arrow::Buffer::FromString(std::string(content)));
}

Result<bool> Storage::PutIfAbsentString(std::string_view path, std::string_view content) {
  return PutIfAbsent(path, arrow::Buffer::FromString(std::string(content)));
}

Result<std::string> Storage::ReadString(std::string_view path) {
  ARROW_ASSIGN_OR_RAISE(auto buffer, ReadFile(path));
  return buffer->ToString();
}

Result<std::string> NormalizeRelativePath(std::string_view path, bool allow_root) {
  if (path.find('\0') != std::string_view::npos) {
    return PathOutsideTable("path '" + std::string(path.substr(0, path.find('\0'))) + "\\0...' contains a NUL byte");
  }
  std::string_view p = path;
  while (p.rfind("./", 0) == 0) p.remove_prefix(2);
  while (!p.empty() && p.back() == '/') p.remove_suffix(1);
  if (!path.empty() && path.front() == '/') {
    return PathOutsideTable("path '" + std::string(path) + "' is absolute; expected a path relative to the table root");
  }
  if (p.empty()) {
    if (allow_root) return std::string();
    return PathOutsideTable("empty path where a file inside the table was expected");
  }
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find('/', start);
    if (end == std::string_view::npos) end = p.size();
    std::string_view seg = p.substr(start, end - start);
    if (seg.empty() || seg == "..") {
      return PathOutsideTable("path '" + std::string(path) +
                              "' has an empty or '..' segment and would leave the table root");
    }
    start = end + 1;
  }
  return std::string(p);
}

std::optional<std::string> LexicallyNormalPath(std::string_view path) {
  std::vector<std::string_view> segments;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view seg = path.substr(start, end - start);
    start = end + 1;
    if (seg.empty() || seg == ".") continue;
    if (seg == "..") {
      if (segments.empty()) return std::nullopt;
      segments.pop_back();
      continue;
    }
    segments.push_back(seg);
  }
  std::string out = !path.empty() && path.front() == '/' ? "/" : "";
  for (size_t i = 0; i < segments.size(); ++i) {
    if (i > 0) out.push_back('/');
    out.append(segments[i]);
  }
  return out;
}

bool IsStagedWriteName(std::string_view name) {
  if (name.size() < 2 || name.front() != '.') return false;
  std::string_view suffix;
  for (std::string_view marker : {kStagedFileMarker, kStagedFolderMarker}) {
    const size_t at = name.rfind(marker);
    if (at != std::string_view::npos && at > 1) {  // `.` and a name of at least one byte first
      suffix = name.substr(at + marker.size());
      break;
    }
  }
  // <pid>.<n>.<r>: three dot-separated runs of digits.
  int groups = 0;
  bool in_digits = false;
  for (char c : suffix) {
    if (c >= '0' && c <= '9') {
      if (!in_digits) ++groups;
      in_digits = true;
    } else if (c == '.' && in_digits) {
      in_digits = false;
    } else {
      return false;
    }
  }
  return groups == 3 && in_digits;
}

std::string JoinPath(std::string_view a, std::string_view b) {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  std::string out(a);
  if (out.back() != '/') out.push_back('/');
  out.append(b.front() == '/' ? b.substr(1) : b);
  return out;
}

std::string ParentPath(std::string_view path) {
  size_t pos = path.rfind('/');
  return pos == std::string_view::npos ? std::string() : std::string(path.substr(0, pos));
}

std::string_view BaseName(std::string_view path) {
  size_t pos = path.rfind('/');
  return pos == std::string_view::npos ? path : path.substr(pos + 1);
}

}  // namespace lakeshore
