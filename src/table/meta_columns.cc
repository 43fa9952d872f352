#include "table/meta_columns.h"

#include <arrow/scalar.h>

namespace lakeshore::meta_columns {

bool IsReserved(const std::string& name) { return name.rfind("_hoodie_", 0) == 0; }

std::shared_ptr<arrow::DataType> ConstantType() {
  static const auto type = arrow::dictionary(arrow::int32(), arrow::utf8());
  return type;
}

Result<std::shared_ptr<arrow::Array>> MakeConstantColumn(const std::string& value, int64_t length) {
  ARROW_ASSIGN_OR_RAISE(auto dictionary, arrow::MakeArrayFromScalar(arrow::StringScalar(value), 1));
  ARROW_ASSIGN_OR_RAISE(auto zeros, arrow::MakeArrayFromScalar(arrow::Int32Scalar(0), length));
  return arrow::DictionaryArray::FromArrays(ConstantType(), zeros, dictionary);
}

const std::vector<std::shared_ptr<arrow::Field>>& Fields() {
  static const std::vector<std::shared_ptr<arrow::Field>> fields = {
      arrow::field(kCommitTime, ConstantType(), false),
      arrow::field(kRecordKey, arrow::utf8(), false),
      arrow::field(kPartition, ConstantType(), false)};
  return fields;
}

std::shared_ptr<arrow::Schema> WithMetaColumns(const arrow::Schema& schema) {
  std::vector<std::shared_ptr<arrow::Field>> fields = Fields();
  for (const auto& f : schema.fields()) fields.push_back(f);
  return arrow::schema(std::move(fields));
}

}  // namespace lakeshore::meta_columns
