#include "table/record_key.h"

#include <charconv>
#include <string_view>

#include <arrow/array.h>
#include <arrow/buffer.h>
#include <arrow/compute/api.h>
#include <arrow/scalar.h>
#include <arrow/util/string.h>

namespace lakeshore {
namespace {
Status CheckNoNulls(const arrow::ChunkedArray& column, const std::string& field) {
  if (column.null_count() == 0) return Status::OK();
  int64_t row = 0;
  for (const auto& chunk : column.chunks()) {
    for (int64_t i = 0; i < chunk->length(); ++i, ++row)
      if (chunk->IsNull(i)) return Status::Invalid("record key field '", field, "' is null in row ", row);
  }
  return Status::OK();
}

// Integers rendered in decimal straight into one utf8 array: offsets and characters written
// in a single pass with std::to_chars (Arrow's generic cast is several times slower here).
template <typename ArrayType>
Result<std::shared_ptr<arrow::ChunkedArray>> IntegersToUtf8(const arrow::ChunkedArray& column) {
  int64_t n = column.length();
  ARROW_ASSIGN_OR_RAISE(auto offsets, arrow::AllocateBuffer((n + 1) * sizeof(int32_t)));
  ARROW_ASSIGN_OR_RAISE(auto data, arrow::AllocateResizableBuffer(n * 21));
  auto* off = reinterpret_cast<int32_t*>(offsets->mutable_data());
  char* out = reinterpret_cast<char*>(data->mutable_data());
  char* pos = out;
  int64_t row = 0;
  off[0] = 0;
  for (const auto& chunk : column.chunks()) {
    const auto& arr = static_cast<const ArrayType&>(*chunk);
    for (int64_t i = 0; i < arr.length(); ++i) {
      pos = std::to_chars(pos, pos + 21, arr.Value(i)).ptr;
      off[++row] = static_cast<int32_t>(pos - out);
    }
  }
  ARROW_RETURN_NOT_OK(data->Resize(pos - out));
  auto array = std::make_shared<arrow::StringArray>(n, std::move(offsets), std::move(data));
  return std::make_shared<arrow::ChunkedArray>(array);
}

Result<std::shared_ptr<arrow::ChunkedArray>> AsUtf8(const std::shared_ptr<arrow::ChunkedArray>& column) {
  if (column->type()->id() == arrow::Type::STRING) return column;
  // A null's slot renders whatever it holds (callers refuse or replace nulls). 21 bytes fit any
  // 64-bit integer, so offsets stay 32-bit up to ~100M rows per batch, beyond which the generic
  // cast below (64-bit safe) takes over.
  if (column->length() < (1LL << 31) / 21) {
    switch (column->type()->id()) {
      case arrow::Type::INT64: return IntegersToUtf8<arrow::Int64Array>(*column);
      case arrow::Type::INT32: return IntegersToUtf8<arrow::Int32Array>(*column);
      case arrow::Type::UINT64: return IntegersToUtf8<arrow::UInt64Array>(*column);
      case arrow::Type::UINT32: return IntegersToUtf8<arrow::UInt32Array>(*column);
      default: break;
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto datum, arrow::compute::Cast(arrow::Datum(column), arrow::utf8()));
  return datum.chunked_array();
}

// Hudi's placeholders for a null and an empty value in a complex key (KeyGenUtils).
constexpr std::string_view kNullKeyPlaceholder = "__null__";
constexpr std::string_view kEmptyKeyPlaceholder = "__empty__";

/// Refuses an empty value in a plain key, as Hudi's SIMPLE key generator does.
Status CheckNotEmpty(const arrow::ChunkedArray& text, const std::string& field) {
  int64_t row = 0;
  for (const auto& chunk : text.chunks()) {
    const auto& values = static_cast<const arrow::StringArray&>(*chunk);
    for (int64_t i = 0; i < values.length(); ++i, ++row) {
      if (values.value_length(i) == 0) {
        return SchemaMismatch("record key field '" + field + "' is empty in row " + std::to_string(row) +
                              ": Hudi's key generators refuse a null or empty record key");
      }
    }
  }
  return Status::OK();
}

/// Which rows of `column` are null (empty when none is).
std::vector<uint8_t> NullRows(const arrow::ChunkedArray& column) {
  std::vector<uint8_t> out;
  if (column.null_count() == 0) return out;
  out.reserve(static_cast<size_t>(column.length()));
  for (const auto& chunk : column.chunks()) {
    for (int64_t i = 0; i < chunk->length(); ++i) out.push_back(chunk->IsNull(i) ? 1 : 0);
  }
  return out;
}

/// Checks one field's values of a complex key: a ',' or a value spelled like one of Hudi's
/// placeholders would make the encoding (f1:v1,f2:v2) ambiguous. Counts each row's null
/// (`null_rows`) and empty values in `missing` (Hudi writes them as __null__ and __empty__);
/// true when a value was empty.
Result<bool> CheckComplexKeyPart(const arrow::ChunkedArray& text, const std::vector<uint8_t>& null_rows,
                                 const std::string& field, std::vector<uint8_t>* missing) {
  bool has_empty = false;
  size_t row = 0;
  for (const auto& chunk : text.chunks()) {
    const auto& values = static_cast<const arrow::StringArray&>(*chunk);
    for (int64_t i = 0; i < values.length(); ++i, ++row) {
      if (!null_rows.empty() && null_rows[row]) {
        ++(*missing)[row];
        continue;
      }
      const std::string_view v = values.GetView(i);
      if (v.empty()) {
        ++(*missing)[row];
        has_empty = true;
        continue;
      }
      const bool comma = v.find(',') != std::string_view::npos;
      if (comma || v == kNullKeyPlaceholder || v == kEmptyKeyPlaceholder) {
        return SchemaMismatch("record key field '" + field + "' holds '" + std::string(v) + "' (row " +
                              std::to_string(row) + "): " +
                              (comma ? "a ','" : "a value spelled like Hudi's placeholder for a null or empty one") +
                              " in a composite key makes Hudi's key encoding (f1:v1,f2:v2) ambiguous, so two "
                              "different keys could merge");
      }
    }
  }
  return has_empty;
}

/// `text` with the values of `mask` replaced by `placeholder`.
Result<std::shared_ptr<arrow::ChunkedArray>> Replace(const arrow::Datum& mask, std::string_view placeholder,
                                                     const std::shared_ptr<arrow::ChunkedArray>& text) {
  auto value = std::make_shared<arrow::StringScalar>(std::string(placeholder));
  ARROW_ASSIGN_OR_RAISE(auto replaced, arrow::compute::IfElse(mask, value, text));
  return replaced.chunked_array();
}

/// One field's part of a complex key: its values as text, an empty one as __empty__ and a null
/// one as __null__, each row's missing values counted in `missing`.
Result<std::shared_ptr<arrow::ChunkedArray>> ComplexKeyPart(const std::shared_ptr<arrow::ChunkedArray>& column,
                                                            const std::string& field, std::vector<uint8_t>* missing) {
  const std::vector<uint8_t> null_rows = NullRows(*column);
  ARROW_ASSIGN_OR_RAISE(auto text, AsUtf8(column));
  ARROW_ASSIGN_OR_RAISE(bool has_empty, CheckComplexKeyPart(*text, null_rows, field, missing));
  if (has_empty) {
    auto empty = std::make_shared<arrow::StringScalar>("");
    ARROW_ASSIGN_OR_RAISE(auto is_empty, arrow::compute::CallFunction("equal", {text, empty}));
    ARROW_ASSIGN_OR_RAISE(text, Replace(is_empty, kEmptyKeyPlaceholder, text));
  }
  if (!null_rows.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto is_null, arrow::compute::IsNull(column));
    ARROW_ASSIGN_OR_RAISE(text, Replace(is_null, kNullKeyPlaceholder, text));
  }
  return text;
}
}  // namespace

Result<std::shared_ptr<arrow::ChunkedArray>> ComputeRecordKeys(const arrow::Table& table,
                                                               const std::vector<std::string>& key_fields,
                                                               bool complex_encoding) {
  std::vector<arrow::Datum> parts;
  // Per row, how many of its key fields are null or empty: all of them is refused.
  std::vector<uint8_t> missing(complex_encoding ? static_cast<size_t>(table.num_rows()) : 0);
  for (size_t f = 0; f < key_fields.size(); ++f) {
    auto column = table.GetColumnByName(key_fields[f]);
    if (column == nullptr) {
      return SchemaMismatch("the batch has no record key column '" + key_fields[f] + "'");
    }
    if (!complex_encoding) {
      ARROW_RETURN_NOT_OK(CheckNoNulls(*column, key_fields[f]));
      ARROW_ASSIGN_OR_RAISE(auto text, AsUtf8(column));
      ARROW_RETURN_NOT_OK(CheckNotEmpty(*text, key_fields[f]));
      return text;
    }
    ARROW_ASSIGN_OR_RAISE(auto text, ComplexKeyPart(column, key_fields[f], &missing));
    parts.emplace_back(std::make_shared<arrow::StringScalar>((f > 0 ? "," : "") + key_fields[f] + ":"));
    parts.emplace_back(text);
  }
  for (size_t row = 0; row < missing.size(); ++row) {
    if (missing[row] == key_fields.size()) {
      return SchemaMismatch("record key fields " + arrow::internal::JoinStrings(key_fields, ", ") +
                            " are all null or empty in row " + std::to_string(row) +
                            ": Hudi's key generators refuse a record key that is entirely null or empty");
    }
  }
  parts.emplace_back(std::make_shared<arrow::StringScalar>(""));  // the separator comes last
  ARROW_ASSIGN_OR_RAISE(auto joined, arrow::compute::CallFunction("binary_join_element_wise", parts));
  if (joined.is_scalar()) {  // a batch without rows
    ARROW_ASSIGN_OR_RAISE(auto empty, arrow::MakeEmptyArray(arrow::utf8()));
    return std::make_shared<arrow::ChunkedArray>(empty);
  }
  return joined.chunked_array();
}

std::vector<std::string_view> StringViews(const arrow::ChunkedArray& column) {
  std::vector<std::string_view> out;
  out.reserve(static_cast<size_t>(column.length()));
  for (const auto& chunk : column.chunks()) {
    const auto& arr = static_cast<const arrow::StringArray&>(*chunk);
    for (int64_t i = 0; i < arr.length(); ++i) out.push_back(arr.GetView(i));
  }
  return out;
}

}  // namespace lakeshore
