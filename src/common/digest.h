// Internal: message digests (MD5, SHA-256, HMAC-SHA256) over GNU Nettle.
//
// Nettle keeps no global state and exports only `nettle_*` names, so it cannot clash with the
// OpenSSL that pyarrow's libraries carry inside them (linking the system libcrypto into the
// same process made `import lakeshore; import hashlib` crash). Nothing in Lakeshore links
// OpenSSL directly.
#pragma once

#include <string>
#include <string_view>

namespace lakeshore {

/// The 16-byte MD5 digest of `data` (raw bytes). S3's Content-MD5; the metadata table's
/// file-name keys. O(size).
std::string Md5(std::string_view data);

/// The 32-byte SHA-256 digest of `data` (raw bytes). O(size).
std::string Sha256(std::string_view data);

/// The 32-byte HMAC-SHA256 of `data` under `key` (raw bytes). O(size).
std::string HmacSha256(std::string_view key, std::string_view data);

/// Lowercase hex of raw bytes.
std::string HexLower(std::string_view bytes);

}  // namespace lakeshore
