#include "write/blob_location.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace lakeshore {
namespace {

namespace fs = std::filesystem;

/// A scratch folder for one test.
class BlobLocationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() /
            ("lakeshore-blob-location-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(base_);
    fs::create_directories(base_ / "t" / ".hoodie");
    fs::create_directories(base_ / "t" / "city=oslo" / "sub");
    fs::create_directories(base_ / "out");
  }
  void TearDown() override { fs::remove_all(base_); }

  std::string T() const { return (base_ / "t").string(); }
  std::string Out() const { return (base_ / "out").string(); }

  /// The check of `reference` for the table at `root`.
  Status Check(const std::string& root, const std::string& reference) {
    auto placement = BlobPlacement::For(root, {"city"});
    if (!placement.ok()) return placement.status();
    return placement->Check(reference);
  }

  fs::path base_;
};

TEST_F(BlobLocationTest, AFileOutsideEveryTableOrInAHiddenFolderBelowTheRootIsAccepted) {
  EXPECT_TRUE(Check(T(), Out() + "/a.jpg").ok());
  EXPECT_TRUE(Check(T(), T() + "/_blobs/a.jpg").ok());
  EXPECT_TRUE(Check(T(), T() + "/.blobs/x/y/a.jpg").ok());
  EXPECT_TRUE(Check(T(), "file://" + T() + "/_blobs/a%20b.jpg").ok());
  EXPECT_TRUE(Check(T(), "s3://bucket/t/city=oslo/a.jpg").ok()) << "another place than a local table";
  EXPECT_TRUE(Check("s3://bucket/t", "s3://bucket/t/_blobs/a.jpg").ok());
  EXPECT_TRUE(Check("s3://bucket/t", "s3://bucket/t2/a.jpg").ok());
  // Found from outside: an object key with a '%' that escapes nothing was refused.
  EXPECT_TRUE(Check(T(), "s3://bucket/50%off.jpg").ok());
  EXPECT_TRUE(Check(T(), "s3a://bucket/k%zz").ok());
  // A folder holding a bare .hoodie/ (no hoodie.properties) is no table a vacuum takes.
  fs::create_directories(base_ / "home" / ".hoodie");
  EXPECT_TRUE(Check(T(), (base_ / "home" / "photos" / "cat.jpg").string()).ok());
}

TEST_F(BlobLocationTest, EverySpellingOfAVisibleFolderOfTheTableIsRefused) {
  fs::create_directory_symlink(base_ / "t" / "city=oslo" / "sub", base_ / "out" / "link");
  for (const std::string& reference : {
           T() + "/city=oslo/a.jpg",
           T() + "/a.jpg",
           Out() + "/link/../x.jpg",  // the link's "..": the partition folder, as the OS reads it
           "FILE://" + T() + "/city=oslo/a.jpg",
           "File:" + T() + "/city=oslo/a.jpg",
           "file://LOCALHOST" + T() + "/city=oslo/a.jpg",
           "local://" + T() + "/city=oslo/a.jpg",
           T() + "/city=oslo/_b/a.jpg",  // hidden, but inside a partition folder: hudi-rs skips it
           T() + "/.hoodie/a.jpg",
           T() + "/.hoodie/metadata/record_index/a.jpg",
           T() + "/_h/../city=oslo/a.jpg",
       }) {
    const Status st = Check(T(), reference);
    EXPECT_TRUE(st.IsInvalid()) << reference << ": " << st;
    EXPECT_NE(st.message().find(reference), std::string::npos) << st;
  }
  for (const std::string& reference : {
           std::string("s3a://bucket/t/city=oslo/a.jpg"),
           std::string("s3n://bucket/t/city=oslo/a.jpg"),
           std::string("S3://bucket/t/city=oslo/a.jpg"),
           std::string("s3://bucket/t%2Fcity=oslo/b.jpg"),
           std::string("s3://bucket/t/_blobs/%2E%2E/city=oslo/x.jpg"),
           std::string("s3://bucket/t/.hoodie/x.jpg"),
       }) {
    EXPECT_TRUE(Check("s3://bucket/t", reference).IsInvalid()) << reference;
  }
}

TEST_F(BlobLocationTest, AFileInsideAnotherTableIsRefusedUnlessHiddenThere) {
  fs::create_directories(base_ / "a" / "_delta_log");
  fs::create_directories(base_ / "t" / "city=oslo" / "b" / ".hoodie");
  std::ofstream(base_ / "t" / "city=oslo" / "b" / ".hoodie" / "hoodie.properties") << "hoodie.table.name=b\n";
  fs::create_directories(base_ / "a" / "day=1");
  const Status st = Check(T(), (base_ / "a" / "day=1" / "x.jpg").string());
  EXPECT_TRUE(st.IsInvalid()) << st;
  EXPECT_NE(st.message().find((base_ / "a").string()), std::string::npos) << st;
  EXPECT_TRUE(Check(T(), (base_ / "a" / "_blobs" / "x.jpg").string()).ok());
  EXPECT_TRUE(Check(T(), (base_ / "a" / "x.jpg").string()).IsInvalid());
  EXPECT_TRUE(Check(T(), T() + "/city=oslo/b/part/x.jpg").IsInvalid());
  EXPECT_TRUE(Check(T(), T() + "/city=oslo/b/_blobs/x.jpg").ok());
}

TEST_F(BlobLocationTest, AReferenceThatNamesNoFileOrDependsOnTheReaderIsRefused) {
  for (const std::string& reference : {std::string("city=oslo/x.jpg"), std::string("x.jpg"), std::string("/"),
                                       std::string("."), std::string(".."), Out() + "/..", Out() + "/.",
                                       std::string("/data/a\0b.jpg", 13), std::string("s3://bucket/"),
                                       std::string("file:x.jpg"), std::string("s3://b/k%00"),
                                       "file://" + T() + "/_blobs/x%00y",
                                       "file://" + T() + "/city=oslo/x.bin%00/../../_blobs/y"}) {
    EXPECT_TRUE(Check(T(), reference).IsInvalid()) << reference;
    EXPECT_TRUE(Check("", reference).IsInvalid()) << reference;
  }
}

}  // namespace
}  // namespace lakeshore
