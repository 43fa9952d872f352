// The RFC-100 blob column type for Python.
#include <arrow/c/abi.h>
#include <arrow/c/bridge.h>

#include "bindings.h"
#include "lakeshore/table/blob.h"

namespace lakeshore::python {

void BindBlob(nb::module_& m) {
  m.def(
      "blob_field", []() { return ExportFieldCapsule(*arrow::field("blob", BlobType())); },
      "An `arrow_schema` capsule of a field named 'blob' whose type is the RFC-100 blob struct.");
  m.def(
      "is_blob_type",
      [](nb::handle capsule) {
        if (!PyCapsule_IsValid(capsule.ptr(), "arrow_schema")) {
          throw nb::type_error("expected an 'arrow_schema' capsule (from __arrow_c_schema__())");
        }
        auto* c_schema = static_cast<ArrowSchema*>(PyCapsule_GetPointer(capsule.ptr(), "arrow_schema"));
        std::shared_ptr<arrow::DataType> type = ValueOrRaise(arrow::ImportType(c_schema));
        return IsBlobType(*type);
      },
      nb::arg("type"),
      "True when the type in the `arrow_schema` capsule is exactly the blob struct (field names, "
      "order and types).");
}

}  // namespace lakeshore::python
