#include "lakeshore/table/blob.h"

#include "format/avro_schema.h"

namespace lakeshore {

std::shared_ptr<arrow::DataType> BlobType() { return format::HudiBlobType(); }

bool IsBlobType(const arrow::DataType& type) { return type.Equals(*BlobType()); }

}  // namespace lakeshore
