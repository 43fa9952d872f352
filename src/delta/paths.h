// Internal: the path rules of the Delta log (URL-encoded paths, absolute URIs, deletion
// vector file names derived from Z85-encoded UUIDs).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "lakeshore/delta/actions.h"
#include "lakeshore/status.h"

namespace lakeshore::delta {

/// Decodes %XX escapes (RFC 3986). A '%' not followed by two hex digits → Invalid.
Result<std::string> UrlDecode(std::string_view encoded);

/// Decodes Z85 (ZeroMQ base85): every 5 characters give 4 bytes, big-endian. Input length not
/// a multiple of 5 or a character outside the alphabet → Invalid.
Result<std::string> Z85Decode(std::string_view text);

/// Maps a decoded log path to a path relative to the table whose root is `root_uri`:
/// a relative path is normalized; an absolute URI or path under the root is relativized
/// (`file:/x`, `file:///x` and `/x` are the same local path). A path outside the root (or with
/// ".." segments) → kPathOutsideTable naming it.
Result<std::string> RelativizeToTable(const std::string& path, const std::string& root_uri);

/// The file of a deletion vector relative to the table root: for "u",
/// `<prefix>/deletion_vector_<uuid>.bin`; for "p", the relativized absolute path (outside the
/// table → kPathOutsideTable); for "i", nullopt (inline, no file). An unknown storage type or
/// an undecodable UUID → kCorruptMetadata.
Result<std::optional<std::string>> DeletionVectorPath(const DeletionVectorDescriptor& dv,
                                                      const std::string& root_uri);

}  // namespace lakeshore::delta
