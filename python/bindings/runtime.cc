// Process-wide Arrow set-up and tear-down for the Python module.
#include <arrow/compute/initialize.h>
#include <arrow/config.h>
#include <arrow/filesystem/s3fs.h>

#include "bindings.h"

namespace lakeshore::python {

void BindRuntime(nb::module_& m) {
  // Registers Arrow's compute kernels (split into libarrow_compute since Arrow 21). Idempotent,
  // so it does not matter whether pyarrow.compute already did it.
  CheckStatus(arrow::compute::Initialize());

  m.def(
      "finalize_s3",
      []() {
        if (arrow::fs::IsS3Initialized() && !arrow::fs::IsS3Finalized()) {
          nb::gil_scoped_release release;
          arrow::Status st = arrow::fs::FinalizeS3();
          (void)st;  // at interpreter exit there is no one left to tell
        }
      },
      "Shuts Arrow's S3 client down if this process initialized it. Registered with atexit by "
      "the lakeshore package: the AWS SDK must be finalized before the process exits.");
  m.def(
      "arrow_version", []() { return std::string(arrow::GetBuildInfo().version_string); },
      "The version of the Arrow C++ library the core runs against (must be pyarrow's).");
}

}  // namespace lakeshore::python
