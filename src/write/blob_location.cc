#include "write/blob_location.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <system_error>

#include "common/file_uri.h"
#include "common/percent_encoding.h"
#include "storage/local_real_path.h"
#include "table/hidden_names.h"

namespace lakeshore {
namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

/// A URI's "<scheme>://<path>": the scheme lower-cased and its synonyms folded (s3a, s3n → s3;
/// gcs → gs), the query dropped, the path percent-decoded and "." and ".." resolved (never
/// above its first segment, the bucket); nullopt for text that is no such URI.
Result<std::optional<std::string>> UriPlace(std::string_view text) {
  const size_t scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos || scheme_end == 0 || text.find('/') < scheme_end) {
    return std::optional<std::string>();
  }
  std::string scheme = Lower(text.substr(0, scheme_end));
  if (scheme == "s3a" || scheme == "s3n") scheme = "s3";
  if (scheme == "gcs") scheme = "gs";
  std::string_view rest = text.substr(scheme_end + 3);
  rest = rest.substr(0, rest.find('?'));  // options of the table's storage, not of the place
  // An object key may hold a '%' that escapes nothing ("50%off.jpg"): then it names itself.
  auto unescaped = PercentDecode(rest);
  const std::string decoded = unescaped.ok() ? std::move(*unescaped) : std::string(rest);
  if (decoded.find('\0') != std::string::npos) return Status::Invalid("holds an escaped NUL byte (%00)");
  std::vector<std::string_view> segments;
  const std::string_view path(decoded);
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view seg = path.substr(start, end - start);
    if (seg == "..") {
      if (segments.size() > 1) segments.pop_back();
    } else if (!seg.empty() && seg != ".") {
      segments.push_back(seg);
    }
    start = end + 1;
  }
  std::string out = scheme + "://";
  for (size_t i = 0; i < segments.size(); ++i) {
    if (i > 0) out.push_back('/');
    out.append(segments[i]);
  }
  return std::optional<std::string>(std::move(out));
}

/// The absolute local `path` with its symbolic links resolved as the operating system reads it
/// (a link's ".." leaves the link's target), as far as it exists; the missing rest, which holds
/// no link, has its "." and ".." resolved as text. No trailing '/'.
Result<std::string> Resolved(const std::string& path) {
  ARROW_ASSIGN_OR_RAISE(std::string real, RealPathOfLocal(path));
  std::string normal = std::filesystem::path(real).lexically_normal().string();
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return normal;
}

bool IsFolder(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool IsFile(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string ParentOf(const std::string& place) {
  const size_t slash = place.rfind('/');
  if (slash == std::string::npos || slash == 0) return "/";
  return place.substr(0, slash);
}

}  // namespace

Result<BlobPlacement> BlobPlacement::For(const std::string& table_root, std::vector<std::string> partition_columns) {
  BlobPlacement out;
  out.partition_columns_ = std::move(partition_columns);
  if (table_root.empty()) return out;
  bool local = false;
  // The root may be relative: it is the caller's own folder argument, read in its directory.
  if (table_root.find(':') == std::string::npos && table_root.front() != '/') {
    std::error_code error;
    const auto absolute = std::filesystem::absolute(table_root, error);
    if (error) return Status::IOError("cannot make '", table_root, "' absolute: ", error.message());
    ARROW_ASSIGN_OR_RAISE(out.root_, out.Place(absolute.string(), &local));
  } else {
    ARROW_ASSIGN_OR_RAISE(out.root_, out.Place(table_root, &local));
  }
  return out;
}

Result<std::string> BlobPlacement::Place(std::string_view text, bool* local) {
  *local = false;
  if (text.find('\0') != std::string_view::npos) return Status::Invalid("holds a NUL byte");
  // `local:` is pyarrow's name for the local file system; file: URIs read as PathOfFileUri.
  std::string path;
  const std::string lower_start = Lower(text.substr(0, 6));
  if (lower_start.rfind("local:", 0) == 0 || lower_start.rfind("file:", 0) == 0) {
    std::string as_file = "file:" + std::string(text.substr(text.find(':') + 1));
    ARROW_ASSIGN_OR_RAISE(auto file_path, PathOfFileUri(as_file));
    if (!file_path) return Status::Invalid("is not a file URI");
    auto decoded = PercentDecode(*file_path);
    if (!decoded.ok()) return Status::Invalid("is a file URI with a ", decoded.status().message());
    path = std::move(*decoded);
    if (path.find('\0') != std::string::npos) return Status::Invalid("holds an escaped NUL byte (%00)");
  } else {
    ARROW_ASSIGN_OR_RAISE(auto uri, UriPlace(text));
    if (uri) return std::move(*uri);
    path.assign(text);
  }
  if (path.empty() || path.front() != '/') {
    return Status::Invalid("is neither an absolute path nor a URI: readers in different folders would read "
                           "different files");
  }
  *local = true;
  // A file that is itself a link is resolved whole; else its folder, once per folder.
  const std::filesystem::path file(path);
  std::error_code error;
  if (std::filesystem::is_symlink(file, error)) return Resolved(path);
  const std::string name = file.filename().string();
  if (name.empty() || name == "." || name == "..") return Resolved(path);
  const std::string folder = file.parent_path().string();
  auto it = folders_.find(folder);
  if (it == folders_.end()) {
    ARROW_ASSIGN_OR_RAISE(auto place, Resolved(folder.empty() ? "/" : folder));
    it = folders_.emplace(folder, std::move(place)).first;
  }
  return it->second == "/" ? "/" + name : it->second + "/" + name;
}

const std::string& BlobPlacement::TableAround(const std::string& folder) {
  auto it = tables_.find(folder);
  if (it != tables_.end()) return it->second;
  std::string table;
  if (folder == root_) {
    table = root_;
  } else if (IsFile(folder + "/.hoodie/hoodie.properties") || IsFolder(folder + "/_delta_log")) {
    table = folder;
  } else if (folder != "/") {
    table = TableAround(ParentOf(folder));
  }
  return tables_.emplace(folder, std::move(table)).first->second;
}

Status BlobPlacement::Check(std::string_view blob_path) {
  auto refused = [&](const std::string& why) {
    return Status::Invalid("references '", blob_path, "', which ", why);
  };
  bool local = false;
  auto placed = Place(blob_path, &local);
  if (!placed.ok()) {
    if (!placed.status().IsInvalid()) return placed.status();
    return refused(placed.status().message());
  }
  const std::string& blob = *placed;
  // The name as written: "x/..", "x/." and "x/" name folders whatever they resolve to.
  const std::string_view written = blob_path.substr(0, local ? blob_path.size() : blob_path.find('?'));
  const std::string_view name = written.substr(written.rfind('/') == std::string_view::npos ? 0 : written.rfind('/') + 1);
  if (name.empty() || name == "." || name == ".." || blob.empty() || blob.back() == '/' ||
      (blob.size() >= 3 && blob.compare(blob.size() - 3, 3, "://") == 0)) {
    return refused("names a folder, not a file");
  }
  if (root_.empty()) return Status::OK();
  std::string table;
  if (local) {
    table = TableAround(ParentOf(blob));
  } else if (blob.size() > root_.size() && blob.compare(0, root_.size(), root_) == 0 && blob[root_.size()] == '/') {
    table = root_;
  }
  if (table.empty()) return Status::OK();
  const std::string_view inside = std::string_view(blob).substr(table == "/" ? 1 : table.size() + 1);
  const std::string whose = table == root_ ? "the table" : "the table at '" + table + "'";
  const size_t slash = inside.find('/');
  if (slash == std::string_view::npos) {
    return refused("lies in " + whose + "'s root folder, where a vacuum may delete it: keep blobs outside the "
                   "table, or in a hidden folder directly below its root (a name starting with '_' or '.', such as "
                   "_blobs/)");
  }
  const std::string_view top = inside.substr(0, slash);
  if (top == ".hoodie" || top == "_delta_log") {
    return refused("lies in " + whose + "'s metadata folder '" + std::string(top) +
                   "', which table services rewrite and delete");
  }
  const std::vector<std::string> no_columns;
  // Staged-write names count as visible whatever the table's format: the stricter answer.
  if (!IsHiddenName(top, table == root_ ? partition_columns_ : no_columns, /*hide_metadata=*/false,
                    /*staged_writes_visible=*/true)) {
    return refused("lies inside " + whose + " where a vacuum may delete it (or, within a partition folder, makes "
                   "readers skip the partition): keep blobs outside the table, or in a hidden folder directly "
                   "below its root (a name starting with '_' or '.', such as _blobs/)");
  }
  return Status::OK();
}

}  // namespace lakeshore
