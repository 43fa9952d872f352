#include "table/meta_columns.h"

#include <arrow/builder.h>
#include <arrow/compute/api.h>

#include <charconv>
#include <cstring>
#include <limits>
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
  // Offsets and characters written in one pass (a builder append per row is several times slower).
  const std::string prefix = instant + "_" + file + "_";
  const int64_t width = static_cast<int64_t>(prefix.size()) + 20;  // 20 digits hold any int64
  ARROW_ASSIGN_OR_RAISE(auto offsets, arrow::AllocateBuffer((n + 1) * static_cast<int64_t>(sizeof(int64_t))));
  ARROW_ASSIGN_OR_RAISE(auto data, arrow::AllocateResizableBuffer(n * width));
  auto* off = reinterpret_cast<int64_t*>(offsets->mutable_data());
  char* begin = reinterpret_cast<char*>(data->mutable_data());
  char* pos = begin;
  for (int64_t i = 0; i < n; ++i) {
    off[i] = pos - begin;
    std::memcpy(pos, prefix.data(), prefix.size());
    pos = std::to_chars(pos + prefix.size(), pos + width, first + i).ptr;
  }
  off[n] = pos - begin;
  ARROW_RETURN_NOT_OK(data->Resize(pos - begin));
  auto large = std::make_shared<arrow::LargeStringArray>(n, std::move(offsets), std::move(data));
  // 64-bit offsets while writing (any size), then utf8 when it fits, as every other string column.
  if (off[n] <= std::numeric_limits<int32_t>::max()) {
    ARROW_ASSIGN_OR_RAISE(auto small, arrow::compute::Cast(*large, arrow::utf8()));
    return small;
  }
  return large;
}

std::shared_ptr<arrow::Schema> WithMetaColumns(const arrow::Schema& schema) {
  std::vector<std::shared_ptr<arrow::Field>> fields = Fields();
  for (const auto& f : schema.fields()) fields.push_back(f);
  return arrow::schema(std::move(fields));
}

}  // namespace lakeshore::meta_columns
