#include "common/file_uri.h"

#include <strings.h>

namespace lakeshore {
namespace {
/// ASCII case-insensitive equality (URI schemes and host names are case-insensitive).
bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && ::strncasecmp(a.data(), b.data(), a.size()) == 0;
}
}  // namespace

Result<std::optional<std::string_view>> PathOfFileUri(std::string_view text) {
  constexpr std::string_view kScheme = "file:";
  if (text.size() < kScheme.size() || !EqualsIgnoringCase(text.substr(0, kScheme.size()), kScheme)) {
    return std::nullopt;
  }
  std::string_view rest = text.substr(kScheme.size());
  if (rest.substr(0, 2) == "//") {
    rest.remove_prefix(2);
    const size_t slash = rest.find('/');
    const std::string_view host = rest.substr(0, slash);
    if (!host.empty() && !EqualsIgnoringCase(host, "localhost")) {
      return Status::Invalid("'", text, "' names the host '", host, "': only local file: URIs (file:///path, "
                             "file://localhost/path, file:/path) name a local path");
    }
    rest = slash == std::string_view::npos ? std::string_view("/") : rest.substr(slash);
  }
  if (rest.empty() || rest.front() != '/') {
    return Status::Invalid("'", text, "' is a file: URI without an absolute path (file:///path)");
  }
  return std::optional<std::string_view>(rest);
}

}  // namespace lakeshore
