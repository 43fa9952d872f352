#include "delta/paths.h"

#include <array>
#include <cstdio>

#include "lakeshore/storage/storage.h"

namespace lakeshore::delta {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

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

bool HasScheme(const std::string& path) {
  size_t colon = path.find(':');
  size_t slash = path.find('/');
  return colon != std::string::npos && colon > 0 && (slash == std::string::npos || colon < slash);
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

Result<std::string> UrlDecode(std::string_view encoded) {
  if (encoded.find('%') == std::string_view::npos) return std::string(encoded);
  std::string out;
  out.reserve(encoded.size());
  for (size_t i = 0; i < encoded.size(); ++i) {
    char c = encoded[i];
    if (c != '%') {
      out.push_back(c);
      continue;
    }
    if (i + 2 >= encoded.size()) {
      return Status::Invalid("truncated percent escape in '", encoded, "'");
    }
    int hi = HexValue(encoded[i + 1]), lo = HexValue(encoded[i + 2]);
    if (hi < 0 || lo < 0) return Status::Invalid("invalid percent escape in '", encoded, "'");
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

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
/// S3 root URIs carry region and endpoint options there), no trailing '/'. nullopt for a URI
/// of a scheme this build cannot compare.
std::optional<std::string> CanonicalObjectUri(std::string uri) {
  size_t query = uri.find('?');
  if (query != std::string::npos) uri.resize(query);
  for (const char* alias : {"s3a://", "s3n://"}) {
    if (uri.rfind(alias, 0) == 0) uri = "s3://" + uri.substr(6);
  }
  if (uri.rfind("s3://", 0) != 0 && uri.rfind("mem://", 0) != 0) return std::nullopt;
  while (!uri.empty() && uri.back() == '/') uri.pop_back();
  return uri;
}
}  // namespace

Result<std::string> RelativizeToTable(const std::string& path, const std::string& root_uri) {
  auto outside = [&] {
    return PathOutsideTable("path '" + path + "' is outside the table root '" + root_uri + "'");
  };
  if (!HasScheme(path) && !(path.size() > 0 && path.front() == '/')) {
    auto rel = NormalizeRelativePath(path);
    if (!rel.ok()) return outside();
    return rel;
  }
  std::optional<std::string> local = LocalAbsolute(path);
  std::optional<std::string> root_local = LocalAbsolute(root_uri);
  std::string base, full;
  if (local && root_local) {
    base = *root_local;
    full = *local;
  } else if (!local && !root_local) {
    auto canonical_base = CanonicalObjectUri(root_uri);
    auto canonical_full = CanonicalObjectUri(path);
    if (!canonical_base || !canonical_full) {
      // A scheme we cannot compare: we cannot prove the file is elsewhere, so refuse rather
      // than risk treating a live file as untracked.
      return UnsupportedFeature("cannot tell whether '" + path + "' lies inside the table root '" +
                                root_uri + "': unsupported URI scheme");
    }
    base = *canonical_base;
    full = *canonical_full;
  } else {
    return outside();
  }
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  if (full.size() <= base.size() + 1 || full.compare(0, base.size(), base) != 0 ||
      full[base.size()] != '/') {
    return outside();
  }
  auto rel = NormalizeRelativePath(full.substr(base.size() + 1));
  if (!rel.ok()) return outside();
  return rel;
}

Result<std::optional<std::string>> DeletionVectorPath(const DeletionVectorDescriptor& dv,
                                                      const std::string& root_uri) {
  if (dv.storage_type == "i") return std::optional<std::string>();
  if (dv.storage_type == "p") {
    ARROW_ASSIGN_OR_RAISE(auto decoded, UrlDecode(dv.path_or_inline_dv));
    ARROW_ASSIGN_OR_RAISE(auto rel, RelativizeToTable(decoded, root_uri));
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
