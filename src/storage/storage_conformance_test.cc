// One conformance suite for every Storage backend: local, in-memory, S3 (a moto server the
// tests start on 127.0.0.1) and the fault-injection wrapper (over memory, never injecting).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <latch>
#include <random>
#include <thread>

#include <gtest/gtest.h>

#include "lakeshore/storage/fault_injection_storage.h"
#include "lakeshore/storage/sub_tree_storage.h"
#include "lakeshore/storage/storage.h"
#include "storage/memory_storage.h"
#include "testing/moto_server.h"
#include "testing/status_test_util.h"

namespace lakeshore {
namespace {

enum class Backend { kLocal, kMemory, kS3, kFaultOverMemory, kSubTreeOfLocal };

std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  switch (info.param) {
    case Backend::kLocal: return "Local";
    case Backend::kMemory: return "Memory";
    case Backend::kS3: return "S3";
    case Backend::kFaultOverMemory: return "FaultOverMemory";
    case Backend::kSubTreeOfLocal: return "SubTreeOfLocal";
  }
  return "Unknown";
}

constexpr char kBucket[] = "lakeshore-conformance";

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

std::vector<std::string> Paths(std::vector<FileEntry> entries) {
  std::vector<std::string> out;
  for (auto& e : entries) out.push_back(e.path + (e.is_dir ? "/" : ""));
  std::sort(out.begin(), out.end());
  return out;
}

// The files of a recursive listing (local storage also lists empty folders there).
std::vector<std::string> Files(std::vector<FileEntry> entries) {
  std::erase_if(entries, [](const FileEntry& e) { return e.is_dir; });
  return Paths(std::move(entries));
}

class StorageConformance : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    std::string id = std::to_string(::getpid()) + "_" + std::to_string(counter++);
    switch (GetParam()) {
      case Backend::kLocal:
      case Backend::kSubTreeOfLocal: {
        local_dir_ = std::filesystem::temp_directory_path() / ("lakeshore_conformance_" + id);
        std::filesystem::remove_all(local_dir_);
        ASSERT_OK_AND_ASSIGN(storage_, Storage::Open(local_dir_.string()));
        if (GetParam() == Backend::kSubTreeOfLocal) {
          // A table inside a table, as Hudi's metadata table is: every test runs one level down.
          ASSERT_OK_AND_ASSIGN(storage_, SubTreeStorage::Make(storage_, ".hoodie/metadata"));
        }
        break;
      }
      case Backend::kMemory:
      case Backend::kFaultOverMemory: {
        mem_name_ = "conformance_" + id;
        ASSERT_OK_AND_ASSIGN(storage_, Storage::Open("mem://" + mem_name_ + "/table"));
        if (GetParam() == Backend::kFaultOverMemory) {
          ASSERT_OK_AND_ASSIGN(storage_, FaultInjectionStorage::Make(storage_, 0, FaultMode::kCrash));
        }
        break;
      }
      case Backend::kS3: {
        auto server = testing::MotoServer::Shared();
        if (!server.ok()) {
          static bool warned = false;
          if (!warned) {
            std::fprintf(stderr, "\n*** WARNING: S3 conformance tests SKIPPED: %s ***\n\n",
                         server.status().ToString().c_str());
            warned = true;
          }
          GTEST_SKIP() << "S3 tests skipped, moto could not start: " << server.status().ToString();
        }
        static Status bucket_created = (*server)->CreateBucket(kBucket);
        ASSERT_OK(bucket_created);
        ASSERT_OK_AND_ASSIGN(storage_, Storage::Open((*server)->Uri(kBucket, "t" + id + "/table"),
                                                     (*server)->Options()));
        break;
      }
    }
  }

  void TearDown() override {
    if (!local_dir_.empty()) std::filesystem::remove_all(local_dir_);
    if (!mem_name_.empty()) MemoryStorage::ForgetTree(mem_name_);
  }

  bool IsS3() const { return GetParam() == Backend::kS3; }

  std::shared_ptr<Storage> storage_;
  std::filesystem::path local_dir_;
  std::string mem_name_;
};

TEST_P(StorageConformance, WriteReadOverwrite) {
  ASSERT_OK(storage_->WriteString("a/b/file.txt", "first"));
  ASSERT_OK_AND_ASSIGN(auto content, storage_->ReadString("a/b/file.txt"));
  EXPECT_EQ(content, "first");
  ASSERT_OK(storage_->WriteString("a/b/file.txt", "second, longer"));
  ASSERT_OK_AND_ASSIGN(content, storage_->ReadString("a/b/file.txt"));
  EXPECT_EQ(content, "second, longer");
  ASSERT_OK_AND_ASSIGN(auto info, storage_->GetFileInfo("a/b/file.txt"));
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->size, 14);
  EXPECT_FALSE(info->is_dir);
  ASSERT_OK(storage_->WriteString("empty", ""));
  ASSERT_OK_AND_ASSIGN(content, storage_->ReadString("empty"));
  EXPECT_EQ(content, "");
}

TEST_P(StorageConformance, OutputStreamAppearsWholeOnCloseOnly) {
  ASSERT_OK_AND_ASSIGN(auto stream, storage_->OpenOutputStream("s/big.bin"));
  std::string chunk(1 << 16, 'x');
  for (int i = 0; i < 40; ++i) ASSERT_OK(stream->Write(chunk.data(), static_cast<int64_t>(chunk.size())));
  ASSERT_OK_AND_ASSIGN(bool visible, storage_->Exists("s/big.bin"));
  EXPECT_FALSE(visible) << "nothing may be visible before Close";
  ASSERT_OK(stream->Close());
  ASSERT_OK_AND_ASSIGN(int64_t size, stream->Tell());
  EXPECT_EQ(size, 40 * (1 << 16));
  ASSERT_OK_AND_ASSIGN(auto content, storage_->ReadString("s/big.bin"));
  EXPECT_EQ(content.size(), static_cast<size_t>(size));

  // A stream dropped without Close leaves no file and no visible temp file behind.
  {
    ASSERT_OK_AND_ASSIGN(auto dropped, storage_->OpenOutputStream("s/dropped.bin"));
    ASSERT_OK(dropped->Write(chunk.data(), 10));
  }
  ASSERT_OK_AND_ASSIGN(bool dropped_exists, storage_->Exists("s/dropped.bin"));
  EXPECT_FALSE(dropped_exists);
  ASSERT_OK_AND_ASSIGN(auto listed, storage_->List("s", true));
  EXPECT_EQ(listed.size(), 1u);
}

TEST_P(StorageConformance, ListingWhileFilesComeAndGoNeverFails) {
  // Files deleted between a listing's directory read and its stat are skipped, not an error.
  const int rounds = IsS3() ? 20 : 300;
  std::atomic<bool> done{false};
  Status writer_status;
  std::thread churn([&] {
    for (int i = 0; i < rounds && writer_status.ok(); ++i) {
      std::string path = "churn/f" + std::to_string(i % 7);
      writer_status = storage_->WriteString(path, "x");
      if (writer_status.ok()) writer_status = storage_->DeleteFiles({path}).status();
    }
    done = true;
  });
  Status list_status;
  while (!done.load() && list_status.ok()) list_status = storage_->List("churn", true).status();
  churn.join();
  EXPECT_TRUE(writer_status.ok()) << writer_status.ToString();
  EXPECT_TRUE(list_status.ok()) << list_status.ToString();
}

TEST_P(StorageConformance, ReadOfMissingFileNamesThePath) {
  auto result = storage_->ReadString("no/such/file.parquet");
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.status().IsIOError()) << result.status().ToString();
  EXPECT_NE(result.status().message().find("no/such/file.parquet"), std::string::npos)
      << result.status().ToString();
  ASSERT_OK_AND_ASSIGN(auto exists, storage_->Exists("no/such/file.parquet"));
  EXPECT_FALSE(exists);
}

TEST_P(StorageConformance, OverwriteIsAtomicForReaders) {
  const std::string a(1 << 20, 'a'), b(3 << 19, 'b');
  ASSERT_OK(storage_->WriteString("atomic.bin", a));
  std::atomic<bool> done{false};
  std::atomic<int> reads{0};
  std::string bad;
  std::thread reader([&] {
    while (!done.load() || reads.load() == 0) {
      auto content = storage_->ReadString("atomic.bin");
      if (!content.ok()) {
        bad = content.status().ToString();
        return;
      }
      ++reads;
      if (*content != a && *content != b) {
        bad = "torn read of " + std::to_string(content->size()) + " bytes";
        return;
      }
    }
  });
  for (int i = 0; i < 10; ++i) ASSERT_OK(storage_->WriteString("atomic.bin", i % 2 ? a : b));
  done = true;
  reader.join();
  EXPECT_EQ(bad, "");
  EXPECT_GT(reads.load(), 0);
}

TEST_P(StorageConformance, PutIfAbsentCreatesOnceAndKeepsContent) {
  ASSERT_OK_AND_ASSIGN(bool created, storage_->PutIfAbsentString("t/instant.requested", "one"));
  EXPECT_TRUE(created);
  ASSERT_OK_AND_ASSIGN(created, storage_->PutIfAbsentString("t/instant.requested", "two"));
  EXPECT_FALSE(created);
  ASSERT_OK_AND_ASSIGN(auto content, storage_->ReadString("t/instant.requested"));
  EXPECT_EQ(content, "one");
  // WriteFile then PutIfAbsent: the written file counts as present.
  ASSERT_OK(storage_->WriteString("t/written", "w"));
  ASSERT_OK_AND_ASSIGN(created, storage_->PutIfAbsentString("t/written", "p"));
  EXPECT_FALSE(created);
}

TEST_P(StorageConformance, PutIfAbsentRaceHasExactlyOneWinner) {
  constexpr int kThreads = 8;
  for (int round = 0; round < 5; ++round) {
    std::string path = "race/lock_" + std::to_string(round);
    std::latch start(kThreads);
    std::atomic<int> winners{0}, losers{0};
    std::vector<std::string> errors(kThreads);
    std::vector<std::thread> threads;
    std::atomic<int> winner_id{-1};
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        start.arrive_and_wait();
        auto created = storage_->PutIfAbsentString(path, "writer " + std::to_string(t));
        if (!created.ok()) {
          errors[t] = created.status().ToString();
        } else if (*created) {
          ++winners;
          winner_id = t;
        } else {
          ++losers;
        }
      });
    }
    for (auto& th : threads) th.join();
    for (const auto& e : errors) EXPECT_EQ(e, "");
    EXPECT_EQ(winners.load(), 1) << "round " << round;
    EXPECT_EQ(losers.load(), kThreads - 1) << "round " << round;
    ASSERT_OK_AND_ASSIGN(auto content, storage_->ReadString(path));
    EXPECT_EQ(content, "writer " + std::to_string(winner_id.load()));
  }
}

TEST_P(StorageConformance, ListsRecursivelyWithSizesAndMtimes) {
  int64_t before = NowMs();
  ASSERT_OK(storage_->WriteString("a/b/c.txt", "123"));
  ASSERT_OK(storage_->WriteString("a/d.txt", "12345"));
  ASSERT_OK(storage_->WriteString("e.txt", "1"));
  int64_t after = NowMs();
  ASSERT_OK_AND_ASSIGN(auto all, storage_->List("", true));
  EXPECT_EQ(Files(all), (std::vector<std::string>{"a/b/c.txt", "a/d.txt", "e.txt"}));
  for (const auto& e : all) {
    int64_t expected = e.path == "a/b/c.txt" ? 3 : e.path == "a/d.txt" ? 5 : 1;
    EXPECT_EQ(e.size, expected) << e.path;
    // S3 keeps whole seconds; allow for that and small clock differences.
    EXPECT_GE(e.mtime_ms, before - 2000) << e.path;
    EXPECT_LE(e.mtime_ms, after + 2000) << e.path;
  }
  ASSERT_OK_AND_ASSIGN(auto under_a, storage_->List("a", true));
  EXPECT_EQ(Files(under_a), (std::vector<std::string>{"a/b/c.txt", "a/d.txt"}));
  ASSERT_OK_AND_ASSIGN(auto under_a_slash, storage_->List("a/", true));
  EXPECT_EQ(Files(under_a_slash), Files(under_a));
}

TEST_P(StorageConformance, ListsDirectChildrenNonRecursively) {
  ASSERT_OK(storage_->WriteString("a/b/c.txt", "123"));
  ASSERT_OK(storage_->WriteString("a/d.txt", "12345"));
  ASSERT_OK(storage_->WriteString("ab.txt", "xy"));
  ASSERT_OK(storage_->WriteString("e.txt", "1"));
  ASSERT_OK_AND_ASSIGN(auto top, storage_->List("", false));
  EXPECT_EQ(Paths(top), (std::vector<std::string>{"a/", "ab.txt", "e.txt"}));
  for (const auto& e : top) {
    if (e.path == "ab.txt") EXPECT_EQ(e.size, 2);
  }
  ASSERT_OK_AND_ASSIGN(auto under_a, storage_->List("a", false));
  EXPECT_EQ(Paths(under_a), (std::vector<std::string>{"a/b/", "a/d.txt"}));
}

TEST_P(StorageConformance, ListingAMissingFolderIsEmpty) {
  ASSERT_OK(storage_->WriteString("present/x", "1"));
  for (bool recursive : {true, false}) {
    ASSERT_OK_AND_ASSIGN(auto entries, storage_->List("missing/folder", recursive));
    EXPECT_TRUE(entries.empty());
    ASSERT_OK_AND_ASSIGN(entries, storage_->List("pres", recursive));  // a name prefix, not a folder
    EXPECT_TRUE(entries.empty());
  }
}

TEST_P(StorageConformance, GetFileInfoOfFileFolderAndMissing) {
  ASSERT_OK(storage_->WriteString("dir/file", "abc"));
  ASSERT_OK_AND_ASSIGN(auto file, storage_->GetFileInfo("dir/file"));
  ASSERT_TRUE(file.has_value());
  EXPECT_EQ(file->path, "dir/file");
  EXPECT_EQ(file->size, 3);
  ASSERT_OK_AND_ASSIGN(auto dir, storage_->GetFileInfo("dir"));
  ASSERT_TRUE(dir.has_value());
  EXPECT_TRUE(dir->is_dir);
  ASSERT_OK_AND_ASSIGN(auto missing, storage_->GetFileInfo("dir/nope"));
  EXPECT_FALSE(missing.has_value());
  ASSERT_OK_AND_ASSIGN(auto exists, storage_->Exists("dir"));
  EXPECT_FALSE(exists) << "Exists is for files";
}

TEST_P(StorageConformance, DeletesAreBatchedAndIdempotent) {
  ASSERT_OK(storage_->WriteString("p/f1", "1"));
  ASSERT_OK(storage_->WriteString("p/f2", "2"));
  ASSERT_OK(storage_->WriteString("q/f3", "3"));
  std::vector<std::string> batch = {"p/f1", "p/missing", "q/f3", "p/f1", "never/was/here"};
  ASSERT_OK_AND_ASSIGN(auto outcome, storage_->DeleteFiles(batch));
  EXPECT_EQ(outcome.deleted, 2);
  EXPECT_EQ(outcome.already_gone, 3);
  EXPECT_EQ(outcome.deleted_paths, (std::vector<std::string>{"p/f1", "q/f3"}));
  ASSERT_OK_AND_ASSIGN(auto left, storage_->List("", true));
  EXPECT_EQ(Files(left), (std::vector<std::string>{"p/f2"}));
  ASSERT_OK_AND_ASSIGN(outcome, storage_->DeleteFiles(batch));
  EXPECT_EQ(outcome.deleted, 0);
  EXPECT_EQ(outcome.already_gone, 5);
  EXPECT_TRUE(outcome.deleted_paths.empty());
  ASSERT_OK_AND_ASSIGN(outcome, storage_->DeleteFiles({}));
  EXPECT_EQ(outcome.deleted + outcome.already_gone, 0);
}

TEST_P(StorageConformance, DeletesMoreThanOneS3BatchOfFiles) {
  // S3: more than its 1000 keys per multi-object delete. Elsewhere fewer (local writes fsync).
  const int kFiles = IsS3() ? 1005 : 205;
  std::vector<std::string> paths;
  for (int i = 0; i < kFiles; ++i) paths.push_back("many/part=" + std::to_string(i % 3) + "/f" + std::to_string(i));
  std::vector<std::thread> writers;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      for (int i = t; i < kFiles; i += 4) {
        if (!storage_->WriteString(paths[i], "x").ok()) ++failures;
      }
    });
  }
  for (auto& w : writers) w.join();
  ASSERT_EQ(failures.load(), 0);
  paths.push_back("many/part=0/not-there");
  ASSERT_OK_AND_ASSIGN(auto outcome, storage_->DeleteFiles(paths));
  EXPECT_EQ(outcome.deleted, kFiles);
  EXPECT_EQ(outcome.already_gone, 1);
  ASSERT_OK_AND_ASSIGN(auto left, storage_->List("many", true));
  EXPECT_TRUE(Files(left).empty()) << Files(left).size() << " files left";
}

TEST_P(StorageConformance, DeleteDirIfEmptyLeavesNonEmptyFoldersAlone) {
  ASSERT_OK(storage_->WriteString("d/sub/x", "1"));
  ASSERT_OK_AND_ASSIGN(bool removed, storage_->DeleteDirIfEmpty("d/sub"));
  EXPECT_FALSE(removed);
  ASSERT_OK_AND_ASSIGN(bool exists, storage_->Exists("d/sub/x"));
  EXPECT_TRUE(exists);
  ASSERT_OK(storage_->DeleteFiles({"d/sub/x"}).status());
  ASSERT_OK(storage_->DeleteDirIfEmpty("d/sub").status());
  ASSERT_OK_AND_ASSIGN(auto under_d, storage_->List("d", false));
  EXPECT_TRUE(under_d.empty()) << Paths(under_d).front();
  ASSERT_OK_AND_ASSIGN(removed, storage_->DeleteDirIfEmpty("never/existed"));
  EXPECT_FALSE(removed);
}

TEST_P(StorageConformance, WritesRaceSafelyWithEmptyFolderRemoval) {
  // A cleaner removing emptied partition folders must not make a concurrent writer fail.
  const int rounds = IsS3() ? 20 : 200;
  std::atomic<bool> done{false};
  std::string remover_error;
  std::thread remover([&] {
    while (!done.load()) {
      auto removed = storage_->DeleteDirIfEmpty("part=1");
      if (!removed.ok()) {
        remover_error = removed.status().ToString();
        return;
      }
    }
  });
  Status st;
  for (int i = 0; i < rounds && st.ok(); ++i) {
    std::string path = "part=1/f" + std::to_string(i);
    st = (i % 2) ? storage_->WriteString(path, "x") : storage_->PutIfAbsentString(path, "x").status();
    if (st.ok()) st = storage_->DeleteFiles({path}).status();
  }
  done = true;
  remover.join();
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(remover_error, "");
}

TEST_P(StorageConformance, PathsOutsideTheRootAreRefused) {
  ASSERT_OK(storage_->WriteString("keep", "1"));
  for (std::string bad : {"../x", "/abs/x", "a/../b", "a//b", "..", ""}) {
    SCOPED_TRACE("path '" + bad + "'");
    auto refused = [&](const Status& st) { return IsError(st, ErrorKind::kPathOutsideTable); };
    EXPECT_TRUE(refused(storage_->ReadFile(bad).status()));
    EXPECT_TRUE(refused(storage_->OpenInputFile(bad).status()));
    EXPECT_TRUE(refused(storage_->WriteString(bad, "x")));
    EXPECT_TRUE(refused(storage_->PutIfAbsentString(bad, "x").status()));
    EXPECT_TRUE(refused(storage_->DeleteFiles({"keep", bad}).status()));
    EXPECT_TRUE(refused(storage_->DeleteDirIfEmpty(bad).status()));
    if (!bad.empty()) {  // "" is the root, which GetFileInfo and List accept
      EXPECT_TRUE(refused(storage_->GetFileInfo(bad).status()));
      EXPECT_TRUE(refused(storage_->List(bad, true).status()));
    }
  }
  ASSERT_OK_AND_ASSIGN(bool kept, storage_->Exists("keep"));
  EXPECT_TRUE(kept) << "a batch with a bad path must delete nothing";
}

TEST_P(StorageConformance, LargeFilesRoundTrip) {
  const std::string big = RandomBytes(20 << 20, 7);  // S3: over the single-PUT limit, multipart
  ASSERT_OK(storage_->WriteString("big/data.parquet", big));
  ASSERT_OK_AND_ASSIGN(auto content, storage_->ReadString("big/data.parquet"));
  EXPECT_TRUE(content == big);
  for (std::optional<int64_t> hint : {std::optional<int64_t>(), std::optional<int64_t>(big.size())}) {
    ASSERT_OK_AND_ASSIGN(auto file, storage_->OpenInputFile("big/data.parquet", hint));
    ASSERT_OK_AND_ASSIGN(int64_t size, file->GetSize());
    EXPECT_EQ(size, static_cast<int64_t>(big.size()));
    ASSERT_OK_AND_ASSIGN(auto tail, file->ReadAt(size - 100, 100));
    EXPECT_EQ(tail->ToString(), big.substr(big.size() - 100));
  }
  const std::string medium = RandomBytes(3 << 20, 8);
  ASSERT_OK_AND_ASSIGN(bool created, storage_->PutIfAbsentString("big/put.bin", medium));
  EXPECT_TRUE(created);
  ASSERT_OK_AND_ASSIGN(content, storage_->ReadString("big/put.bin"));
  EXPECT_TRUE(content == medium);
}

TEST_P(StorageConformance, SpecialCharactersInNames) {
  const std::vector<std::string> names = {
      "part=2024-01-01/file with space.txt", "pct/100%25 done%.txt", "ünïcødé/日本語.parquet",
      "sym/a+b&c'd~e,f;g@h$!(x).txt", "q/<tag>\"quoted\".txt"};
  for (size_t i = 0; i < names.size(); ++i) {
    SCOPED_TRACE(names[i]);
    if (i % 2 == 0) {
      ASSERT_OK(storage_->WriteString(names[i], "content " + names[i]));
    } else {
      ASSERT_OK_AND_ASSIGN(bool created, storage_->PutIfAbsentString(names[i], "content " + names[i]));
      EXPECT_TRUE(created);
      ASSERT_OK_AND_ASSIGN(created, storage_->PutIfAbsentString(names[i], "again"));
      EXPECT_FALSE(created);
    }
    ASSERT_OK_AND_ASSIGN(auto content, storage_->ReadString(names[i]));
    EXPECT_EQ(content, "content " + names[i]);
    ASSERT_OK_AND_ASSIGN(auto info, storage_->GetFileInfo(names[i]));
    ASSERT_TRUE(info.has_value());
  }
  ASSERT_OK_AND_ASSIGN(auto all, storage_->List("", true));
  auto expected = names;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(Files(all), expected);
  ASSERT_OK_AND_ASSIGN(auto outcome, storage_->DeleteFiles(names));
  EXPECT_EQ(outcome.deleted, static_cast<int64_t>(names.size()));
  ASSERT_OK_AND_ASSIGN(all, storage_->List("", true));
  EXPECT_TRUE(Files(all).empty());
}

TEST_P(StorageConformance, ModificationTimeCanBeSetForTests) {
  ASSERT_OK(storage_->WriteString("old/file", "x"));
  constexpr int64_t kLongAgo = 1000000000123;  // 2001-09-09
  Status st = storage_->SetModificationTimeForTesting("old/file", kLongAgo);
  if (IsS3()) {
    EXPECT_TRUE(st.IsNotImplemented()) << st.ToString();
    return;
  }
  ASSERT_OK(st);
  ASSERT_OK_AND_ASSIGN(auto info, storage_->GetFileInfo("old/file"));
  EXPECT_EQ(info->mtime_ms, kLongAgo);
  ASSERT_OK_AND_ASSIGN(auto entries, storage_->List("old", true));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].mtime_ms, kLongAgo);
  EXPECT_FALSE(storage_->SetModificationTimeForTesting("old/missing", kLongAgo).ok());
}

TEST_P(StorageConformance, ReopeningTheRootUriSeesTheSameFiles) {
  ASSERT_OK(storage_->WriteString("x/y", "shared"));
  StorageOptions options;
  if (IsS3()) options = (*testing::MotoServer::Shared())->Options();
  ASSERT_OK_AND_ASSIGN(auto again, Storage::Open(storage_->root_uri(), options));
  ASSERT_OK_AND_ASSIGN(auto content, again->ReadString("x/y"));
  EXPECT_EQ(content, "shared");
}

INSTANTIATE_TEST_SUITE_P(AllBackends, StorageConformance,
                         ::testing::Values(Backend::kLocal, Backend::kMemory, Backend::kS3,
                                           Backend::kFaultOverMemory, Backend::kSubTreeOfLocal),
                         BackendName);

}  // namespace
}  // namespace lakeshore
