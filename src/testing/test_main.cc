// GoogleTest entry point: initializes Arrow compute once and finalizes S3 at exit.
#include <arrow/compute/initialize.h>
#include <arrow/filesystem/s3fs.h>
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (!arrow::compute::Initialize().ok()) return 2;
  int rc = RUN_ALL_TESTS();
  if (arrow::fs::IsS3Initialized()) (void)arrow::fs::FinalizeS3();
  return rc;
}
