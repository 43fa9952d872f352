#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include <fcntl.h>
#include <sys/stat.h>

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

// A storage rooted at "/" (an inventory file at the root) names its files "/x", not "//x".
TEST(LocalStorage, ARootOfSlashNamesFilesWithOneSlash) {
  auto storage = Storage::Open("/");
  ASSERT_TRUE(storage.ok()) << storage.status();
  auto missing = (*storage)->ReadString("lakeshore-no-such-file.parquet");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("'/lakeshore-no-such-file.parquet'"), std::string::npos)
      << missing.status();
  EXPECT_EQ(missing.status().message().find("//"), std::string::npos) << missing.status();
}

// Names up to the file system's 255 bytes are written, in new folders too: their hidden staging
// names (".<name>.lakeshore-staged-dir.<pid>.<n>.<r>") once passed 255 and the write failed with "its
// folder kept disappearing".
TEST(LocalStorage, LongNamesStageUnderNamesTheFileSystemTakes) {
  auto dir = std::filesystem::temp_directory_path() / "lakeshore_local_long_names";
  std::filesystem::remove_all(dir);
  auto storage = *Storage::Open(dir.string());
  const std::string folder(232, 'p'), file(250, 'f');
  ASSERT_TRUE(storage->PutIfAbsentString(folder + "/" + file, "one").ok());
  EXPECT_EQ(*storage->ReadString(folder + "/" + file), "one");
  ASSERT_TRUE(storage->PutIfAbsentString(folder + "/" + folder + "/x", "two").ok());
  auto listed = storage->List(folder, /*recursive=*/true);
  ASSERT_TRUE(listed.ok());
  int files = 0;
  for (const auto& e : *listed) {
    EXPECT_FALSE(IsStagedWriteName(e.path.substr(e.path.rfind('/') + 1))) << e.path;  // no staging leftovers
    files += e.is_dir ? 0 : 1;
  }
  EXPECT_EQ(files, 2);
  std::filesystem::remove_all(dir);
}

// A link to a file is listed, marked, with its target's size (a commit file linked into a log
// was skipped, and the log read as an older version); links to folders and dangling links are
// not; and a link is never deleted.
TEST(LocalStorage, ListsLinksToFilesMarkedAndNeverDeletesThem) {
  auto base = std::filesystem::temp_directory_path() / "lakeshore_local_file_links";
  std::filesystem::remove_all(base);
  std::filesystem::create_directories(base / "outside" / "folder");
  std::ofstream(base / "outside" / "target.json") << "12345";
  auto dir = base / "t";
  auto storage = *Storage::Open(dir.string());
  ASSERT_TRUE(storage->PutIfAbsentString("log/1.json", "1").ok());
  std::filesystem::create_symlink(base / "outside" / "target.json", dir / "log" / "2.json");
  std::filesystem::create_directory_symlink(base / "outside" / "folder", dir / "log" / "sub");
  std::filesystem::create_symlink(base / "nowhere", dir / "log" / "3.json");
  std::filesystem::create_symlink("1.json", dir / "log" / "4.json");  // inside the tree
  for (bool recursive : {false, true}) {
    auto listed = storage->List("log", recursive);
    ASSERT_TRUE(listed.ok());
    std::map<std::string, FileEntry> by_path;
    for (const auto& e : *listed) by_path[e.path] = e;
    ASSERT_EQ(by_path.size(), 3u) << recursive;
    EXPECT_FALSE(by_path["log/1.json"].is_link);
    EXPECT_TRUE(by_path["log/2.json"].is_link);
    EXPECT_EQ(by_path["log/2.json"].size, 5);
    EXPECT_EQ(by_path["log/2.json"].link_target, "");  // outside the tree
    EXPECT_TRUE(by_path["log/4.json"].is_link);
    EXPECT_EQ(by_path["log/4.json"].link_target, "log/1.json");
  }
  EXPECT_EQ(*storage->ReadString("log/2.json"), "12345");
  auto deleted = storage->DeleteFiles({"log/2.json"});
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(deleted->refused_paths, std::vector<std::string>{"log/2.json"});
  EXPECT_TRUE(std::filesystem::exists(base / "outside" / "target.json"));
  std::filesystem::remove_all(base);
}

// A streamed file of several writeback steps (writeback of each step starts while the rest is
// written) appears whole, with every byte, only when closed.
TEST(LocalStorage, StreamedFileAppearsWholeOnClose) {
  auto dir = std::filesystem::temp_directory_path() / "lakeshore_local_streamed";
  std::filesystem::remove_all(dir);
  auto storage = *Storage::Open(dir.string());
  auto out = *storage->OpenOutputStream("p/big.bin");
  std::string expected;
  for (int i = 0; i < 300; ++i) {
    std::string piece(37 * 1024 + i, static_cast<char>('a' + i % 26));
    ASSERT_TRUE(out->Write(piece.data(), static_cast<int64_t>(piece.size())).ok());
    expected += piece;
  }
  ASSERT_GT(expected.size(), size_t{10} << 20);
  EXPECT_FALSE(std::filesystem::exists(dir / "p" / "big.bin"));
  ASSERT_TRUE(out->Close().ok());
  EXPECT_EQ(*storage->ReadString("p/big.bin"), expected);
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
// A link to a file is listed, marked (ListsLinksToFilesMarkedAndNeverDeletesThem): a commit
// file linked into a log was skipped and the log read as an older version.
TEST(LocalStorage, SymbolicLinksToFoldersAreNotListedAndNoLinkIsDeletedOrDeletedThrough) {
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
  EXPECT_EQ(Paths(*listed), (std::vector<std::string>{"file_link.parquet", "p=1/a.parquet"}));
  auto top = storage->List("", /*recursive=*/false);
  ASSERT_TRUE(top.ok());
  EXPECT_EQ(Paths(*top), (std::vector<std::string>{"file_link.parquet", "p=1"}));
  for (const auto& e : *top) EXPECT_EQ(e.is_link, e.path == "file_link.parquet") << e.path;

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

TEST(LocalStorage, ListSkippingDetailsStatsOnlyWhatIsNeeded) {
  auto base = fs::temp_directory_path() / "lakeshore_local_skip_details";
  fs::remove_all(base);
  Touch(base / "p=1" / "live.parquet");
  Touch(base / "p=1" / "stray.parquet");
  fs::create_directories(base / "p=2" / "empty");
  auto storage = *Storage::Open(base.string());
  auto listed = storage->ListSkippingDetails("", /*recursive=*/true,
                                             [](std::string_view path) { return path != "p=1/live.parquet"; });
  ASSERT_TRUE(listed.ok()) << listed.status();
  std::map<std::string, FileEntry> by_path;
  for (const auto& e : *listed) by_path[e.path] = e;
  // The file whose details nobody needs is left out (a vacuum counts it as it answers).
  ASSERT_EQ(by_path.size(), 2u);
  EXPECT_EQ(by_path.count("p=1/live.parquet"), 0u);
  EXPECT_EQ(by_path["p=1/stray.parquet"].size, 1);
  EXPECT_GT(by_path["p=1/stray.parquet"].mtime_ms, 0);
  EXPECT_TRUE(by_path["p=2/empty"].is_dir);
  EXPECT_GT(by_path["p=2/empty"].mtime_ms, 0);
  // The plain listing always has details.
  for (const auto& e : *storage->List("", true)) EXPECT_GE(e.mtime_ms, 0) << e.path;
  fs::remove_all(base);
}

TEST(LocalStorage, AFileDeeperThanPathMaxIsStatedFolderByFolder) {
  // A stray 40 folders of 120 bytes down (over 4,096 bytes from /): stat(2) of its whole path
  // fails with ENAMETOOLONG, which stopped every full vacuum of the table.
  auto base = fs::temp_directory_path() / "lakeshore_local_deep";
  fs::remove_all(base);
  fs::create_directories(base);
  int fd = ::open(base.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  std::string rel;
  const std::string folder(120, 'd');
  for (int i = 0; i < 40; ++i) {
    ASSERT_EQ(::mkdirat(fd, folder.c_str(), 0755), 0);
    int sub = ::openat(fd, folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ::close(fd);
    ASSERT_GE(sub, 0);
    fd = sub;
    rel += folder + "/";
  }
  int file = ::openat(fd, "stray.parquet", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(file, 0);
  ASSERT_EQ(::write(file, "abc", 3), 3);
  ::close(file);
  ::close(fd);
  ASSERT_GT((base.string() + "/" + rel).size(), 4096u);
  auto storage = *Storage::Open(base.string());
  auto info = storage->GetFileInfo(rel + "stray.parquet");
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_TRUE(info->has_value());
  EXPECT_EQ((*info)->size, 3);
  EXPECT_GT((*info)->mtime_ms, 0);
  auto missing = storage->GetFileInfo(rel + "other.parquet");
  ASSERT_TRUE(missing.ok()) << missing.status();
  EXPECT_FALSE(missing->has_value());
  // What a vacuum asks of each folder holding a candidate: no nested table there.
  auto marker = storage->GetFileInfo(rel + ".hoodie/hoodie.properties");
  ASSERT_TRUE(marker.ok()) << marker.status();
  EXPECT_FALSE(marker->has_value());
  std::error_code ec;
  fs::remove_all(base, ec);
}

TEST(LocalStorage, ReadingLeavesTheAccessTimeAlone) {
  auto base = fs::temp_directory_path() / "lakeshore_local_noatime";
  fs::remove_all(base);
  Touch(base / "commit.json");
  const std::string path = (base / "commit.json").string();
  // An access time older than the modification time: relatime would update it on a read.
  struct timespec times[2];
  times[0].tv_sec = 1000;  // atime
  times[0].tv_nsec = 0;
  times[1].tv_sec = 2000;  // mtime
  times[1].tv_nsec = 0;
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  auto storage = *Storage::Open(base.string());
  auto bytes = storage->ReadFile("commit.json");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ((*bytes)->size(), 1);
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_atim.tv_sec, 1000);
  auto missing = storage->ReadFile("nope.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("nope.json"), std::string::npos) << missing.status();
  fs::remove_all(base);
}

}  // namespace lakeshore
