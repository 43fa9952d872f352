#include "storage/s3_request_internal.h"

#include <charconv>
#include <memory>

#include "common/utf8.h"
#include "storage/curl_library_internal.h"

namespace lakeshore::s3_internal {
namespace {

// One curl handle per thread, reset before each request: curl keeps the connection (and TLS
// session) open between requests, which a handle per request would throw away.
CURL* ThreadHandle(const CurlLibrary& curl) {
  thread_local std::unique_ptr<CURL, void (*)(CURL*)> handle(curl.easy_init(), curl.easy_cleanup);
  if (handle) curl.easy_reset(handle.get());
  return handle.get();
}

size_t AppendBody(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

}  // namespace

S3RequestClient::S3RequestClient(S3Endpoint endpoint, CredentialsFn credentials)
    : endpoint_(std::move(endpoint)), credentials_(std::move(credentials)) {}

Result<HttpResponse> S3RequestClient::Send(const std::string& method, const std::string& bucket,
                                           std::string_view key, const std::string& query,
                                           std::vector<HttpHeader> headers,
                                           std::string_view body) const {
  SigV4Request request;
  request.method = method;
  if (!endpoint_.endpoint_override.empty()) {
    request.host = endpoint_.endpoint_override;
    request.canonical_uri = "/" + UriEncode(bucket, false);
    if (!key.empty()) request.canonical_uri += "/" + UriEncode(key, true);
  } else {
    request.host = bucket + ".s3." + endpoint_.region + ".amazonaws.com";
    request.canonical_uri = "/" + UriEncode(key, true);
  }
  request.canonical_query = query;
  request.headers = std::move(headers);
  request.payload_sha256_hex = HexSha256(body);
  auto signed_headers = SignS3Request(request, endpoint_.region, credentials_(), AmzDateNow());

  std::string url = endpoint_.scheme + "://" + request.host + request.canonical_uri;
  if (!query.empty()) url += "?" + query;

  ARROW_ASSIGN_OR_RAISE(const CurlLibrary* curl, CurlLibrary::Get());
  CURL* h = ThreadHandle(*curl);
  if (h == nullptr) return Status::IOError("cannot create a curl handle for ", method, " ", url);
  curl_slist* list = nullptr;
  for (const auto& [name, value] : signed_headers) {
    list = curl->slist_append(list, (name + ": " + value).c_str());
  }
  list = curl->slist_append(list, "Expect:");  // no 100-continue round trip
  list = curl->slist_append(list, "Content-Type: application/octet-stream");
  std::unique_ptr<curl_slist, void (*)(curl_slist*)> header_list(list, curl->slist_free_all);

  HttpResponse response;
  curl->easy_setopt(h, CURLOPT_URL, url.c_str());
  curl->easy_setopt(h, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl->easy_setopt(h, CURLOPT_HTTPHEADER, header_list.get());
  curl->easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl->easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 10L);
  curl->easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);    // abort a transfer stalled for
  curl->easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 60L);    // a minute
  curl->easy_setopt(h, CURLOPT_WRITEFUNCTION, &AppendBody);
  curl->easy_setopt(h, CURLOPT_WRITEDATA, &response.body);
  if (method == "HEAD") {
    curl->easy_setopt(h, CURLOPT_NOBODY, 1L);
  } else if (method != "GET" && method != "DELETE") {
    curl->easy_setopt(h, CURLOPT_POSTFIELDS, body.data());
    curl->easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  }
  CURLcode rc = curl->easy_perform(h);
  if (rc != CURLE_OK) {
    // A transport failure (refused, reset, timed out): a later retry can help.
    return TransientStorage("S3 request " + std::string(method) + " " + url + " failed: " + curl->easy_strerror(rc));
  }
  curl->easy_getinfo(h, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

std::string XmlElement(std::string_view xml, std::string_view tag, size_t from, size_t* end) {
  std::string open = "<" + std::string(tag) + ">";
  std::string close = "</" + std::string(tag) + ">";
  size_t b = xml.find(open, from);
  if (b == std::string_view::npos) {
    if (end) *end = std::string_view::npos;
    return "";
  }
  b += open.size();
  size_t e = xml.find(close, b);
  if (e == std::string_view::npos) {
    if (end) *end = std::string_view::npos;
    return "";
  }
  if (end) *end = e + close.size();
  return std::string(xml.substr(b, e - b));
}

std::string XmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string XmlUnescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const size_t semi = s[i] == '&' ? s.find(';', i) : std::string_view::npos;
    if (semi == std::string_view::npos || semi - i > 10) {
      out.push_back(s[i]);
      continue;
    }
    const std::string_view entity = s.substr(i + 1, semi - i - 1);
    static constexpr std::pair<std::string_view, char> kNamed[] = {
        {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
    bool done = false;
    for (const auto& [name, c] : kNamed) {
      if (entity == name) {
        out.push_back(c);
        done = true;
      }
    }
    if (!done && entity.size() > 1 && entity[0] == '#') {
      const bool hex = entity[1] == 'x' || entity[1] == 'X';
      const std::string_view digits = entity.substr(hex ? 2 : 1);
      uint32_t cp = 0;
      auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), cp, hex ? 16 : 10);
      if (ec == std::errc() && end == digits.data() + digits.size() && !digits.empty() && cp <= 0x10FFFF) {
        AppendUtf8(cp, out);
        done = true;
      }
    }
    if (!done) {
      out.push_back(s[i]);
      continue;
    }
    i = semi;
  }
  return out;
}

}  // namespace lakeshore::s3_internal
