#include "table/meta_columns.h"

#include <arrow/builder.h>
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
      arrow::field(kCommitTime, arrow::utf8()), arrow::field(kCommitSeqno, arrow::utf8()),
      arrow::field(kRecordKey, arrow::utf8()), arrow::field(kPartition, arrow::utf8()),
      arrow::field(kFileName, arrow::utf8())};
  return fields;
}

Result<std::shared_ptr<arrow::Array>> MakeSeqnoColumn(const std::string& instant, const std::string& file,
                                                      int64_t first, int64_t n) {
  arrow::StringBuilder builder;
  const std::string prefix = instant + "_" + file + "_";
  ARROW_RETURN_NOT_OK(builder.Reserve(n));
  ARROW_RETURN_NOT_OK(builder.ReserveData(n * static_cast<int64_t>(prefix.size() + 8)));
  std::string value = prefix;
  for (int64_t i = 0; i < n; ++i) {
    value.resize(prefix.size());
    value += std::to_string(first + i);
    builder.UnsafeAppend(value);
  }
  return builder.Finish();
}

std::shared_ptr<arrow::Schema> WithMetaColumns(const arrow::Schema& schema) {
  std::vector<std::shared_ptr<arrow::Field>> fields = Fields();
  for (const auto& f : schema.fields()) fields.push_back(f);
  return arrow::schema(std::move(fields));
}

}  // namespace lakeshore::meta_columns
