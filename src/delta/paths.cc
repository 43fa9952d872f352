#include "delta/paths.h"

#include <array>
#include <cstdio>

#include "common/percent_encoding.h"
#include "lakeshore/storage/storage.h"
#include "storage/local_real_path.h"

namespace lakeshore::delta {
namespace {

constexpr std::string_view kZ85Alphabet =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

const std::array<int, 256>& Z85Table() {
  static const std::array<int, 256> table = [] {
    std::array<int, 256> t{};
    t.fill(-1);
    for (size_t i = 0; i < kZ85Alphabet.size(); ++i) t[static_cast<uint8_t>(kZ85Alphabet[i])] = static_cast<int>(i);
    return t;
  }();
  return table;
}

/// A local absolute path for "file:" URIs and bare absolute paths; nullopt for other URIs.
std::optional<std::string> LocalAbsolute(const std::string& path) {
  if (path.rfind("file://", 0) == 0) {
    std::string rest = path.substr(7);
    // file://host/path: only an empty host (or localhost) is local.
    if (rest.rfind("localhost/", 0) == 0) rest = rest.substr(9);
    return rest;
  }
  if (path.rfind("file:/", 0) == 0) return path.substr(5);
  if (!path.empty() && path.front() == '/') return path;
  return std::nullopt;
}

bool HasScheme(std::string_view path) {
  size_t colon = path.find(':');
  size_t slash = path.find('/');
  return colon != std::string_view::npos && colon > 0 && (slash == std::string_view::npos || colon < slash);
}

std::string FormatUuid(const std::string& bytes) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    auto b = static_cast<uint8_t>(bytes[i]);
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

}  // namespace

Result<std::string> Z85Decode(std::string_view text) {
  if (text.size() % 5 != 0) {
    return Status::Invalid("Z85 text length ", text.size(), " is not a multiple of 5");
  }
  const auto& table = Z85Table();
  std::string out;
  out.reserve(text.size() / 5 * 4);
  for (size_t i = 0; i < text.size(); i += 5) {
    uint64_t value = 0;
    for (size_t j = 0; j < 5; ++j) {
      int digit = table[static_cast<uint8_t>(text[i + j])];
      if (digit < 0) return Status::Invalid("character '", text[i + j], "' is not in the Z85 alphabet");
      value = value * 85 + static_cast<uint64_t>(digit);
    }
    if (value > 0xffffffffULL) return Status::Invalid("Z85 group '", text.substr(i, 5), "' overflows 32 bits");
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((value >> shift) & 0xff));
  }
  return out;
}

namespace {
/// An object-store URI in canonical form: the s3a/s3n aliases as s3, no query string (our
/// S3 root URIs carry region and endpoint options there). nullopt for a URI of a scheme this
/// build cannot compare.
std::optional<std::string> CanonicalObjectUri(std::string uri) {
  size_t query = uri.find('?');
  if (query != std::string::npos) uri.resize(query);
  for (const char* alias : {"s3a://", "s3n://"}) {
    if (uri.rfind(alias, 0) == 0) uri = "s3://" + uri.substr(6);
  }
  if (uri.rfind("s3://", 0) != 0 && uri.rfind("mem://", 0) != 0) return std::nullopt;
  return uri;
}

/// Splits a canonical object URI into "scheme://authority" and the path after it ("" or
/// starting with '/').
std::pair<std::string, std::string> SplitAuthority(const std::string& uri) {
  size_t start = uri.find("://") + 3;
  size_t slash = uri.find('/', start);
  if (slash == std::string::npos) return {uri, ""};
  return {uri.substr(0, slash), uri.substr(slash)};
}

/// True for a relative path already in normal form: no empty, "." or ".." segment, no leading
/// or trailing '/'. The common case of log paths, checked without allocating.
bool IsNormalRelative(std::string_view p) {
  if (p.empty() || p.front() == '/' || p.back() == '/') return false;
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find('/', start);
    if (end == std::string_view::npos) end = p.size();
    std::string_view seg = p.substr(start, end - start);
    if (seg.empty() || seg == "." || seg == "..") return false;
    start = end + 1;
  }
  return true;
}
}  // namespace

TablePathResolver::TablePathResolver(std::string root_uri) : root_uri_(std::move(root_uri)) {
  if (auto local = LocalAbsolute(root_uri_); local && !local->empty() && local->front() == '/') {
    local_ = true;
    root_ = LexicallyNormalPath(*local).value_or("/");
  } else if (auto canonical = CanonicalObjectUri(root_uri_)) {
    auto [authority, path] = SplitAuthority(*canonical);
    root_authority_ = authority;
    root_ = LexicallyNormalPath(path.empty() ? "/" : path).value_or("/");
  } else {
    comparable_ = false;
  }
}

Status TablePathResolver::Outside(const std::string& path) const {
  return PathOutsideTable("path '" + path + "' is outside the table root '" + root_uri_ + "'");
}

Status TablePathResolver::Uncertain(const std::string& path, const std::string& why) const {
  return UnsupportedFeature("cannot tell whether '" + path + "' lies inside the table root '" + root_uri_ +
                            "' (" + why + "); refusing rather than risk treating a live file as untracked");
}

std::optional<std::string> TablePathResolver::Below(const std::string& root, const std::string& full) {
  if (root == "/") return full.size() > 1 ? std::optional<std::string>(full.substr(1)) : std::nullopt;
  if (full.size() <= root.size() + 1 || full.compare(0, root.size(), root) != 0 || full[root.size()] != '/') {
    return std::nullopt;
  }
  return full.substr(root.size() + 1);
}

Result<std::string> TablePathResolver::Relativize(const std::string& path) const {
  if (path.find('\0') != std::string::npos) return Uncertain(path.substr(0, path.find('\0')), "a NUL byte");
  bool relative = IsRelativeReference(path);
  if (relative && IsNormalRelative(path)) return path;  // the common case
  if (!comparable_) return Uncertain(path, "the table root's URI scheme cannot be compared");
  // The absolute form of the path, in the root's terms: a local path, or an object URI's path
  // under its authority.
  std::string authority, full;
  if (relative) {
    authority = root_authority_;
    full = root_ + "/" + path;
  } else if (auto local = LocalAbsolute(path)) {
    if (local->empty() || local->front() != '/') return Uncertain(path, "a file URI with a host");
    if (!local_) return Outside(path);
    full = *local;
  } else if (auto canonical = CanonicalObjectUri(path)) {
    if (local_) return Outside(path);
    auto [a, p] = SplitAuthority(*canonical);
    authority = a;
    full = p.empty() ? "/" : p;
  } else {
    return Uncertain(path, "unsupported URI scheme");
  }
  if (authority != root_authority_) return Outside(path);
  std::optional<std::string> normal = LexicallyNormalPath(full);
  if (!normal) return Outside(path);  // ".." above the file system or bucket root
  if (auto rel = Below(root_, *normal)) return *rel;
  if (!local_) return Outside(path);
  // Local paths may reach the table through symbolic links (the table opened through a link,
  // or a log written through one): compare where both really are.
  std::call_once(real_root_once_, [&] { real_root_ = RealPathOfLocal(root_); });
  if (!real_root_.ok()) return Uncertain(path, real_root_.status().message());
  ARROW_ASSIGN_OR_RAISE(std::string real, RealPathCached(*normal, path));
  if (auto rel = Below(*real_root_, real)) return *rel;
  return Outside(path);
}

Result<std::string> TablePathResolver::RealPathCached(const std::string& normal, const std::string& path) const {
  // The folder is resolved (once per folder: a log of many files elsewhere stays cheap); the
  // last component is kept as is (a link there is never listed nor deleted anyway).
  size_t slash = normal.rfind('/');
  std::string folder = slash == 0 ? "/" : normal.substr(0, slash);
  std::string name = normal.substr(slash + 1);
  std::lock_guard<std::mutex> lock(real_folders_mu_);
  auto it = real_folders_.find(folder);
  if (it == real_folders_.end()) it = real_folders_.emplace(folder, RealPathOfLocal(folder)).first;
  if (!it->second.ok()) return Uncertain(path, it->second.status().message());
  const std::string& real_folder = *it->second;
  return real_folder == "/" ? "/" + name : real_folder + "/" + name;
}

bool IsRelativeReference(std::string_view path) { return !HasScheme(path) && !(!path.empty() && path.front() == '/'); }

Result<std::string> DecodeLogPath(std::string_view raw) {
  ARROW_ASSIGN_OR_RAISE(std::string decoded, PercentDecode(raw));
  if (IsRelativeReference(raw) && HasScheme(decoded)) return "./" + decoded;  // the scheme was an escaped ':'
  return decoded;
}

Result<std::string> RelativizeToTable(const std::string& path, const std::string& root_uri) {
  return TablePathResolver(root_uri).Relativize(path);
}

Result<std::optional<std::string>> DeletionVectorPath(const DeletionVectorDescriptor& dv,
                                                      const std::string& root_uri) {
  return DeletionVectorPath(dv, TablePathResolver(root_uri));
}

Result<std::optional<std::string>> DeletionVectorPath(const DeletionVectorDescriptor& dv,
                                                      const TablePathResolver& resolver) {
  if (dv.storage_type == "i") return std::optional<std::string>();
  if (dv.storage_type == "p") {
    ARROW_ASSIGN_OR_RAISE(auto decoded, DecodeLogPath(dv.path_or_inline_dv));
    ARROW_ASSIGN_OR_RAISE(auto rel, resolver.Relativize(decoded));
    return std::optional<std::string>(std::move(rel));
  }
  if (dv.storage_type != "u") {
    return CorruptMetadata("deletion vector storage type '" + dv.storage_type +
                           "' is not one of u, p, i");
  }
  const std::string& encoded = dv.path_or_inline_dv;
  if (encoded.size() < 20) {
    return CorruptMetadata("deletion vector path '" + encoded + "' is shorter than a Z85 UUID");
  }
  std::string prefix = encoded.substr(0, encoded.size() - 20);
  auto uuid = Z85Decode(std::string_view(encoded).substr(encoded.size() - 20));
  if (!uuid.ok()) {
    return CorruptMetadata("deletion vector path '" + encoded + "': " + uuid.status().message());
  }
  std::string name = "deletion_vector_" + FormatUuid(*uuid) + ".bin";
  std::string rel = prefix.empty() ? name : prefix + "/" + name;
  auto normalized = NormalizeRelativePath(rel);
  if (!normalized.ok()) {
    return CorruptMetadata("deletion vector prefix '" + prefix + "' is not a relative folder");
  }
  return std::optional<std::string>(*normalized);
}

}  // namespace lakeshore::delta
