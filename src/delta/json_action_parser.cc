#include "delta/json_action_parser.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/side_by_side.h"
#include "delta/action_reader.h"

namespace lakeshore::delta {
namespace {

constexpr int kMaxDepth = 64;

bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

/// A cursor over one line of a commit. Every reader returns false after recording the first
/// problem (with its column) in `error`; nothing throws.
class LineCursor {
 public:
  LineCursor(const char* begin, const char* end) : p_(begin), begin_(begin), end_(end) {}

  const std::string& error() const { return error_; }

  bool Fail(const std::string& what) {
    if (error_.empty()) error_ = what + " at column " + std::to_string(p_ - begin_ + 1);
    return false;
  }

  void SkipSpace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\r')) ++p_;
  }
  bool AtEnd() {
    SkipSpace();
    return p_ == end_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }
  bool ConsumeNull() {
    SkipSpace();
    if (end_ - p_ >= 4 && std::memcmp(p_, "null", 4) == 0) {
      p_ += 4;
      return true;
    }
    return false;
  }
  bool Peek(char c) {
    SkipSpace();
    return p_ < end_ && *p_ == c;
  }

  /// Reads a string; `decoded` (may be null: validate and skip) receives its value. `view`
  /// (may be null) points at the raw bytes when the string has no escape, else at `decoded`.
  bool String(std::string* decoded, std::string_view* view = nullptr) {
    if (!Consume('"')) return Fail("expected a string");
    const char* start = p_;
    while (p_ < end_) {
      char c = *p_;
      if (c == '"') {
        if (decoded != nullptr) decoded->assign(start, static_cast<size_t>(p_ - start));
        if (view != nullptr) *view = std::string_view(start, static_cast<size_t>(p_ - start));
        ++p_;
        return true;
      }
      if (c == '\\') break;
      if (static_cast<unsigned char>(c) < 0x20) return Fail("control character in a string");
      ++p_;
    }
    if (p_ == end_) return Fail("unterminated string");
    // Slow path: escapes.
    std::string* out = decoded != nullptr ? decoded : (view != nullptr ? &scratch_ : nullptr);
    if (out != nullptr) out->assign(start, static_cast<size_t>(p_ - start));
    while (p_ < end_) {
      char c = *p_;
      if (c == '"') {
        ++p_;
        if (view != nullptr) *view = std::string_view(*out);
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20) return Fail("control character in a string");
      if (c != '\\') {
        if (out != nullptr) out->push_back(c);
        ++p_;
        continue;
      }
      if (end_ - p_ < 2) return Fail("unterminated escape");
      char e = p_[1];
      p_ += 2;
      char plain = 0;
      switch (e) {
        case '"': plain = '"'; break;
        case '\\': plain = '\\'; break;
        case '/': plain = '/'; break;
        case 'b': plain = '\b'; break;
        case 'f': plain = '\f'; break;
        case 'n': plain = '\n'; break;
        case 'r': plain = '\r'; break;
        case 't': plain = '\t'; break;
        case 'u': {
          uint32_t cp = 0;
          if (!Hex4(&cp)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t low = 0;
            if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return Fail("unpaired surrogate in a \\u escape");
            p_ += 2;
            if (!Hex4(&low)) return false;
            if (low < 0xDC00 || low > 0xDFFF) return Fail("unpaired surrogate in a \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return Fail("unpaired surrogate in a \\u escape");
          }
          if (out != nullptr) AppendUtf8(cp, out);
          continue;
        }
        default: return Fail(std::string("invalid escape '\\") + e + "'");
      }
      if (out != nullptr) out->push_back(plain);
    }
    return Fail("unterminated string");
  }

  /// Reads an integer field: null → nullopt; a fraction, an exponent or a value outside
  /// [lo, hi] is an error.
  bool Int(std::string_view field, std::optional<int64_t>* out,
           int64_t lo = std::numeric_limits<int64_t>::min(), int64_t hi = std::numeric_limits<int64_t>::max()) {
    if (ConsumeNull()) {
      out->reset();
      return true;
    }
    const char* start = p_;
    bool integral = true;
    if (!Number(&integral)) return Fail("field '" + std::string(field) + "' is not a number");
    if (!integral) return Fail("field '" + std::string(field) + "' is not an integer");
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(start, p_, v);
    if (ec != std::errc() || ptr != p_ || v < lo || v > hi) {
      return Fail("field '" + std::string(field) + "' is out of range");
    }
    *out = v;
    return true;
  }

  /// Reads a string field: null → nullopt; any other type is an error.
  bool OptString(std::string_view field, std::optional<std::string>* out) {
    if (ConsumeNull()) {
      out->reset();
      return true;
    }
    if (!Peek('"')) return Fail("field '" + std::string(field) + "' is not a string");
    std::string value;
    if (!String(&value)) return false;
    *out = std::move(value);
    return true;
  }

  /// Reads a list of strings (null → empty; null items are skipped).
  bool Strings(std::string_view field, std::vector<std::string>* out) {
    out->clear();
    if (ConsumeNull()) return true;
    if (!Consume('[')) return Fail("field '" + std::string(field) + "' is not a list");
    if (Consume(']')) return true;
    for (;;) {
      if (!ConsumeNull()) {
        if (!Peek('"')) return Fail("field '" + std::string(field) + "' holds a value that is not a string");
        out->emplace_back();
        if (!String(&out->back())) return false;
      }
      if (Consume(',')) continue;
      if (Consume(']')) return true;
      return Fail("expected ',' or ']'");
    }
  }

  /// Walks an object, calling `member(key)` with the cursor at each value; `member` must read
  /// or skip the value. The key view is valid only until the value is read.
  template <typename Member>
  bool Object(int depth, Member&& member) {
    if (!Consume('{')) return Fail("expected an object");
    if (depth > kMaxDepth) return Fail("nesting deeper than " + std::to_string(kMaxDepth));
    if (Consume('}')) return true;
    for (;;) {
      std::string_view key;
      SkipSpace();
      if (p_ == end_ || *p_ != '"') return Fail("expected a field name");
      if (!String(nullptr, &key)) return false;
      if (!Consume(':')) return Fail("expected ':'");
      if (!member(key)) return false;
      if (Consume(',')) continue;
      if (Consume('}')) return true;
      return Fail("expected ',' or '}'");
    }
  }

  /// Validates and skips any JSON value.
  bool Skip(int depth) {
    SkipSpace();
    if (p_ == end_) return Fail("value expected");
    switch (*p_) {
      case '"': return String(nullptr);
      case '{': return Object(depth + 1, [&](std::string_view) { return Skip(depth + 1); });
      case '[': {
        ++p_;
        if (depth + 1 > kMaxDepth) return Fail("nesting deeper than " + std::to_string(kMaxDepth));
        if (Consume(']')) return true;
        for (;;) {
          if (!Skip(depth + 1)) return false;
          if (Consume(',')) continue;
          if (Consume(']')) return true;
          return Fail("expected ',' or ']'");
        }
      }
      case 't': return Literal("true");
      case 'f': return Literal("false");
      case 'n': return Literal("null");
      default: {
        bool integral = true;
        return Number(&integral) || Fail("invalid value");
      }
    }
  }

 private:
  bool Hex4(uint32_t* out) {
    if (end_ - p_ < 4) return Fail("truncated \\u escape");
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      if (!IsHex(p_[k])) return Fail("invalid \\u escape");
      v = v * 16 + static_cast<uint32_t>(HexValue(p_[k]));
    }
    p_ += 4;
    *out = v;
    return true;
  }

  bool Literal(const char* word) {
    size_t n = std::strlen(word);
    if (static_cast<size_t>(end_ - p_) < n || std::memcmp(p_, word, n) != 0) return Fail("invalid value");
    p_ += n;
    return true;
  }

  /// Consumes a JSON number (RFC 8259 grammar); `integral` turns false on a fraction or exponent.
  bool Number(bool* integral) {
    SkipSpace();
    const char* q = p_;
    if (q < end_ && *q == '-') ++q;
    if (q == end_ || *q < '0' || *q > '9') return false;
    if (*q == '0') {
      ++q;
    } else {
      while (q < end_ && *q >= '0' && *q <= '9') ++q;
    }
    if (q < end_ && *q == '.') {
      *integral = false;
      ++q;
      if (q == end_ || *q < '0' || *q > '9') return false;
      while (q < end_ && *q >= '0' && *q <= '9') ++q;
    }
    if (q < end_ && (*q == 'e' || *q == 'E')) {
      *integral = false;
      ++q;
      if (q < end_ && (*q == '+' || *q == '-')) ++q;
      if (q == end_ || *q < '0' || *q > '9') return false;
      while (q < end_ && *q >= '0' && *q <= '9') ++q;
    }
    p_ = q;
    return true;
  }

  const char* p_;
  const char* begin_;
  const char* end_;
  std::string error_;
  std::string scratch_;  // a decoded key with escapes
};

/// The fields of an `add` / `remove` / `cdc` / `sidecar` action Lakeshore reads, before the
/// protocol's rules are checked (action_reader.h: the same checks as the Parquet reader's).
struct RawFileAction {
  std::optional<std::string> path;
  std::optional<int64_t> size, modification_time, deletion_timestamp;
  std::optional<RawDeletionVector> deletion_vector;
};

bool ReadDeletionVector(LineCursor& c, int depth, RawFileAction* out) {
  if (c.ConsumeNull()) return true;
  RawDeletionVector dv;
  constexpr int64_t kI32Min = std::numeric_limits<int32_t>::min(), kI32Max = std::numeric_limits<int32_t>::max();
  bool ok = c.Object(depth, [&](std::string_view key) {
    if (key == "storageType") return c.OptString(key, &dv.storage_type);
    if (key == "pathOrInlineDv") return c.OptString(key, &dv.path_or_inline_dv);
    if (key == "offset") return c.Int(key, &dv.offset, kI32Min, kI32Max);
    if (key == "sizeInBytes") return c.Int(key, &dv.size_in_bytes, kI32Min, kI32Max);
    if (key == "cardinality") return c.Int(key, &dv.cardinality);
    return c.Skip(depth);
  });
  if (ok) out->deletion_vector = std::move(dv);
  return ok;
}

/// Reads an add, remove, cdc or sidecar action; its size is the field `size_key`.
bool ReadFileAction(LineCursor& c, int depth, std::string_view size_key, RawFileAction* out) {
  return c.Object(depth, [&](std::string_view key) {
    if (key == "path") return c.OptString(key, &out->path);
    if (key == size_key) return c.Int(key, &out->size);
    if (key == "modificationTime") return c.Int(key, &out->modification_time);
    if (key == "deletionTimestamp") return c.Int(key, &out->deletion_timestamp);
    if (key == "deletionVector") return ReadDeletionVector(c, depth + 1, out);
    return c.Skip(depth);
  });
}

/// A file action's decoded path and deletion vector, checked as ActionsFromTable checks them.
Status CheckFileAction(RawFileAction& raw, const char* kind, const std::string& source, int64_t action,
                       std::string* path, std::optional<DeletionVectorDescriptor>* dv) {
  const auto raw_path = raw.path ? std::optional<std::string_view>(*raw.path) : std::nullopt;
  ARROW_ASSIGN_OR_RAISE(*path, DecodeActionPath(raw_path, kind, source, action));
  if (raw.deletion_vector && dv != nullptr) {
    ARROW_ASSIGN_OR_RAISE(auto d, MakeDeletionVector(std::move(*raw.deletion_vector), source, action));
    *dv = std::move(d);
  }
  return Status::OK();
}

/// What one line contributed, before its actions are checked.
struct RawLine {
  std::optional<RawFileAction> add, remove, cdc, sidecar;
  std::optional<Metadata> metadata;
  std::optional<std::pair<std::optional<int64_t>, std::optional<int64_t>>> protocol_versions;
  std::optional<Protocol> protocol;
  std::optional<CommitInfo> commit_info;
};

bool ReadLine(LineCursor& c, RawLine* line) {
  constexpr int kTop = 1, kAction = 2;
  constexpr int64_t kI32Min = std::numeric_limits<int32_t>::min(), kI32Max = std::numeric_limits<int32_t>::max();
  // A line is one action (the protocol's SingleAction): a line with two (`{"add":..,"remove":..}`)
  // is malformed, and applying both, or either, would guess at what the writer meant.
  int actions = 0;
  auto file_action = [&](std::optional<RawFileAction>* slot, std::string_view size_key = "size") {
    if (c.ConsumeNull()) return true;
    ++actions;
    slot->emplace();
    return ReadFileAction(c, kAction, size_key, &**slot);
  };
  const bool read = c.Object(kTop, [&](std::string_view key) {
    if (key != "add" && key != "remove" && key != "cdc" && key != "sidecar") {
      if (c.ConsumeNull()) return true;
      if (key == "metaData" || key == "protocol" || key == "commitInfo" || key == "txn" || key == "domainMetadata" ||
          key == "checkpointMetadata") {
        ++actions;
      }
    }
    if (key == "add") return file_action(&line->add);
    if (key == "remove") return file_action(&line->remove);
    if (key == "cdc") return file_action(&line->cdc);
    if (key == "sidecar") return file_action(&line->sidecar, "sizeInBytes");
    if (key == "metaData") {
      if (c.ConsumeNull()) return true;
      Metadata m;
      bool ok = c.Object(kAction, [&](std::string_view field) {
        if (field == "id") {
          std::optional<std::string> id;
          if (!c.OptString(field, &id)) return false;
          m.id = id.value_or("");
          return true;
        }
        if (field == "partitionColumns") return c.Strings(field, &m.partition_columns);
        if (field == "configuration") {
          m.configuration.clear();
          if (c.ConsumeNull()) return true;
          return c.Object(kAction + 1, [&](std::string_view name) {
            for (const char* interpreted : kInterpretedTableProperties) {
              if (name != interpreted) continue;
              std::optional<std::string> value;
              if (!c.OptString(interpreted, &value)) return false;
              if (value) {
                m.configuration[interpreted] = std::move(*value);
              } else {
                m.configuration.erase(interpreted);
              }
              return true;
            }
            return c.Skip(kAction + 1);
          });
        }
        return c.Skip(kAction);
      });
      if (ok) line->metadata = std::move(m);
      return ok;
    }
    if (key == "protocol") {
      if (c.ConsumeNull()) return true;
      Protocol p;
      std::optional<int64_t> reader, writer;
      bool ok = c.Object(kAction, [&](std::string_view field) {
        if (field == "minReaderVersion") return c.Int(field, &reader, kI32Min, kI32Max);
        if (field == "minWriterVersion") return c.Int(field, &writer, kI32Min, kI32Max);
        if (field == "readerFeatures") return c.Strings(field, &p.reader_features);
        if (field == "writerFeatures") return c.Strings(field, &p.writer_features);
        return c.Skip(kAction);
      });
      if (ok) {
        line->protocol = std::move(p);
        line->protocol_versions.emplace(reader, writer);
      }
      return ok;
    }
    if (key == "commitInfo") {
      if (c.ConsumeNull()) return true;
      CommitInfo info;
      bool ok = c.Object(kAction, [&](std::string_view field) {
        if (field == "timestamp") return c.Int(field, &info.timestamp);
        if (field == "inCommitTimestamp") return c.Int(field, &info.in_commit_timestamp);
        if (field == "operation") {
          std::optional<std::string> op;
          if (!c.OptString(field, &op)) return false;
          info.operation = op.value_or("");
          return true;
        }
        return c.Skip(kAction);
      });
      if (ok) line->commit_info = std::move(info);
      return ok;
    }
    return c.Skip(kTop);
  });
  if (read && actions > 1) {
    c.Fail("more than one action on one line (each line of a Delta log holds one)");
    return false;
  }
  return read;
}

/// Moves one line's actions into `out` after the protocol's checks; `action` is the line's
/// number among the non-blank lines (1-based), as errors count actions.
Status Apply(RawLine& line, const std::string& source, int64_t action, ActionSet* out) {
  bool any = false;
  if (line.add) {
    AddFile f;
    ARROW_RETURN_NOT_OK(CheckFileAction(*line.add, "add", source, action, &f.path, &f.deletion_vector));
    f.size = line.add->size.value_or(0);
    f.modification_time = line.add->modification_time.value_or(0);
    out->adds.push_back(std::move(f));
    any = true;
  }
  if (line.remove) {
    RemoveFile f;
    ARROW_RETURN_NOT_OK(CheckFileAction(*line.remove, "remove", source, action, &f.path, &f.deletion_vector));
    f.deletion_timestamp = line.remove->deletion_timestamp;
    f.size = line.remove->size;
    out->removes.push_back(std::move(f));
    any = true;
  }
  // A file action that is just a path and a size (cdc, sidecar).
  auto path_and_size = [&](std::optional<RawFileAction>& raw, const char* kind, auto& into,
                           auto size_member) -> Status {
    if (!raw) return Status::OK();
    typename std::decay_t<decltype(into)>::value_type f;
    ARROW_RETURN_NOT_OK(CheckFileAction(*raw, kind, source, action, &f.path, nullptr));
    f.*size_member = raw->size.value_or(0);
    into.push_back(std::move(f));
    any = true;
    return Status::OK();
  };
  ARROW_RETURN_NOT_OK(path_and_size(line.cdc, "cdc", out->cdc, &CdcFile::size));
  if (line.metadata) {
    out->metadata = std::move(line.metadata);
    any = true;
  }
  if (line.protocol) {
    auto [reader, writer] = *line.protocol_versions;
    if (!reader || !writer) return CorruptAction(source, action, "protocol action without minReaderVersion/minWriterVersion");
    line.protocol->min_reader_version = static_cast<int32_t>(*reader);
    line.protocol->min_writer_version = static_cast<int32_t>(*writer);
    out->protocol = std::move(line.protocol);
    any = true;
  }
  if (line.commit_info) {
    out->commit_info = std::move(line.commit_info);
    any = true;
  }
  ARROW_RETURN_NOT_OK(path_and_size(line.sidecar, "sidecar", out->sidecars, &SidecarFile::size_in_bytes));
  if (any) ++out->num_actions;
  return Status::OK();
}

/// The whole lines of `data` into `out`, numbered after `line_base` lines and `action_base`
/// actions (the ones before them in the file). Counts what it read into `lines`, `actions`.
Status ParseLines(std::string_view data, const std::string& source, int64_t line_base, int64_t action_base,
                  ActionSet* out, int64_t* lines, int64_t* actions) {
  const char* p = data.data();
  const char* end = p + data.size();
  int64_t line_number = line_base, action = action_base;
  while (p < end) {
    const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
    const char* line_end = nl != nullptr ? static_cast<const char*>(nl) : end;
    ++line_number;
    LineCursor c(p, line_end);
    p = line_end + (nl != nullptr ? 1 : 0);
    if (c.AtEnd()) continue;  // a blank line
    ++action;
    RawLine line;
    if (!ReadLine(c, &line) || !c.AtEnd()) {
      if (c.error().empty()) c.Fail("unexpected text after the action");
      return CorruptMetadata("Delta log file '" + source + "' is corrupt or truncated: line " +
                             std::to_string(line_number) + ": " + c.error());
    }
    ARROW_RETURN_NOT_OK(Apply(line, source, action, out));
  }
  *lines = line_number - line_base;
  *actions = action - action_base;
  return Status::OK();
}

/// `data` cut at line ends into at most `parts` pieces of about equal size.
std::vector<std::string_view> SplitAtLines(std::string_view data, size_t parts) {
  std::vector<std::string_view> out;
  size_t begin = 0;
  for (size_t k = 1; k < parts && begin < data.size(); ++k) {
    const size_t target = std::max(begin, data.size() * k / parts);
    const size_t nl = data.find('\n', target);
    if (nl == std::string_view::npos) break;
    out.push_back(data.substr(begin, nl + 1 - begin));
    begin = nl + 1;
  }
  if (begin < data.size()) out.push_back(data.substr(begin));
  return out;
}

}  // namespace

Result<ActionSet> ParseJsonCommit(std::string_view data, const std::string& source, size_t split_bytes) {
  if (data.empty()) return CorruptMetadata("Delta log file '" + source + "' is empty");
  // A large commit (a compaction's thousands of removes) is parsed in pieces side by side;
  // small commits, the usual case, take one pass on this thread.
  const size_t parts = data.size() >= split_bytes
                           ? std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 8)
                           : 1;
  const std::vector<std::string_view> pieces = SplitAtLines(data, parts);
  struct Piece {
    ActionSet actions;
    int64_t lines = 0, actions_read = 0;
    Status status;
  };
  std::vector<Piece> parsed(pieces.size());
  RunSideBySide(pieces.size(), [&](size_t i) {
    Piece& piece = parsed[i];
    piece.status = ParseLines(pieces[i], source, 0, 0, &piece.actions, &piece.lines, &piece.actions_read);
  });
  int64_t lines = 0, actions = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (!parsed[i].status.ok()) {
      // The first piece in file order that failed, read again numbered after the pieces
      // before it: the error names the line and action a single pass would have named.
      ActionSet ignored;
      int64_t unused_lines = 0, unused_actions = 0;
      return ParseLines(pieces[i], source, lines, actions, &ignored, &unused_lines, &unused_actions);
    }
    lines += parsed[i].lines;
    actions += parsed[i].actions_read;
  }
  // The first piece's actions are the result; the others are appended to them in file order.
  ActionSet out = pieces.empty() ? ActionSet() : std::move(parsed[0].actions);
  for (size_t i = 1; i < pieces.size(); ++i) AppendActions(out, std::move(parsed[i].actions));
  if (actions == 0) return CorruptMetadata("Delta log file '" + source + "' holds no action");
  return out;
}

}  // namespace lakeshore::delta
