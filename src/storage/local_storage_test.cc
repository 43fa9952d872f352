#include <algorithm>
#include <filesystem>
#include <fstream>

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

namespace {
namespace fs = std::filesystem;

void Touch(const fs::path& p) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << "x";
}

std::vector<std::string> Paths(const std::vector<FileEntry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(e.path);
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

// Outside testing: a vacuum deleted a symlinked partition folder, and lite mode, inventories and
// rollbacks deleted a file outside the table through a link. The storage makes both impossible.
TEST(LocalStorage, SymbolicLinksAreNeitherListedNorDeletedNorDeletedThrough) {
  auto base = fs::temp_directory_path() / "lakeshore_local_links";
  fs::remove_all(base);
  auto root = base / "t", outside = base / "outside";
  Touch(root / "p=1" / "a.parquet");
  Touch(outside / "victim.parquet");
  fs::create_directories(outside / "empty");
  fs::create_directory_symlink(outside, root / "lnk");
  fs::create_symlink(outside / "victim.parquet", root / "file_link.parquet");
  auto storage = *Storage::Open(root.string());

  auto listed = storage->List("", /*recursive=*/true);
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_EQ(Paths(*listed), std::vector<std::string>{"p=1/a.parquet"});
  auto top = storage->List("", /*recursive=*/false);
  ASSERT_TRUE(top.ok());
  EXPECT_EQ(Paths(*top), std::vector<std::string>{"p=1"});

  auto outcome = storage->DeleteFiles({"lnk/victim.parquet", "lnk", "file_link.parquet", "p=1/a.parquet"});
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(outcome->deleted, 1);
  EXPECT_EQ(outcome->refused_paths, (std::vector<std::string>{"lnk/victim.parquet", "lnk", "file_link.parquet"}));
  EXPECT_TRUE(fs::exists(outside / "victim.parquet"));
  EXPECT_TRUE(fs::is_symlink(root / "lnk"));
  EXPECT_TRUE(fs::is_symlink(root / "file_link.parquet"));
  EXPECT_FALSE(fs::exists(root / "p=1" / "a.parquet"));

  EXPECT_FALSE(*storage->DeleteDirIfEmpty("lnk/empty"));  // behind a link
  EXPECT_FALSE(*storage->DeleteDirIfEmpty("lnk"));        // a link, not a folder
  EXPECT_TRUE(fs::exists(outside / "empty"));
  EXPECT_TRUE(*storage->DeleteDirIfEmpty("p=1"));

  // The root itself may be reached through a link.
  fs::create_directory_symlink(root, base / "root_link");
  Touch(root / "q" / "b.parquet");
  auto via_link = *Storage::Open((base / "root_link").string());
  auto gone = via_link->DeleteFiles({"q/b.parquet"});
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(gone->deleted, 1);
  fs::remove_all(base);
}

}  // namespace lakeshore
