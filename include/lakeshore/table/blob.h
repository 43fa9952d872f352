// The RFC-100 blob column type: a struct that holds a blob inline or references an external file.
#pragma once

#include <memory>

#include <arrow/type.h>

namespace lakeshore {

/// The Arrow type of a blob column, field for field as RFC-100 defines it:
/// `struct<type: string (INLINE|OUT_OF_LINE), data: binary, reference: struct<external_path:
/// string, offset: int64, length: int64, managed: bool>>`. `data` is set for INLINE blobs,
/// `reference` for OUT_OF_LINE ones. `managed` decides eligibility for deletion only; any
/// reference keeps a blob alive.
std::shared_ptr<arrow::DataType> BlobType();

/// True when `type` is exactly BlobType() (field names, order and types).
bool IsBlobType(const arrow::DataType& type);

}  // namespace lakeshore
