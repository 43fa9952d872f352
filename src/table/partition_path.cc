#include "table/partition_path.h"

#include <arrow/array.h>
#include <arrow/array/concatenate.h>
#include <arrow/compute/api.h>

#include <unordered_map>

#include "common/arrow_cast.h"
#include "common/percent_encoding.h"

namespace lakeshore {
namespace {
bool NeedsEscape(unsigned char c) {
  if (c < 0x20 || c == 0x7f) return true;
  switch (c) {
    case '"': case '#': case '%': case '\'': case '*': case '/': case ':': case '=':
    case '?': case '\\': case '{': case '[': case ']': case '^':
      return true;
    default:
      return false;
  }
}
}  // namespace

std::string EscapePartitionValue(const std::string& value) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (unsigned char c : value) {
    if (NeedsEscape(c)) {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

Result<std::string> UnescapePartitionValue(const std::string& escaped) {
  auto value = PercentDecode(escaped);
  if (!value.ok()) return Status::Invalid("malformed escape in partition value '", escaped, "'");
  return value;
}

Result<std::vector<std::pair<std::string, std::string>>> ParsePartitionPath(const std::string& path,
                                                                           const std::vector<std::string>& fields,
                                                                           PartitionStyle style) {
  std::vector<std::pair<std::string, std::string>> out;
  if (path.empty()) return out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    std::string seg = path.substr(start, end - start);
    std::string field, raw;
    if (style.hive_style) {
      size_t eq = seg.find('=');
      if (eq == std::string::npos || eq == 0) {
        return Status::Invalid("partition path '", path, "' has segment '", seg, "' not of the form field=value");
      }
      field = seg.substr(0, eq);
      raw = seg.substr(eq + 1);
    } else {
      if (out.size() >= fields.size()) {
        return Status::Invalid("partition path '", path, "' has more segments than the table has partition fields");
      }
      field = fields[out.size()];
      raw = seg;
    }
    if (style.url_encode) {
      ARROW_ASSIGN_OR_RAISE(raw, UnescapePartitionValue(raw));
    }
    out.emplace_back(std::move(field), std::move(raw));
    start = end + 1;
  }
  return out;
}

Result<std::vector<std::optional<std::string>>> ValuesAsStrings(const std::shared_ptr<arrow::ChunkedArray>& column) {
  std::vector<std::optional<std::string>> out;
  out.reserve(static_cast<size_t>(column->length()));
  std::shared_ptr<arrow::ChunkedArray> strings = column;
  if (column->type()->id() != arrow::Type::STRING) {
    ARROW_ASSIGN_OR_RAISE(auto datum, arrow::compute::Cast(arrow::Datum(column), arrow::utf8()));
    strings = datum.chunked_array();
  }
  for (const auto& chunk : strings->chunks()) {
    const auto& arr = static_cast<const arrow::StringArray&>(*chunk);
    for (int64_t i = 0; i < arr.length(); ++i) {
      if (arr.IsNull(i)) out.emplace_back(std::nullopt);
      else out.emplace_back(std::string(arr.GetView(i)));
    }
  }
  return out;
}

namespace {
// One partition column dictionary-encoded: per row a code, and the rendered `field=value`
// segment of each code (the last code is null).
struct EncodedColumn {
  std::vector<int32_t> codes;
  std::vector<std::string> segments;
};

Result<EncodedColumn> EncodeColumn(const arrow::Table& table, const std::string& field, PartitionStyle style) {
  auto column = table.GetColumnByName(field);
  if (column == nullptr) return SchemaMismatch("the batch has no partition column '" + field + "'");
  EncodedColumn out;
  out.codes.reserve(static_cast<size_t>(table.num_rows()));
  std::shared_ptr<arrow::Array> flat;
  ARROW_ASSIGN_OR_RAISE(flat, CombineChunks(*column));
  ARROW_ASSIGN_OR_RAISE(auto encoded, arrow::compute::DictionaryEncode(flat));
  auto encoded_array = encoded.make_array();
  const auto& dict = static_cast<const arrow::DictionaryArray&>(*encoded_array);
  auto dictionary = std::make_shared<arrow::ChunkedArray>(dict.dictionary());
  ARROW_ASSIGN_OR_RAISE(auto values, ValuesAsStrings(dictionary));
  // File systems refuse names over 255 bytes: such a folder could be neither written whole nor
  // removed by an abort, so a value that would make one is refused before anything is written.
  constexpr size_t kMaxNameBytes = 255;
  const std::string name = style.hive_style ? field + "=" : std::string();
  // Hudi's key generators (KeyGenUtils) put an empty value where they put a null, in the
  // default folder: the dictionary's "" takes the null code, so both rows share one partition.
  const int32_t null_code = static_cast<int32_t>(values.size());
  std::vector<int32_t> code_of_value(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const auto& v = values[i];
    code_of_value[i] = v && v->empty() ? null_code : static_cast<int32_t>(i);
    if (v && !style.url_encode && (v->find('/') != std::string::npos || *v == "." || *v == "..")) {
      return SchemaMismatch("partition field '" + field + "' has the value '" + *v + "', which cannot be a folder name "
                            "in a table that does not url-encode partition paths");
    }
    std::string segment = name + (v && !v->empty() ? (style.url_encode ? EscapePartitionValue(*v) : *v)
                                                   : std::string(kNullPartitionValue));
    // Names the table's own folders and files take: a partition there would be Hudi's metadata
    // folder (readers listing the table skip it), or the folder itself or its parent.
    if (segment == "." || segment == ".." || segment == ".hoodie" || segment == ".hoodie_partition_metadata") {
      return SchemaMismatch("partition field '" + field + "' has the value '" + *v + "', which cannot be a folder name "
                            "of a table (it is the folder itself, its parent, or a name Hudi keeps for its metadata)");
    }
    if (segment.size() > kMaxNameBytes) {
      return SchemaMismatch("partition field '" + field + "' has a value whose folder name '" + segment.substr(0, 40) +
                            "...' is " + std::to_string(segment.size()) + " bytes long; file systems allow " +
                            std::to_string(kMaxNameBytes));
    }
    out.segments.push_back(std::move(segment));
  }
  out.segments.push_back(name + kNullPartitionValue);
  for (int64_t i = 0; i < dict.length(); ++i) {
    out.codes.push_back(dict.IsNull(i) ? null_code : code_of_value[static_cast<size_t>(dict.GetValueIndex(i))]);
  }
  return out;
}
}  // namespace

Result<PartitionedRows> ComputePartitions(const arrow::Table& table, const std::vector<std::string>& fields,
                                          PartitionStyle style) {
  PartitionedRows out;
  size_t n = static_cast<size_t>(table.num_rows());
  if (fields.empty()) {
    if (n > 0) out.paths = {""};  // no rows fall in no partition: nothing to replace
    out.id_of_row.assign(n, 0);
    return out;
  }
  std::vector<EncodedColumn> columns;
  for (const auto& f : fields) {
    ARROW_ASSIGN_OR_RAISE(auto c, EncodeColumn(table, f, style));
    columns.push_back(std::move(c));
  }
  // Combine the per-column codes into one dense id per distinct tuple, a field at a time: the
  // ids so far stay below the row count, so (id, code) never overflows. (One mixed-radix number
  // of every field's code overflowed 64 bits with enough fields, and two tuples shared a folder.)
  std::vector<uint64_t> ids(n);
  uint64_t distinct = columns[0].segments.size();
  for (size_t r = 0; r < n; ++r) ids[r] = static_cast<uint64_t>(columns[0].codes[r]);
  for (size_t f = 1; f < columns.size(); ++f) {
    const uint64_t radix = columns[f].segments.size();
    std::unordered_map<uint64_t, uint64_t> dense;
    for (size_t r = 0; r < n; ++r) {
      const uint64_t pair = ids[r] * radix + static_cast<uint64_t>(columns[f].codes[r]);
      ids[r] = dense.emplace(pair, dense.size()).first->second;
    }
    distinct = dense.size();
  }
  std::vector<int32_t> path_of(distinct, -1);
  out.id_of_row.resize(n);
  for (size_t r = 0; r < n; ++r) {
    int32_t& id = path_of[ids[r]];
    if (id < 0) {
      id = static_cast<int32_t>(out.paths.size());
      std::string path;
      for (size_t f = 0; f < columns.size(); ++f) {
        if (f > 0) path.push_back('/');
        path += columns[f].segments[static_cast<size_t>(columns[f].codes[r])];
      }
      out.paths.push_back(std::move(path));
    }
    out.id_of_row[r] = id;
  }
  return out;
}

}  // namespace lakeshore
