#include "storage/memory_storage.h"

#include <gtest/gtest.h>

#include "testing/status_test_util.h"

namespace lakeshore {
namespace {

class MemoryStorageTest : public ::testing::Test {
 protected:
  void TearDown() override {
    MemoryStorage::ForgetTree("shared");
    MemoryStorage::ForgetTree("other");
  }
};

TEST_F(MemoryStorageTest, OpensOfOneNameShareFilesAndNamesAreIsolated) {
  ASSERT_OK_AND_ASSIGN(auto a, Storage::Open("mem://shared"));
  ASSERT_OK_AND_ASSIGN(auto b, Storage::Open("mem://shared"));
  ASSERT_OK_AND_ASSIGN(auto other, Storage::Open("mem://other"));
  ASSERT_OK(a->WriteString("x/y", "hello"));
  ASSERT_OK_AND_ASSIGN(auto content, b->ReadString("x/y"));
  EXPECT_EQ(content, "hello");
  ASSERT_OK_AND_ASSIGN(bool exists, other->Exists("x/y"));
  EXPECT_FALSE(exists);
  EXPECT_EQ(a->root_uri(), "mem://shared");
}

TEST_F(MemoryStorageTest, PrefixRootsTheStorageInsideTheTree) {
  ASSERT_OK_AND_ASSIGN(auto whole, Storage::Open("mem://shared"));
  ASSERT_OK_AND_ASSIGN(auto table, Storage::Open("mem://shared/tables/t1"));
  EXPECT_EQ(table->root_uri(), "mem://shared/tables/t1");
  ASSERT_OK(table->WriteString("p/f", "1"));
  ASSERT_OK(whole->WriteString("tables/t1x/g", "2"));  // a sibling whose name extends the prefix
  ASSERT_OK_AND_ASSIGN(auto in_table, table->List("", true));
  ASSERT_EQ(in_table.size(), 1u);
  EXPECT_EQ(in_table[0].path, "p/f");
  ASSERT_OK_AND_ASSIGN(bool exists, whole->Exists("tables/t1/p/f"));
  EXPECT_TRUE(exists);
  EXPECT_TRUE(IsError(Storage::Open("mem://shared/../x").status(), ErrorKind::kPathOutsideTable));
  EXPECT_FALSE(Storage::Open("mem://").ok());
}

TEST_F(MemoryStorageTest, MtimesComeFromTheInjectedClock) {
  auto clock = std::make_shared<ManualClock>(1700000000000);
  StorageOptions options;
  options.clock = clock;
  ASSERT_OK_AND_ASSIGN(auto storage, Storage::Open("mem://shared", options));
  ASSERT_OK(storage->WriteString("a", "1"));
  clock->Advance(5000);
  ASSERT_OK_AND_ASSIGN(bool created, storage->PutIfAbsentString("b", "2"));
  ASSERT_TRUE(created);
  ASSERT_OK_AND_ASSIGN(auto a, storage->GetFileInfo("a"));
  ASSERT_OK_AND_ASSIGN(auto b, storage->GetFileInfo("b"));
  EXPECT_EQ(a->mtime_ms, 1700000000000);
  EXPECT_EQ(b->mtime_ms, 1700000005000);
  clock->Advance(1000);
  ASSERT_OK(storage->WriteString("a", "again"));
  ASSERT_OK_AND_ASSIGN(a, storage->GetFileInfo("a"));
  EXPECT_EQ(a->mtime_ms, 1700000006000);
}

TEST_F(MemoryStorageTest, FilesAndFoldersCannotCollide) {
  ASSERT_OK_AND_ASSIGN(auto storage, Storage::Open("mem://shared"));
  ASSERT_OK(storage->WriteString("a/b", "file"));
  Status under_file = storage->WriteString("a/b/c", "x");
  EXPECT_TRUE(under_file.IsIOError());
  EXPECT_NE(under_file.message().find("'a/b' is a file"), std::string::npos) << under_file.ToString();
  Status over_folder = storage->WriteString("a", "x");
  EXPECT_NE(over_folder.message().find("is a folder"), std::string::npos) << over_folder.ToString();
  EXPECT_FALSE(storage->PutIfAbsentString("a", "x").ok());
}

TEST_F(MemoryStorageTest, OpenReaderKeepsItsVersionAndBuffersAreCopiedWhenMutable) {
  ASSERT_OK_AND_ASSIGN(auto storage, Storage::Open("mem://shared"));
  ASSERT_OK(storage->WriteString("f", "old content"));
  ASSERT_OK_AND_ASSIGN(auto reader, storage->OpenInputFile("f"));
  ASSERT_OK(storage->WriteString("f", "new"));
  ASSERT_OK_AND_ASSIGN(auto old_bytes, reader->ReadAt(0, 11));
  EXPECT_EQ(old_bytes->ToString(), "old content");

  ASSERT_OK_AND_ASSIGN(std::shared_ptr<arrow::ResizableBuffer> mutable_buffer, arrow::AllocateResizableBuffer(3));
  std::memcpy(mutable_buffer->mutable_data(), "abc", 3);
  ASSERT_OK(storage->WriteFile("m", mutable_buffer));
  mutable_buffer->mutable_data()[0] = 'X';
  ASSERT_OK_AND_ASSIGN(auto content, storage->ReadString("m"));
  EXPECT_EQ(content, "abc");
}

TEST_F(MemoryStorageTest, ForgetTreeStartsLaterOpensEmpty) {
  ASSERT_OK_AND_ASSIGN(auto first, Storage::Open("mem://shared"));
  ASSERT_OK(first->WriteString("f", "1"));
  EXPECT_TRUE(MemoryStorage::ForgetTree("shared"));
  EXPECT_FALSE(MemoryStorage::ForgetTree("shared"));
  ASSERT_OK_AND_ASSIGN(auto second, Storage::Open("mem://shared"));
  ASSERT_OK_AND_ASSIGN(bool in_second, second->Exists("f"));
  EXPECT_FALSE(in_second);
  ASSERT_OK_AND_ASSIGN(bool in_first, first->Exists("f"));
  EXPECT_TRUE(in_first);
}

}  // namespace
}  // namespace lakeshore
