// Internal: Java `.properties` documents (java.util.Properties load and store syntax), the
// encoding of Hudi's `.hoodie/hoodie.properties`.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lakeshore/status.h"

namespace lakeshore::format {

/// Keys and values in document order; strings are UTF-8.
class JavaProperties {
 public:
  /// Parses `text` as Properties.load(InputStream) does: natural lines ending in "\n", "\r" or
  /// "\r\n"; '#' or '!' comments; a line ending in an odd number of backslashes continues on
  /// the next (whose leading blanks are dropped); the key ends at the first unescaped '=', ':'
  /// or blank; escapes \t \n \r \f \uXXXX and "\x" for any other x; bytes >= 0x80 are
  /// ISO-8859-1 characters. A key given twice keeps its last value, at its first position.
  /// A malformed \u escape → kCorruptMetadata naming `source` and the line. O(size).
  static Result<JavaProperties> Parse(std::string_view text, const std::string& source);

  /// Renders the document as Properties.store does: "#" `comment` (if not empty), then
  /// `key=value` lines with '\', '=', ':', '#', '!', leading or key blanks and control
  /// characters escaped, and every character outside printable ASCII as \uXXXX (UTF-16).
  /// Parse(Render()) gives back the same entries. O(size).
  std::string Render(std::string_view comment = {}) const;

  /// The value of `key`, if present.
  std::optional<std::string> Get(std::string_view key) const;
  /// Sets `key` (in place if present, else appended).
  void Set(std::string key, std::string value);
  /// Removes `key`; true if it was there.
  bool Remove(std::string_view key);

  const std::vector<std::pair<std::string, std::string>>& entries() const { return entries_; }

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

}  // namespace lakeshore::format
