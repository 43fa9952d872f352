#include "table/record_key.h"

#include <arrow/array.h>
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

Result<std::shared_ptr<arrow::ChunkedArray>> AsUtf8(const std::shared_ptr<arrow::ChunkedArray>& column) {
  if (column->type()->id() == arrow::Type::STRING) return column;
  ARROW_ASSIGN_OR_RAISE(auto datum, arrow::compute::Cast(arrow::Datum(column), arrow::utf8()));
  return datum.chunked_array();
}
}  // namespace

Result<std::shared_ptr<arrow::ChunkedArray>> ComputeRecordKeys(const arrow::Table& table,
                                                               const std::vector<std::string>& key_fields) {
  std::vector<arrow::Datum> parts;
  for (size_t f = 0; f < key_fields.size(); ++f) {
    auto column = table.GetColumnByName(key_fields[f]);
    if (column == nullptr) {
      return SchemaMismatch("the batch has no record key column '" + key_fields[f] + "'");
    }
    ARROW_RETURN_NOT_OK(CheckNoNulls(*column, key_fields[f]));
    ARROW_ASSIGN_OR_RAISE(auto text, AsUtf8(column));
    if (key_fields.size() == 1) return text;
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
