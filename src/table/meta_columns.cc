#include "table/meta_columns.h"

namespace lakeshore::meta_columns {

bool IsReserved(const std::string& name) { return name.rfind("_lakeshore_", 0) == 0; }

const std::vector<std::shared_ptr<arrow::Field>>& Fields() {
  static const std::vector<std::shared_ptr<arrow::Field>> fields = {
      arrow::field(kCommitTime, arrow::utf8(), false),
      arrow::field(kRecordKey, arrow::utf8(), false),
      arrow::field(kPartition, arrow::utf8(), false)};
  return fields;
}

std::shared_ptr<arrow::Schema> WithMetaColumns(const arrow::Schema& schema) {
  std::vector<std::shared_ptr<arrow::Field>> fields = Fields();
  for (const auto& f : schema.fields()) fields.push_back(f);
  return arrow::schema(std::move(fields));
}

}  // namespace lakeshore::meta_columns
