#include "table/record_key.h"

#include <arrow/array.h>

#include "table/partition_path.h"

namespace lakeshore {

namespace {
// Fast path for the common single-field keys: strings and integers, without a cast.
template <typename ArrayType>
Status AppendDirect(const arrow::ChunkedArray& column, const std::string& field, std::vector<std::string>* keys) {
  size_t r = 0;
  for (const auto& chunk : column.chunks()) {
    const auto& arr = static_cast<const ArrayType&>(*chunk);
    for (int64_t i = 0; i < arr.length(); ++i, ++r) {
      if (arr.IsNull(i)) return Status::Invalid("record key field '", field, "' is null in row ", r);
      if constexpr (std::is_same_v<ArrayType, arrow::StringArray>) {
        (*keys)[r].assign(arr.GetView(i));
      } else {
        (*keys)[r] = std::to_string(arr.Value(i));
      }
    }
  }
  return Status::OK();
}
}  // namespace

Result<std::vector<std::string>> ComputeRecordKeys(const arrow::Table& table,
                                                   const std::vector<std::string>& key_fields) {
  std::vector<std::string> keys(static_cast<size_t>(table.num_rows()));
  if (key_fields.size() == 1) {
    auto column = table.GetColumnByName(key_fields[0]);
    if (column == nullptr) return SchemaMismatch("the batch has no record key column '" + key_fields[0] + "'");
    switch (column->type()->id()) {
      case arrow::Type::STRING:
        ARROW_RETURN_NOT_OK(AppendDirect<arrow::StringArray>(*column, key_fields[0], &keys));
        return keys;
      case arrow::Type::INT64:
        ARROW_RETURN_NOT_OK(AppendDirect<arrow::Int64Array>(*column, key_fields[0], &keys));
        return keys;
      case arrow::Type::INT32:
        ARROW_RETURN_NOT_OK(AppendDirect<arrow::Int32Array>(*column, key_fields[0], &keys));
        return keys;
      default:
        break;  // the general path below renders every other type
    }
  }
  bool composite = key_fields.size() > 1;
  for (size_t f = 0; f < key_fields.size(); ++f) {
    auto column = table.GetColumnByName(key_fields[f]);
    if (column == nullptr) {
      return SchemaMismatch("the batch has no record key column '" + key_fields[f] + "'");
    }
    ARROW_ASSIGN_OR_RAISE(auto values, ValuesAsStrings(column));
    for (size_t r = 0; r < keys.size(); ++r) {
      if (!values[r]) {
        return Status::Invalid("record key field '", key_fields[f], "' is null in row ", r);
      }
      if (composite) {
        if (f > 0) keys[r].push_back(',');
        keys[r].append(key_fields[f]).push_back(':');
      }
      keys[r].append(*values[r]);
    }
  }
  return keys;
}

}  // namespace lakeshore
