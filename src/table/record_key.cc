#include "table/record_key.h"

#include "table/partition_path.h"

namespace lakeshore {

Result<std::vector<std::string>> ComputeRecordKeys(const arrow::Table& table,
                                                   const std::vector<std::string>& key_fields) {
  std::vector<std::string> keys(static_cast<size_t>(table.num_rows()));
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
