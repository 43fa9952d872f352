#include "write/blob_location.h"

#include <filesystem>
#include <optional>
#include <system_error>

#include "common/file_uri.h"
#include "common/percent_encoding.h"
#include "storage/local_real_path.h"
#include "table/hidden_names.h"

namespace lakeshore {
namespace {

/// A URI's "<scheme>://<path>", its query dropped and "." and ".." resolved (never above its
/// first segment, the bucket); nullopt for text that is no such URI.
std::optional<std::string> UriPlace(std::string_view text) {
  const size_t scheme = text.find("://");
  if (scheme == std::string_view::npos || text.find('/') < scheme) return std::nullopt;
  std::string_view rest = text.substr(scheme + 3);
  rest = rest.substr(0, rest.find('?'));  // options of the table's storage, not of the place
  std::vector<std::string_view> segments;
  size_t start = 0;
  while (start <= rest.size()) {
    size_t end = rest.find('/', start);
    if (end == std::string_view::npos) end = rest.size();
    const std::string_view seg = rest.substr(start, end - start);
    if (seg == "..") {
      if (segments.size() > 1) segments.pop_back();
    } else if (!seg.empty() && seg != ".") {
      segments.push_back(seg);
    }
    start = end + 1;
  }
  std::string out(text.substr(0, scheme + 3));
  for (size_t i = 0; i < segments.size(); ++i) {
    if (i > 0) out.push_back('/');
    out.append(segments[i]);
  }
  return out;
}

/// `path` absolute ("." and ".." resolved), its symbolic links resolved as far as it exists
/// (RealPathOfLocal), no trailing '/'.
Result<std::string> Resolved(const std::filesystem::path& path) {
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(path, error);
  if (error) return Status::IOError("cannot make '", path.string(), "' absolute: ", error.message());
  std::string normal = absolute.lexically_normal().string();
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return RealPathOfLocal(normal);
}

}  // namespace

Result<BlobPlacement> BlobPlacement::For(const std::string& table_root, std::vector<std::string> partition_columns) {
  BlobPlacement out;
  out.partition_columns_ = std::move(partition_columns);
  if (table_root.empty()) return out;
  ARROW_ASSIGN_OR_RAISE(out.root_, out.Place(table_root));
  return out;
}

Result<std::string> BlobPlacement::Place(std::string_view text) {
  // A file URI of another host is a place apart, as any other URI is.
  auto file_path = PathOfFileUri(text);
  const bool local_uri = file_path.ok() && file_path->has_value();
  if (local_uri) {
    text = **file_path;
  } else if (auto uri = UriPlace(text)) {
    return *uri;
  }
  std::string path(text);
  if (local_uri) {
    ARROW_ASSIGN_OR_RAISE(path, PercentDecode(text));
  }
  const std::filesystem::path local(path);
  std::error_code error;
  // A file that is itself a link is resolved whole; else its folder, once per folder.
  if (std::filesystem::is_symlink(local, error)) return Resolved(local);
  const std::string name = local.filename().string();
  if (name.empty() || name == "." || name == "..") return Resolved(local);
  const std::string folder = local.parent_path().string();
  auto it = folders_.find(folder);
  if (it == folders_.end()) {
    ARROW_ASSIGN_OR_RAISE(auto place, Resolved(folder.empty() ? "." : folder));
    it = folders_.emplace(folder, std::move(place)).first;
  }
  return it->second == "/" ? "/" + name : it->second + "/" + name;
}

Status BlobPlacement::Check(std::string_view blob_path) {
  if (root_.empty()) return Status::OK();
  ARROW_ASSIGN_OR_RAISE(const std::string blob, Place(blob_path));
  if (blob.size() <= root_.size() || blob.compare(0, root_.size(), root_) != 0 || blob[root_.size()] != '/') {
    return Status::OK();
  }
  const std::string_view inside = std::string_view(blob).substr(root_.size() + 1);
  size_t start = 0;
  while (start < inside.size()) {
    const size_t end = inside.find('/', start);
    if (end == std::string_view::npos) break;  // the file's own name does not hide it
    if (IsHiddenName(inside.substr(start, end - start), partition_columns_, /*hide_metadata=*/false)) {
      return Status::OK();
    }
    start = end + 1;
  }
  return Status::Invalid("references '", blob_path, "', inside the table where a vacuum may delete it: keep blobs "
                         "outside the table, or under a hidden folder of it (a name starting with '_' or '.', such "
                         "as _blobs/)");
}

}  // namespace lakeshore
