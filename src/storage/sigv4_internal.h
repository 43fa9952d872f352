// AWS Signature Version 4 for the few S3 requests Arrow's S3FileSystem cannot make
// (conditional PUT, multi-object delete). Internal: never installed.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lakeshore::s3_internal {

/// An access key pair, with the session token of temporary credentials (may be empty).
struct SigV4Credentials {
  std::string access_key;
  std::string secret_key;
  std::string session_token;
};

/// One HTTP request header, name as sent.
using HttpHeader = std::pair<std::string, std::string>;

/// What SignS3Request needs to know about the request.
struct SigV4Request {
  std::string method;           ///< "PUT", "POST", ...
  std::string host;             ///< the Host header value, "host[:port]"
  std::string canonical_uri;    ///< the already URI-encoded path, e.g. "/bucket/a%20b"
  std::string canonical_query;  ///< sorted "k=v&..." with encoded names and values; "" if none
  std::vector<HttpHeader> headers;  ///< extra headers to sign and send (not host/x-amz-*)
  std::string payload_sha256_hex;   ///< hex SHA-256 of the body
};

/// Percent-encodes `s` as SigV4 wants: every byte except A-Z a-z 0-9 - _ . ~ becomes %XX
/// (upper-case hex); '/' is kept when `keep_slash`. Cost: O(|s|).
std::string UriEncode(std::string_view s, bool keep_slash);

/// Lower-case hex SHA-256 of `data`.
std::string HexSha256(std::string_view data);

/// Base64 of the MD5 of `data` (the Content-MD5 header value).
std::string Base64Md5(std::string_view data);

/// Signs `request` for service s3 in `region` at `amz_date` ("yyyyMMddTHHmmssZ", UTC) and
/// returns every header to send: the request's own headers plus host, x-amz-date,
/// x-amz-content-sha256, x-amz-security-token (if a session token is set) and Authorization.
std::vector<HttpHeader> SignS3Request(const SigV4Request& request, const std::string& region,
                                      const SigV4Credentials& credentials,
                                      const std::string& amz_date);

/// The current UTC time as a SigV4 date ("yyyyMMddTHHmmssZ").
std::string AmzDateNow();

}  // namespace lakeshore::s3_internal
