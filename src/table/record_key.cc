#include "table/record_key.h"

#include <charconv>

#include <arrow/array.h>
#include <arrow/buffer.h>
#include <arrow/compute/api.h>
#include <arrow/scalar.h>

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
  // Callers checked for nulls; 21 bytes fit any 64-bit integer, so offsets stay 32-bit up to
  // ~100M rows per batch, beyond which the generic cast below (64-bit safe) takes over.
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
}  // namespace

/// Refuses a value holding ',' in a complex key: the encoding would be ambiguous.
Status CheckUnambiguous(const arrow::ChunkedArray& text, const std::string& field) {
  int64_t row = 0;
  for (const auto& chunk : text.chunks()) {
    const auto& values = static_cast<const arrow::StringArray&>(*chunk);
    for (int64_t i = 0; i < values.length(); ++i, ++row) {
      if (values.GetView(i).find(',') != std::string_view::npos) {
        return SchemaMismatch("record key field '" + field + "' holds '" + std::string(values.GetView(i)) + "' (row " +
                              std::to_string(row) + "): a ',' in a composite key makes Hudi's key encoding "
                              "(f1:v1,f2:v2) ambiguous, so two different keys could merge");
      }
    }
  }
  return Status::OK();
}

Result<std::shared_ptr<arrow::ChunkedArray>> ComputeRecordKeys(const arrow::Table& table,
                                                               const std::vector<std::string>& key_fields,
                                                               bool complex_encoding) {
  std::vector<arrow::Datum> parts;
  for (size_t f = 0; f < key_fields.size(); ++f) {
    auto column = table.GetColumnByName(key_fields[f]);
    if (column == nullptr) {
      return SchemaMismatch("the batch has no record key column '" + key_fields[f] + "'");
    }
    ARROW_RETURN_NOT_OK(CheckNoNulls(*column, key_fields[f]));
    ARROW_ASSIGN_OR_RAISE(auto text, AsUtf8(column));
    if (!complex_encoding) return text;
    ARROW_RETURN_NOT_OK(CheckUnambiguous(*text, key_fields[f]));
    parts.emplace_back(std::make_shared<arrow::StringScalar>((f > 0 ? "," : "") + key_fields[f] + ":"));
    parts.emplace_back(text);
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
