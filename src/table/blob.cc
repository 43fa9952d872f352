#include "lakeshore/table/blob.h"

namespace lakeshore {

std::shared_ptr<arrow::DataType> BlobType() {
  static const std::shared_ptr<arrow::DataType> type = arrow::struct_({
      arrow::field("type", arrow::utf8(), /*nullable=*/false),
      arrow::field("data", arrow::binary()),
      arrow::field("reference",
                   arrow::struct_({arrow::field("external_path", arrow::utf8(), false),
                                   arrow::field("offset", arrow::int64()),
                                   arrow::field("length", arrow::int64()),
                                   arrow::field("managed", arrow::boolean(), false)})),
  });
  return type;
}

bool IsBlobType(const arrow::DataType& type) { return type.Equals(*BlobType()); }

}  // namespace lakeshore
