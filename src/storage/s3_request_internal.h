// A minimal signed S3 HTTP client over libcurl for the requests Arrow's S3FileSystem lacks:
// the conditional PUT behind put-if-absent and the multi-object delete. Internal.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "lakeshore/status.h"
#include "storage/sigv4_internal.h"

namespace lakeshore::s3_internal {

/// Where requests go. Path-style addressing (scheme://endpoint/bucket/key) when an endpoint
/// override is given, virtual-hosted style (https://bucket.s3.region.amazonaws.com/key) else.
struct S3Endpoint {
  std::string scheme = "https";
  std::string endpoint_override;  ///< "host:port", empty for AWS
  std::string region = "us-east-1";
};

/// The status code and body of a completed HTTP exchange.
struct HttpResponse {
  long status = 0;
  std::string body;
};

/// Signs and sends single S3 requests. Thread-safe (one reused curl handle per thread, so
/// connections are kept alive between a thread's requests). Transport
/// failures (no connection, timeout) are IOError naming the URL; HTTP error statuses are
/// returned as responses for the caller to interpret.
class S3RequestClient {
 public:
  using CredentialsFn = std::function<SigV4Credentials()>;
  S3RequestClient(S3Endpoint endpoint, CredentialsFn credentials);

  /// Sends `method` to `key` in `bucket` (key "" addresses the bucket itself) with the
  /// canonical `query` ("delete=" for `?delete`), extra `headers` and `body`.
  Result<HttpResponse> Send(const std::string& method, const std::string& bucket,
                            std::string_view key, const std::string& query,
                            std::vector<HttpHeader> headers, std::string_view body) const;

 private:
  S3Endpoint endpoint_;
  CredentialsFn credentials_;
};

/// The text of the first <tag>...</tag> in `xml` at or after `from`, or "" (enough for the
/// flat error documents S3 returns). `*end` receives the position after the closing tag.
std::string XmlElement(std::string_view xml, std::string_view tag, size_t from = 0,
                       size_t* end = nullptr);

/// Escapes & < > " ' for an XML text node.
std::string XmlEscape(std::string_view s);

/// The text of an XML text node: the five predefined entities and numeric character
/// references (&#N; &#xH;, as UTF-8) replaced; anything else left as it is.
std::string XmlUnescape(std::string_view s);

}  // namespace lakeshore::s3_internal
