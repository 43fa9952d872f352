// Internal: the local path a file: URI names (RFC 8089), one reading for table roots and blob
// references alike.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "lakeshore/status.h"

namespace lakeshore {

/// The path part of a file: URI, not percent-decoded: "file:///x", "file://localhost/x" and
/// "file:/x" all give "/x", the scheme and host in any case (Hadoop and Spark print local paths as "file:/x"). nullopt when
/// `text` is not a file: URI. Invalid, naming the text, for a file URI naming another host
/// ("file://otherhost/x") or without an absolute path ("file:x"): such a path is not local,
/// and was once read as a folder under the current directory.
Result<std::optional<std::string_view>> PathOfFileUri(std::string_view text);

}  // namespace lakeshore
