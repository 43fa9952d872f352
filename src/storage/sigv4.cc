#include "storage/sigv4_internal.h"

#include <algorithm>
#include <cctype>
#include <ctime>

#include "common/base64.h"
#include "common/digest.h"

namespace lakeshore::s3_internal {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return std::string();
  size_t e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

}  // namespace

std::string UriEncode(std::string_view s, bool keep_slash) {
  static const char* kDigits = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size() * 3);
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kDigits[c >> 4]);
      out.push_back(kDigits[c & 15]);
    }
  }
  return out;
}

std::string HexSha256(std::string_view data) { return HexLower(Sha256(data)); }

std::string Base64Md5(std::string_view data) { return Base64Encode(Md5(data)); }

std::vector<HttpHeader> SignS3Request(const SigV4Request& request, const std::string& region,
                                      const SigV4Credentials& credentials,
                                      const std::string& amz_date) {
  std::vector<HttpHeader> headers = request.headers;
  headers.emplace_back("Host", request.host);
  headers.emplace_back("x-amz-date", amz_date);
  headers.emplace_back("x-amz-content-sha256", request.payload_sha256_hex);
  if (!credentials.session_token.empty()) {
    headers.emplace_back("x-amz-security-token", credentials.session_token);
  }
  // Canonical headers: lower-case names, trimmed values, sorted by name.
  std::vector<HttpHeader> canonical;
  for (const auto& [name, value] : headers) canonical.emplace_back(Lower(name), Trim(value));
  std::sort(canonical.begin(), canonical.end());
  std::string canonical_headers, signed_headers;
  for (const auto& [name, value] : canonical) {
    canonical_headers += name + ":" + value + "\n";
    if (!signed_headers.empty()) signed_headers += ";";
    signed_headers += name;
  }
  std::string canonical_request = request.method + "\n" + request.canonical_uri + "\n" +
                                  request.canonical_query + "\n" + canonical_headers + "\n" +
                                  signed_headers + "\n" + request.payload_sha256_hex;
  std::string day = amz_date.substr(0, 8);
  std::string scope = day + "/" + region + "/s3/aws4_request";
  std::string string_to_sign =
      "AWS4-HMAC-SHA256\n" + amz_date + "\n" + scope + "\n" + HexSha256(canonical_request);
  std::string key = HmacSha256("AWS4" + credentials.secret_key, day);
  key = HmacSha256(key, region);
  key = HmacSha256(key, "s3");
  key = HmacSha256(key, "aws4_request");
  std::string signature = HexLower(HmacSha256(key, string_to_sign));
  headers.emplace_back("Authorization", "AWS4-HMAC-SHA256 Credential=" + credentials.access_key +
                                            "/" + scope + ", SignedHeaders=" + signed_headers +
                                            ", Signature=" + signature);
  return headers;
}

std::string AmzDateNow() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

}  // namespace lakeshore::s3_internal
