#include "format/java_properties.h"

#include <cstdint>

#include "common/percent_encoding.h"
#include "common/utf8.h"

namespace lakeshore::format {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\f'; }

/// One logical line: its text with continuations joined (escapes still in place) and the
/// number of its first natural line.
struct LogicalLine {
  std::string text;
  int line_number = 0;
};

std::vector<LogicalLine> LogicalLines(std::string_view text) {
  std::vector<LogicalLine> out;
  LogicalLine current;
  bool continuing = false;
  int line = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t end = text.find_first_of("\r\n", i);
    if (end == std::string_view::npos) end = text.size();
    std::string_view natural = text.substr(i, end - i);
    ++line;
    i = end + (end + 1 < text.size() && text[end] == '\r' && text[end + 1] == '\n' ? 2 : 1);
    while (!natural.empty() && IsBlank(natural.front())) natural.remove_prefix(1);
    if (!continuing) {
      if (natural.empty() || natural.front() == '#' || natural.front() == '!') continue;
      current = LogicalLine{std::string(), line};
    }
    size_t backslashes = 0;
    while (backslashes < natural.size() && natural[natural.size() - 1 - backslashes] == '\\') ++backslashes;
    continuing = backslashes % 2 == 1;
    current.text.append(natural.substr(0, natural.size() - (continuing ? 1 : 0)));
    if (!continuing) out.push_back(std::move(current));
  }
  if (continuing) out.push_back(std::move(current));
  return out;
}

/// Decodes escapes and ISO-8859-1 bytes of `raw` into UTF-8.
Result<std::string> Unescape(std::string_view raw, const std::string& source, int line) {
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    auto byte = static_cast<unsigned char>(raw[i]);
    if (byte != '\\') {
      AppendUtf8(byte, out);
      continue;
    }
    if (++i >= raw.size()) break;  // a lone trailing backslash is dropped, as Java does
    char c = raw[i];
    switch (c) {
      case 't': out.push_back('\t'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 'f': out.push_back('\f'); break;
      case 'u': {
        uint32_t unit = 0;
        for (int k = 0; k < 4; ++k) {
          int d = i + 1 + k < raw.size() ? HexDigitValue(raw[i + 1 + k]) : -1;
          if (d < 0) {
            return CorruptMetadata("'" + source + "' line " + std::to_string(line) + ": malformed \\uXXXX escape");
          }
          unit = unit * 16 + static_cast<uint32_t>(d);
        }
        i += 4;
        // A UTF-16 surrogate pair spelled as two escapes is one character.
        if (unit >= 0xD800 && unit < 0xDC00 && i + 6 < raw.size() && raw[i + 1] == '\\' && raw[i + 2] == 'u') {
          uint32_t low = 0;
          bool ok = true;
          for (int k = 0; k < 4; ++k) {
            int d = HexDigitValue(raw[i + 3 + k]);
            ok &= d >= 0;
            low = low * 16 + static_cast<uint32_t>(d < 0 ? 0 : d);
          }
          if (ok && low >= 0xDC00 && low < 0xE000) {
            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
            i += 6;
          }
        }
        AppendUtf8(unit, out);
        break;
      }
      default:
        AppendUtf8(static_cast<unsigned char>(c), out);
    }
  }
  return out;
}

/// The next code point of UTF-8 `s` at `i` (advancing it); invalid bytes are taken as
/// ISO-8859-1 characters.
uint32_t NextCodePoint(std::string_view s, size_t& i) {
  auto b = static_cast<unsigned char>(s[i]);
  int extra = b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : b >= 0xC0 ? 1 : 0;
  if (b < 0x80 || extra == 0 || i + static_cast<size_t>(extra) >= s.size()) {
    ++i;
    return b;
  }
  uint32_t cp = b & (0x3F >> extra);
  for (int k = 1; k <= extra; ++k) {
    auto c = static_cast<unsigned char>(s[i + k]);
    if ((c & 0xC0) != 0x80) {
      ++i;
      return b;
    }
    cp = (cp << 6) | (c & 0x3F);
  }
  i += static_cast<size_t>(extra) + 1;
  return cp;
}

void AppendUnicodeEscape(uint32_t unit, std::string& out) {
  static const char* kHex = "0123456789ABCDEF";
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out.push_back(kHex[(unit >> shift) & 0xF]);
}

/// Escapes as Properties.saveConvert does (escapeSpace: every space in keys, the leading one
/// in values).
void AppendEscaped(std::string_view s, bool is_key, std::string& out) {
  size_t i = 0;
  bool first = true;
  while (i < s.size()) {
    uint32_t cp = NextCodePoint(s, i);
    switch (cp) {
      case ' ': out += (is_key || first) ? "\\ " : " "; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\f': out += "\\f"; break;
      case '\\': case '=': case ':': case '#': case '!':
        out.push_back('\\');
        out.push_back(static_cast<char>(cp));
        break;
      default:
        if (cp < 0x20 || cp > 0x7E) {
          if (cp > 0xFFFF) {
            uint32_t v = cp - 0x10000;
            AppendUnicodeEscape(0xD800 + (v >> 10), out);
            AppendUnicodeEscape(0xDC00 + (v & 0x3FF), out);
          } else {
            AppendUnicodeEscape(cp, out);
          }
        } else {
          out.push_back(static_cast<char>(cp));
        }
    }
    first = false;
  }
}

}  // namespace

Result<JavaProperties> JavaProperties::Parse(std::string_view text, const std::string& source) {
  JavaProperties out;
  for (const auto& line : LogicalLines(text)) {
    const std::string& t = line.text;
    size_t key_end = 0;
    bool escaped = false;
    for (; key_end < t.size(); ++key_end) {
      char c = t[key_end];
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '=' || c == ':' || IsBlank(c)) {
        break;
      }
    }
    size_t value_start = key_end;
    while (value_start < t.size() && IsBlank(t[value_start])) ++value_start;
    if (value_start < t.size() && (t[value_start] == '=' || t[value_start] == ':')) {
      ++value_start;
      while (value_start < t.size() && IsBlank(t[value_start])) ++value_start;
    }
    ARROW_ASSIGN_OR_RAISE(auto key, Unescape(std::string_view(t).substr(0, key_end), source, line.line_number));
    ARROW_ASSIGN_OR_RAISE(auto value, Unescape(std::string_view(t).substr(value_start), source, line.line_number));
    out.Set(std::move(key), std::move(value));
  }
  return out;
}

std::string JavaProperties::Render(std::string_view comment) const {
  std::string out;
  if (!comment.empty()) {
    out += "#";
    out += comment;
    out += "\n";
  }
  for (const auto& [key, value] : entries_) {
    AppendEscaped(key, /*is_key=*/true, out);
    out.push_back('=');
    AppendEscaped(value, /*is_key=*/false, out);
    out.push_back('\n');
  }
  return out;
}

std::optional<std::string> JavaProperties::Get(std::string_view key) const {
  for (const auto& [k, v] : entries_) {
    if (k == key) return v;
  }
  return std::nullopt;
}

void JavaProperties::Set(std::string key, std::string value) {
  for (auto& [k, v] : entries_) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  entries_.emplace_back(std::move(key), std::move(value));
}

bool JavaProperties::Remove(std::string_view key) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->first == key) {
      entries_.erase(it);
      return true;
    }
  }
  return false;
}

}  // namespace lakeshore::format
