#include "lakeshore/storage/fault_injection_storage.h"

#include <gtest/gtest.h>

#include "storage/memory_storage.h"
#include "testing/status_test_util.h"

namespace lakeshore {
namespace {

// A small "operation" with four mutating calls of every kind, reads in between.
Status FourStepOperation(Storage& storage) {
  ARROW_RETURN_NOT_OK(storage.WriteString("data/f1", "1"));
  ARROW_ASSIGN_OR_RAISE(bool created, storage.PutIfAbsentString("timeline/t1.commit", "c"));
  if (!created) return Status::Invalid("instant already there");
  ARROW_RETURN_NOT_OK(storage.List("data", true).status());
  ARROW_RETURN_NOT_OK(storage.DeleteFiles({"data/old1", "data/old2"}).status());
  ARROW_RETURN_NOT_OK(storage.ReadString("data/f1").status());
  return storage.DeleteDirIfEmpty("data/empty").status();
}

class FaultInjectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MemoryStorage::ForgetTree("fault");
    ASSERT_OK_AND_ASSIGN(inner_, Storage::Open("mem://fault"));
    ASSERT_OK(inner_->WriteString("data/old1", "x"));
    ASSERT_OK(inner_->WriteString("data/old2", "x"));
  }
  void TearDown() override { MemoryStorage::ForgetTree("fault"); }

  // What the operation's four steps left in the inner storage, as four booleans.
  std::vector<bool> EffectsSeen() {
    return {*inner_->Exists("data/f1"), *inner_->Exists("timeline/t1.commit"),
            !*inner_->Exists("data/old1"), false /* DeleteDirIfEmpty leaves no trace */};
  }

  std::shared_ptr<Storage> inner_;
};

TEST_F(FaultInjectionTest, KZeroNeverInjectsAndCountsMutatingCalls) {
  ASSERT_OK_AND_ASSIGN(auto storage, FaultInjectionStorage::Make(inner_, 0, FaultMode::kCrash));
  ASSERT_OK(FourStepOperation(*storage));
  EXPECT_EQ(storage->mutating_calls(), 4);  // DeleteFiles of two paths counts once
  EXPECT_FALSE(storage->injected());
  EXPECT_EQ(storage->root_uri(), inner_->root_uri());
}

TEST_F(FaultInjectionTest, FailOnceFailsOnlyTheKthCallWithoutEffect) {
  ASSERT_OK_AND_ASSIGN(auto storage, FaultInjectionStorage::Make(inner_, 2, FaultMode::kFailOnce));
  ASSERT_OK(storage->WriteString("a", "1"));
  auto second = storage->PutIfAbsentString("b", "2");
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(second.status().IsIOError());
  EXPECT_FALSE(IsError(second.status(), ErrorKind::kCrashInjected));
  EXPECT_NE(second.status().message().find("'b'"), std::string::npos) << second.status().ToString();
  EXPECT_FALSE(*inner_->Exists("b")) << "the failed call must have no effect";
  EXPECT_TRUE(storage->injected());
  EXPECT_FALSE(storage->crashed());
  // Later calls, reads and writes, pass; a retry of the failed call succeeds.
  ASSERT_OK_AND_ASSIGN(bool created, storage->PutIfAbsentString("b", "2"));
  EXPECT_TRUE(created);
  ASSERT_OK_AND_ASSIGN(auto content, storage->ReadString("a"));
  EXPECT_EQ(content, "1");
  EXPECT_EQ(storage->mutating_calls(), 3);
}

TEST_F(FaultInjectionTest, CrashRefusesTheKthAndEveryLaterCallReadsIncluded) {
  ASSERT_OK_AND_ASSIGN(auto storage, FaultInjectionStorage::Make(inner_, 2, FaultMode::kCrash));
  ASSERT_OK(storage->WriteString("a", "1"));
  ASSERT_OK_AND_ASSIGN(auto before, storage->ReadString("a"));  // reads before the crash pass
  Status crash = storage->WriteString("b", "2");
  EXPECT_TRUE(IsError(crash, ErrorKind::kCrashInjected)) << crash.ToString();
  EXPECT_TRUE(storage->crashed());
  EXPECT_FALSE(*inner_->Exists("b"));
  EXPECT_TRUE(IsError(storage->ReadString("a").status(), ErrorKind::kCrashInjected));
  EXPECT_TRUE(IsError(storage->OpenInputFile("a").status(), ErrorKind::kCrashInjected));
  EXPECT_TRUE(IsError(storage->List("", true).status(), ErrorKind::kCrashInjected));
  EXPECT_TRUE(IsError(storage->GetFileInfo("a").status(), ErrorKind::kCrashInjected));
  EXPECT_TRUE(IsError(storage->DeleteFiles({"a"}).status(), ErrorKind::kCrashInjected));
  EXPECT_TRUE(IsError(storage->DeleteDirIfEmpty("x").status(), ErrorKind::kCrashInjected));
  EXPECT_TRUE(*inner_->Exists("a")) << "calls before the crash took effect";
  EXPECT_EQ(storage->mutating_calls(), 4);
}

TEST_F(FaultInjectionTest, CrashAtEveryKLeavesExactlyTheFirstKMinusOneEffects) {
  ASSERT_OK_AND_ASSIGN(auto counter, FaultInjectionStorage::Make(inner_, 0, FaultMode::kCrash));
  ASSERT_OK(FourStepOperation(*counter));
  const int64_t n = counter->mutating_calls();
  ASSERT_EQ(n, 4);
  for (int64_t k = 1; k <= n; ++k) {
    SetUp();  // a fresh tree for every k
    ASSERT_OK_AND_ASSIGN(auto storage, FaultInjectionStorage::Make(inner_, k, FaultMode::kCrash));
    Status st = FourStepOperation(*storage);
    EXPECT_TRUE(IsError(st, ErrorKind::kCrashInjected)) << "k=" << k << ": " << st.ToString();
    std::vector<bool> expected = {k > 1, k > 2, k > 3, false};
    EXPECT_EQ(EffectsSeen(), expected) << "k=" << k;
  }
}

TEST_F(FaultInjectionTest, FailOnceAtEveryKStopsTheOperationThereAndLaterCallsPass) {
  for (int64_t k = 1; k <= 4; ++k) {
    SetUp();
    ASSERT_OK_AND_ASSIGN(auto storage, FaultInjectionStorage::Make(inner_, k, FaultMode::kFailOnce));
    Status st = FourStepOperation(*storage);
    EXPECT_TRUE(st.IsIOError()) << "k=" << k << ": " << st.ToString();
    EXPECT_FALSE(IsError(st, ErrorKind::kCrashInjected));
    std::vector<bool> expected = {k > 1, k > 2, k > 3, false};
    EXPECT_EQ(EffectsSeen(), expected) << "k=" << k;
    ASSERT_OK(storage->WriteString("after", "ok"));
    ASSERT_OK_AND_ASSIGN(auto content, storage->ReadString("after"));
    EXPECT_EQ(content, "ok");
  }
}

TEST_F(FaultInjectionTest, FailOnceAfterEffectLosesOnlyTheResponse) {
  for (int64_t k = 1; k <= 4; ++k) {
    SetUp();
    ASSERT_OK_AND_ASSIGN(auto storage, FaultInjectionStorage::Make(inner_, k, FaultMode::kFailOnceAfterEffect));
    Status st = FourStepOperation(*storage);
    EXPECT_TRUE(st.IsIOError()) << "k=" << k << ": " << st.ToString();
    std::vector<bool> expected = {k >= 1, k >= 2, k >= 3, false};  // call k took effect
    EXPECT_EQ(EffectsSeen(), expected) << "k=" << k;
    EXPECT_FALSE(storage->crashed());
  }
  // The lost response of a put-if-absent: the retry sees the file and gets false.
  SetUp();
  ASSERT_OK_AND_ASSIGN(auto storage, FaultInjectionStorage::Make(inner_, 1, FaultMode::kFailOnceAfterEffect));
  EXPECT_FALSE(storage->PutIfAbsentString("lock", "me").ok());
  ASSERT_OK_AND_ASSIGN(bool created, storage->PutIfAbsentString("lock", "me"));
  EXPECT_FALSE(created);
}

TEST_F(FaultInjectionTest, RejectsBadArguments) {
  EXPECT_TRUE(FaultInjectionStorage::Make(nullptr, 1, FaultMode::kCrash).status().IsInvalid());
  EXPECT_TRUE(FaultInjectionStorage::Make(inner_, -1, FaultMode::kCrash).status().IsInvalid());
}

}  // namespace
}  // namespace lakeshore
