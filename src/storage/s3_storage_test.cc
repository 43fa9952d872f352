// S3-specific tests (the shared behaviour is in storage_conformance_test.cc).
#include "storage/s3_storage.h"

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "testing/moto_server.h"
#include "testing/status_test_util.h"

namespace lakeshore {
namespace {

constexpr char kBucket[] = "lakeshore-s3-tests";

class S3StorageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = testing::MotoServer::Shared();
    if (!server.ok()) GTEST_SKIP() << "S3 tests skipped, moto could not start: " << server.status().ToString();
    server_ = *server;
    static Status created = server_->CreateBucket(kBucket);
    ASSERT_OK(created);
  }
  testing::MotoServer* server_ = nullptr;
};

TEST(S3Xml, TextNodesUnescapeEntitiesAndCharacterReferences) {
  using s3_internal::XmlUnescape;
  EXPECT_EQ(XmlUnescape("a&amp;b&lt;c&gt;d&quot;e&apos;f"), "a&b<c>d\"e'f");
  EXPECT_EQ(XmlUnescape("caf&#233; &#x1F600;"), "caf\xC3\xA9 \xF0\x9F\x98\x80");
  // Anything else stays as it is: no entity, an unknown one, a reference out of range.
  EXPECT_EQ(XmlUnescape("&& &nbsp; &#x110000; &#; &amp"), "&& &nbsp; &#x110000; &#; &amp");
  EXPECT_EQ(XmlUnescape(s3_internal::XmlEscape("<k&'\">")), "<k&'\">");
}

TEST(S3StorageUri, MalformedUrisAreRefusedWithTheReason) {
  auto bad_param = Storage::Open("s3://bucket/p?endpoint_override=h:1&colour=blue");
  ASSERT_TRUE(bad_param.status().IsInvalid());
  EXPECT_NE(bad_param.status().message().find("'colour'"), std::string::npos) << bad_param.status().ToString();
  EXPECT_TRUE(Storage::Open("s3://bucket/p?scheme=ftp").status().IsInvalid());
  EXPECT_TRUE(Storage::Open("s3:///just/a/path").status().IsInvalid());
  EXPECT_TRUE(Storage::Open("s3://bucket/a/../b").status().IsInvalid());
  EXPECT_TRUE(Storage::Open("gs://bucket/p").status().IsInvalid());
}

TEST(S3StorageUri, RootUriKeepsEndpointAndRegion) {
  ASSERT_OK_AND_ASSIGN(auto storage, Storage::Open("s3://bkt/some/prefix/?endpoint_override=127.0.0.1:1&scheme=http&region=eu-west-1"));
  EXPECT_EQ(storage->root_uri(), "s3://bkt/some/prefix?region=eu-west-1&endpoint_override=127.0.0.1:1&scheme=http");
}

TEST_F(S3StorageTest, ServerHonoursIfNoneMatch) {
  ASSERT_OK_AND_ASSIGN(auto storage, Storage::Open(server_->Uri(kBucket, "honours"), server_->Options()));
  ASSERT_OK_AND_ASSIGN(bool first, storage->PutIfAbsentString("lock", "mine"));
  ASSERT_OK_AND_ASSIGN(bool second, storage->PutIfAbsentString("lock", "theirs"));
  ASSERT_TRUE(first);
  ASSERT_FALSE(second) << "THE S3 SERVER IGNORED 'If-None-Match: *': put-if-absent is not atomic on it";
  ASSERT_OK_AND_ASSIGN(auto content, storage->ReadString("lock"));
  EXPECT_EQ(content, "mine");
}

TEST_F(S3StorageTest, PrefixesWhoseNamesExtendEachOtherAreIsolated) {
  ASSERT_OK_AND_ASSIGN(auto a, Storage::Open(server_->Uri(kBucket, "iso/a"), server_->Options()));
  ASSERT_OK_AND_ASSIGN(auto ab, Storage::Open(server_->Uri(kBucket, "iso/ab"), server_->Options()));
  ASSERT_OK(a->WriteString("f", "a"));
  ASSERT_OK(ab->WriteString("f", "ab"));
  ASSERT_OK_AND_ASSIGN(auto in_a, a->List("", true));
  ASSERT_EQ(in_a.size(), 1u);
  EXPECT_EQ(in_a[0].path, "f");
  ASSERT_OK_AND_ASSIGN(auto outcome, a->DeleteFiles({"f"}));
  EXPECT_EQ(outcome.deleted, 1);
  ASSERT_OK_AND_ASSIGN(auto content, ab->ReadString("f"));
  EXPECT_EQ(content, "ab");
}

TEST_F(S3StorageTest, AFileIsNeverReportedOlderThanItIs) {
  // S3's LastModified has second resolution: a file written at 12:00:05.700 was reported as
  // written at 12:00:05.000, older than a vacuum's cutoff taken at 12:00:05.300 with no
  // retention, and a write that began after the vacuum lost its file.
  ASSERT_OK_AND_ASSIGN(auto storage, Storage::Open(server_->Uri(kBucket, "mtime"), server_->Options()));
  for (int i = 0; i < 5; ++i) {
    const int64_t before = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch()).count();
    const std::string name = "f" + std::to_string(i);
    ASSERT_OK(storage->WriteString(name, "x"));
    ASSERT_OK_AND_ASSIGN(auto info, storage->GetFileInfo(name));
    ASSERT_TRUE(info.has_value());
    EXPECT_GE(info->mtime_ms, before) << name;
    ASSERT_OK_AND_ASSIGN(auto listed, storage->List("", false));
    for (const auto& e : listed) {
      if (e.path == name) EXPECT_GE(e.mtime_ms, before) << name;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(230));
  }
}

TEST_F(S3StorageTest, UnreachableEndpointIsAnIOErrorNamingThePath) {
  ASSERT_OK_AND_ASSIGN(auto storage, Storage::Open("s3://nobucket/p?endpoint_override=127.0.0.1:1&scheme=http",
                                                   server_->Options()));
  auto put = storage->PutIfAbsentString("x/lock", "1");
  ASSERT_FALSE(put.ok());
  EXPECT_TRUE(put.status().IsIOError());
  EXPECT_NE(put.status().message().find("x/lock"), std::string::npos) << put.status().ToString();
}

}  // namespace
}  // namespace lakeshore
