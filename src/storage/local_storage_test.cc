#include <filesystem>

#include <gtest/gtest.h>

#include "lakeshore/storage/storage.h"

namespace lakeshore {

TEST(LocalStorage, PutIfAbsentCreatesOnce) {
  auto dir = std::filesystem::temp_directory_path() / "lakeshore_local_smoke";
  std::filesystem::remove_all(dir);
  auto storage = *Storage::Open(dir.string());
  EXPECT_TRUE(*storage->PutIfAbsentString("a/b.txt", "one"));
  EXPECT_FALSE(*storage->PutIfAbsentString("a/b.txt", "two"));
  EXPECT_EQ(*storage->ReadString("a/b.txt"), "one");
  auto st = storage->ReadString("../x");
  EXPECT_TRUE(IsError(st.status(), ErrorKind::kPathOutsideTable));
  std::filesystem::remove_all(dir);
}

}  // namespace lakeshore
