#include "storage/s3_storage.h"

#include <algorithm>
#include <chrono>
#include <charconv>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <unordered_set>

#include <arrow/util/uri.h>

#include "common/percent_encoding.h"

namespace lakeshore {
namespace {

using s3_internal::HttpResponse;
using s3_internal::XmlElement;
using s3_internal::XmlUnescape;

constexpr int kMaxAttempts = 6;
constexpr size_t kMaxKeysPerDelete = 1000;  // S3's multi-object delete limit
constexpr int64_t kSinglePutLimit = 16 << 20;  // smaller files are written with one PUT
constexpr size_t kMaxHeadsPerFolder = 16;      // more paths in one folder: list it instead

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

// Exponential backoff with jitter before attempt `attempt` (1-based retries).
void Backoff(int attempt) {
  thread_local std::mt19937 rng{std::random_device{}()};
  int base_ms = 25 << std::min(attempt, 6);
  std::this_thread::sleep_for(std::chrono::milliseconds(base_ms + rng() % base_ms));
}

std::string DescribeS3Error(const HttpResponse& r);

/// The error of a failed S3 response: throttling and server errors (which the storage already
/// retried) are kTransientStorage, so callers know a later retry can help; the rest IOError.
Status S3ResponseError(const std::string& what, const HttpResponse& r) {
  if (r.status == 429 || r.status >= 500) return TransientStorage(what + DescribeS3Error(r));
  return Status::IOError(what, DescribeS3Error(r));
}

std::string DescribeS3Error(const HttpResponse& r) {
  std::string code = XmlElement(r.body, "Code");
  std::string message = XmlElement(r.body, "Message");
  std::string out = "HTTP " + std::to_string(r.status);
  if (!code.empty()) out += " " + code;
  if (!message.empty()) out += ": " + message;
  return out;
}

/// An S3 LastModified in ms. S3 gives whole seconds, the write happened somewhere in that
/// second: a whole second is reported as its last millisecond, so that no age compared with a
/// cutoff (vacuum's retention) makes a file look older than it is. A time with milliseconds (a
/// server that keeps them) is exact and stays.
int64_t NoOlderThanWritten(int64_t ms) { return ms % 1000 == 0 ? ms + 999 : ms; }

int64_t ToMillis(arrow::fs::TimePoint t) {
  if (t == arrow::fs::kNoTime) return 0;
  return NoOlderThanWritten(std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count());
}

}  // namespace

Status EnsureS3Ready() {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  if (arrow::fs::IsS3Finalized()) {
    return Status::Invalid("S3 was already finalized in this process; s3:// storage is unavailable");
  }
  return arrow::fs::EnsureS3Initialized();
}

Result<std::shared_ptr<Storage>> S3Storage::Make(const std::string& uri,
                                                 const StorageOptions& options) {
  arrow::util::Uri parsed;
  ARROW_RETURN_NOT_OK(parsed.Parse(uri));
  if (parsed.scheme() != "s3" || parsed.host().empty()) {
    return Status::Invalid("bad S3 URI '", uri, "': expected s3://bucket/prefix");
  }
  auto storage = std::shared_ptr<S3Storage>(new S3Storage());
  storage->bucket_ = parsed.host();
  auto prefix = NormalizeRelativePath(parsed.path().empty() ? "" : parsed.path().substr(1), true);
  if (!prefix.ok()) return Status::Invalid("bad S3 URI '", uri, "': ", prefix.status().message());
  storage->prefix_ = *prefix;

  s3_internal::S3Endpoint endpoint;
  endpoint.region = options.s3_region;
  ARROW_ASSIGN_OR_RAISE(auto query, parsed.query_items());
  for (const auto& [key, value] : query) {
    if (key == "endpoint_override") {
      endpoint.endpoint_override = value;
    } else if (key == "scheme") {
      if (value != "http" && value != "https") {
        return Status::Invalid("bad S3 URI '", uri, "': scheme must be http or https");
      }
      endpoint.scheme = value;
    } else if (key == "region") {
      endpoint.region = value;
    } else {
      return Status::Invalid("bad S3 URI '", uri, "': unknown parameter '", key,
                             "' (known: endpoint_override, scheme, region)");
    }
  }
  if (endpoint.region.empty()) endpoint.region = EnvOr("AWS_REGION", EnvOr("AWS_DEFAULT_REGION", "us-east-1"));

  ARROW_RETURN_NOT_OK(EnsureS3Ready());
  arrow::fs::S3Options s3 = options.s3_access_key.empty()
                                ? arrow::fs::S3Options::Defaults()
                                : arrow::fs::S3Options::FromAccessKey(options.s3_access_key,
                                                                      options.s3_secret_key);
  s3.region = endpoint.region;
  s3.scheme = endpoint.scheme;
  s3.endpoint_override = endpoint.endpoint_override;
  ARROW_ASSIGN_OR_RAISE(storage->fs_, arrow::fs::S3FileSystem::Make(s3));
  s3_internal::S3RequestClient::CredentialsFn credentials;
  if (!options.s3_access_key.empty()) {
    credentials = [keys = s3_internal::SigV4Credentials{options.s3_access_key, options.s3_secret_key, ""}] {
      return keys;
    };
  } else {
    // The same provider chain Arrow uses (env vars, profiles, instance roles); asked per
    // request because temporary credentials rotate.
    credentials = [s3] {
      return s3_internal::SigV4Credentials{s3.GetAccessKey(), s3.GetSecretKey(), s3.GetSessionToken()};
    };
  }
  storage->requests_ = std::make_unique<s3_internal::S3RequestClient>(endpoint, std::move(credentials));

  storage->root_uri_ = "s3://" + storage->bucket_ + (storage->prefix_.empty() ? "" : "/" + storage->prefix_) +
                       "?region=" + endpoint.region;
  if (!endpoint.endpoint_override.empty()) {
    storage->root_uri_ += "&endpoint_override=" + endpoint.endpoint_override + "&scheme=" + endpoint.scheme;
  }
  return std::shared_ptr<Storage>(std::move(storage));
}

std::string S3Storage::Key(const std::string& rel) const { return JoinPath(prefix_, rel); }

std::string S3Storage::ArrowPath(const std::string& rel) const { return JoinPath(bucket_, Key(rel)); }

Result<s3_internal::HttpResponse> S3Storage::SendWithRetries(const std::string& method, const std::string& key,
                                                          const std::string& query,
                                                          const std::vector<s3_internal::HttpHeader>& headers,
                                                          std::string_view body, long also_retry,
                                                          bool* ambiguous) const {
  Result<HttpResponse> response;
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    if (attempt > 0) Backoff(attempt);
    response = requests_->Send(method, bucket_, key, query, headers, body);
    if (!response.ok() || response->status >= 500) {
      if (ambiguous != nullptr) *ambiguous = true;  // the request may have taken effect
      continue;
    }
    if (response->status != 429 && response->status != also_retry) break;
  }
  return response;
}

Result<std::shared_ptr<arrow::Buffer>> S3Storage::ReadFile(std::string_view path) {
  // One GET of the whole object: a concurrent overwrite cannot mix two versions, as a size
  // lookup followed by a ranged read could.
  ARROW_ASSIGN_OR_RAISE(auto rel, NormalizeRelativePath(path));
  ARROW_ASSIGN_OR_RAISE(auto response, SendWithRetries("GET", Key(rel), "", {}, "", 0, nullptr));
  if (response.status == 200) return arrow::Buffer::FromString(std::move(response.body));
  if (response.status == 404) return Status::IOError("cannot read '", rel, "' in ", root_uri_, ": no such file");
  return S3ResponseError("cannot read '" + rel + "' in " + root_uri_ + ": ", response);
}

Result<std::shared_ptr<arrow::io::RandomAccessFile>> S3Storage::OpenInputFile(
    std::string_view path, std::optional<int64_t> size_hint) {
  ARROW_ASSIGN_OR_RAISE(auto rel, NormalizeRelativePath(path));
  arrow::Result<std::shared_ptr<arrow::io::RandomAccessFile>> file;
  if (size_hint) {
    arrow::fs::FileInfo info(ArrowPath(rel), arrow::fs::FileType::File);
    info.set_size(*size_hint);
    file = fs_->OpenInputFile(info);
  } else {
    file = fs_->OpenInputFile(ArrowPath(rel));
  }
  if (!file.ok()) {
    return Status::IOError("cannot open '", rel, "' in ", root_uri_, ": ", file.status().message());
  }
  return file;
}

Status S3Storage::WriteFile(std::string_view path, std::shared_ptr<arrow::Buffer> data) {
  ARROW_ASSIGN_OR_RAISE(auto rel, NormalizeRelativePath(path));
  if (data->size() < kSinglePutLimit) {
    // One PUT (Arrow's stream always takes three requests: a multipart upload). Retrying a
    // plain PUT after an ambiguous failure is safe: it rewrites the same bytes.
    std::string_view body(reinterpret_cast<const char*>(data->data()), static_cast<size_t>(data->size()));
    auto response = SendWithRetries("PUT", Key(rel), "", {}, body, 0, nullptr);
    if (!response.ok()) return Status::IOError("cannot write '", rel, "' in ", root_uri_, ": ", response.status().message());
    if (response->status != 200) {
      return S3ResponseError("cannot write '" + rel + "' in " + root_uri_ + ": ", *response);
    }
    return Status::OK();
  }
  auto stream = fs_->OpenOutputStream(ArrowPath(rel), /*metadata=*/nullptr);
  Status st = stream.status();
  if (st.ok()) st = (*stream)->Write(data);
  if (st.ok()) {
    st = (*stream)->Close();  // completes the multipart upload: the object appears whole
  } else if (stream.ok()) {
    (void)(*stream)->Abort();  // never let a destructor complete a partial upload
  }
  if (!st.ok()) return Status::IOError("cannot write '", rel, "' in ", root_uri_, ": ", st.message());
  return Status::OK();
}

Result<bool> S3Storage::PutIfAbsent(std::string_view path, std::shared_ptr<arrow::Buffer> data) {
  ARROW_ASSIGN_OR_RAISE(auto rel, NormalizeRelativePath(path));
  std::string_view body(reinterpret_cast<const char*>(data->data()), static_cast<size_t>(data->size()));
  bool ambiguous = false;  // an earlier attempt may have written the object
  // 409 ConditionalRequestConflict: a concurrent conditional write was in flight; ask again.
  auto response = SendWithRetries("PUT", Key(rel), "", {{"If-None-Match", "*"}}, body, 409, &ambiguous);
  if (!response.ok()) {
    return Status::IOError("conditional PUT of '", rel, "' in ", root_uri_, " failed: ", response.status().message());
  }
  if (response->status == 200) return true;
  if (response->status == 412) {
    if (!ambiguous) return false;
    ARROW_ASSIGN_OR_RAISE(auto existing, ReadFile(rel));
    return existing->Equals(*data);
  }
  return S3ResponseError("conditional PUT of '" + rel + "' in " + root_uri_ + " failed: ", *response);
}

Result<bool> S3Storage::ObjectExists(const std::string& rel) const {
  ARROW_ASSIGN_OR_RAISE(auto response, SendWithRetries("HEAD", Key(rel), "", {}, "", 0, nullptr));
  if (response.status == 200) return true;
  if (response.status == 404) return false;
  return Status::IOError("cannot stat '", rel, "' in ", root_uri_, ": HTTP ", response.status);
}

Result<std::optional<FileEntry>> S3Storage::GetFileInfo(std::string_view path) {
  ARROW_ASSIGN_OR_RAISE(auto rel, NormalizeRelativePath(path, /*allow_root=*/true));
  auto info = fs_->GetFileInfo(ArrowPath(rel));
  if (!info.ok()) {
    return Status::IOError("cannot stat '", rel, "' in ", root_uri_, ": ", info.status().message());
  }
  switch (info->type()) {
    case arrow::fs::FileType::File:
      return std::optional<FileEntry>(FileEntry{rel, info->size(), ToMillis(info->mtime()), false});
    case arrow::fs::FileType::Directory:
      return std::optional<FileEntry>(FileEntry{rel, 0, ToMillis(info->mtime()), true});
    default:
      return std::optional<FileEntry>();
  }
}

namespace {
/// A value S3 sends with encoding-type=url: '+' read as a space, then %XX decoded
/// (common/percent_encoding; a literal '+' or '%' comes as %2B or %25).
Result<std::string> UrlDecode(std::string_view s) {
  std::string spaced(s);
  std::replace(spaced.begin(), spaced.end(), '+', ' ');
  return PercentDecode(spaced);
}

/// Milliseconds since the epoch of an S3 LastModified ("2026-12-05T07:00:00.000Z"); nullopt
/// for anything else. (A whole second is then read as NoOlderThanWritten says.)
std::optional<int64_t> ParseLastModified(std::string_view text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0, ms = 0;
  auto number = [&](size_t at, size_t len, int* out) {
    if (at + len > text.size()) return false;
    auto [end, ec] = std::from_chars(text.data() + at, text.data() + at + len, *out);
    return ec == std::errc() && end == text.data() + at + len;
  };
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' || text[16] != ':' ||
      !number(0, 4, &y) || !number(5, 2, &mo) || !number(8, 2, &d) || !number(11, 2, &h) || !number(14, 2, &mi) ||
      !number(17, 2, &sec)) {
    return std::nullopt;
  }
  size_t pos = 19;
  if (pos < text.size() && text[pos] == '.') {
    size_t digits = 0;
    int fraction = 0;
    for (++pos; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos, ++digits) {
      if (digits < 3) fraction = fraction * 10 + (text[pos] - '0');
    }
    for (size_t k = digits; k < 3; ++k) fraction *= 10;
    ms = fraction;
  }
  if (pos + 1 != text.size() || text[pos] != 'Z') return std::nullopt;
  const std::chrono::year_month_day day{std::chrono::year(y), std::chrono::month(static_cast<unsigned>(mo)),
                                        std::chrono::day(static_cast<unsigned>(d))};
  if (!day.ok() || h > 23 || mi > 59 || sec > 60) return std::nullopt;
  const int64_t days = std::chrono::sys_days(day).time_since_epoch().count();
  return ((days * 24 + h) * 60 + mi) * 60000 + static_cast<int64_t>(sec) * 1000 + ms;
}
}  // namespace

Result<std::vector<FileEntry>> S3Storage::ListNormalized(const std::string& rel_prefix, bool recursive) {
  // ListObjectsV2, page after page, read here rather than by Arrow's S3 file system: a server
  // that answers "truncated" with the continuation token it was sent (or none) would have
  // been asked the same page for ever.
  std::string folder = Key(rel_prefix);
  if (!folder.empty()) folder.push_back('/');
  const std::string root = prefix_.empty() ? std::string() : prefix_ + "/";
  const std::string where = "cannot list '" + rel_prefix + "' in " + root_uri_;
  std::vector<FileEntry> out;
  std::unordered_set<std::string> tokens_seen;
  std::string token;
  // A listed key as a path of the table, or nullopt for one no path of the table names
  // ("p=1//x", "a/./b": legal on S3; a vacuum that planned it failed every run), or a
  // folder marker (a key ending in '/').
  auto relative = [&](const std::string& key) -> std::optional<std::string> {
    if (key.rfind(root, 0) != 0 || key.size() == root.size()) return std::nullopt;
    std::string rel = key.substr(root.size());
    if (!rel.empty() && rel.back() == '/') return std::nullopt;
    auto normal = NormalizeRelativePath(rel);
    if (!normal.ok() || *normal != rel) return std::nullopt;
    return rel;
  };
  for (;;) {
    // The query, canonical for SigV4: names sorted, values encoded.
    std::string query;
    if (!token.empty()) query += "continuation-token=" + s3_internal::UriEncode(token, false) + "&";
    if (!recursive) query += "delimiter=%2F&";
    query += "encoding-type=url&list-type=2&prefix=" + s3_internal::UriEncode(folder, false);
    ARROW_ASSIGN_OR_RAISE(auto response, SendWithRetries("GET", "", query, {}, "", 0, nullptr));
    if (response.status != 200) return S3ResponseError(where + ": ", response);
    const std::string& body = response.body;
    // Keys come URL-encoded only when the server says so (one that ignores encoding-type sends
    // them raw, and a '+' or '%' in a key is then itself).
    const bool url_encoded = XmlElement(body, "EncodingType") == "url";
    auto key_text = [&](const std::string& text) -> Result<std::string> {
      if (!url_encoded) return XmlUnescape(text);
      auto decoded = UrlDecode(XmlUnescape(text));
      if (!decoded.ok()) return Status::IOError(where, ": the listing holds a malformed key: ", decoded.status().message());
      return decoded;
    };
    size_t pos = 0, end = 0;
    for (std::string entry; !(entry = XmlElement(body, "Contents", pos, &end)).empty(); pos = end) {
      ARROW_ASSIGN_OR_RAISE(std::string key, key_text(XmlElement(entry, "Key")));
      auto rel = relative(key);
      if (!rel) continue;
      int64_t size = 0;
      const std::string size_text = XmlElement(entry, "Size");
      auto [size_end, size_ec] = std::from_chars(size_text.data(), size_text.data() + size_text.size(), size);
      const std::optional<int64_t> mtime = ParseLastModified(XmlElement(entry, "LastModified"));
      if (size_ec != std::errc() || size_end != size_text.data() + size_text.size() || size < 0 || !mtime) {
        return Status::IOError(where, ": the listing's entry for '", *rel, "' has no valid Size and LastModified");
      }
      out.push_back({std::move(*rel), size, NoOlderThanWritten(*mtime), false});
    }
    pos = 0;
    for (std::string common; !(common = XmlElement(body, "CommonPrefixes", pos, &end)).empty(); pos = end) {
      ARROW_ASSIGN_OR_RAISE(std::string prefix, key_text(XmlElement(common, "Prefix")));
      if (prefix.empty() || prefix.back() != '/') continue;
      prefix.pop_back();
      auto rel = relative(prefix);
      if (rel) out.push_back({std::move(*rel), 0, 0, true});
    }
    if (XmlElement(body, "IsTruncated") != "true") break;
    token = XmlUnescape(XmlElement(body, "NextContinuationToken"));
    if (token.empty()) {
      return Status::IOError(where, ": the server says the listing goes on but gives no continuation token");
    }
    if (!tokens_seen.insert(token).second) {
      return Status::IOError(where, ": the server sent the same continuation token twice (a listing that would "
                             "never end)");
    }
  }
  return out;
}

Result<std::vector<FileEntry>> S3Storage::List(std::string_view prefix, bool recursive) {
  ARROW_ASSIGN_OR_RAISE(auto rel_prefix, NormalizeRelativePath(prefix, /*allow_root=*/true));
  return ListNormalized(rel_prefix, recursive);
}

Status S3Storage::DeleteBatch(const std::vector<std::string>& keys) {
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Delete><Quiet>true</Quiet>";
  for (const auto& key : keys) xml += "<Object><Key>" + s3_internal::XmlEscape(key) + "</Key></Object>";
  xml += "</Delete>";
  std::vector<s3_internal::HttpHeader> headers{{"Content-MD5", s3_internal::Base64Md5(xml)}};
  // Deletes are idempotent: retrying after an ambiguous failure is safe.
  auto response = SendWithRetries("POST", "", "delete=", headers, xml, 0, nullptr);
  if (!response.ok()) {
    return Status::IOError("multi-object delete in ", root_uri_, " failed: ", response.status().message());
  }
  if (response->status != 200) {
    return S3ResponseError("multi-object delete in " + root_uri_ + " failed: ", *response);
  }
  std::string error = XmlElement(response->body, "Error");
  if (error.empty()) return Status::OK();
  return Status::IOError("cannot delete '", XmlElement(error, "Key"), "' in ", root_uri_, ": ",
                         XmlElement(error, "Code"), " ", XmlElement(error, "Message"));
}

Result<DeleteOutcome> S3Storage::DeleteFiles(const std::vector<std::string>& paths) {
  // Validate everything before deleting anything.
  std::vector<std::string> rels;
  rels.reserve(paths.size());
  for (const auto& p : paths) {
    ARROW_ASSIGN_OR_RAISE(auto rel, NormalizeRelativePath(p));
    rels.push_back(std::move(rel));
  }
  // Which paths exist: a HEAD per path for folders with few paths to delete, else one
  // listing of the folder (a page per 1000 entries).
  std::map<std::string, std::vector<std::string>> by_parent;
  for (const auto& rel : rels) by_parent[ParentPath(rel)].push_back(rel);
  std::unordered_set<std::string> existing;
  for (const auto& [parent, group] : by_parent) {
    if (group.size() <= kMaxHeadsPerFolder) {
      for (const auto& rel : group) {
        ARROW_ASSIGN_OR_RAISE(bool exists, ObjectExists(rel));
        if (exists) existing.insert(rel);
      }
    } else {
      ARROW_ASSIGN_OR_RAISE(auto entries, ListNormalized(parent, /*recursive=*/false));
      for (auto& e : entries) {
        if (!e.is_dir) existing.insert(std::move(e.path));
      }
    }
  }
  DeleteOutcome outcome;
  std::unordered_set<std::string> seen;
  std::vector<std::string> keys;
  for (size_t i = 0; i < rels.size(); ++i) {
    const auto& rel = rels[i];
    if (!seen.insert(rel).second || existing.count(rel) == 0) {
      ++outcome.already_gone;
      continue;
    }
    keys.push_back(Key(rel));
    outcome.deleted_paths.push_back(paths[i]);
  }
  for (size_t start = 0; start < keys.size(); start += kMaxKeysPerDelete) {
    size_t end = std::min(keys.size(), start + kMaxKeysPerDelete);
    ARROW_RETURN_NOT_OK(DeleteBatch(std::vector<std::string>(keys.begin() + start, keys.begin() + end)));
  }
  outcome.deleted = static_cast<int64_t>(keys.size());
  return outcome;
}

Result<bool> S3Storage::DeleteDirIfEmpty(std::string_view path) {
  ARROW_RETURN_NOT_OK(NormalizeRelativePath(path).status());
  return false;
}

}  // namespace lakeshore
