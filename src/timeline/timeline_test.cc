#include "timeline/timeline.h"

#include <gtest/gtest.h>

#include <set>

#include "lakeshore/table/table.h"
#include "table/layout.h"
#include "testing/table_test_util.h"
#include "timeline/instant_time.h"

namespace lakeshore {
namespace {

TEST(InstantTime, FormatsParsesAndIncreases) {
  EXPECT_EQ(FormatInstantTime(0), "19700101000000000");
  auto ms = ParseInstantTime("20260102030405678");
  ASSERT_TRUE(ms.ok());
  EXPECT_EQ(FormatInstantTime(*ms), "20260102030405678");
  EXPECT_FALSE(ParseInstantTime("2026010203040567").ok());
  EXPECT_FALSE(ParseInstantTime("20261302030405678").ok());
  // A stalled or stepped-back clock still yields a strictly larger time.
  EXPECT_EQ(*NextInstantTime(*ms - 5000, "20260102030405678"), "20260102030405679");
  // A far-future instant on the timeline is a clear error, never an 18-digit instant.
  auto far = NextInstantTime(*ms, "99991231235959999");
  EXPECT_TRUE(IsError(far.status(), ErrorKind::kCorruptMetadata)) << far.status();
  EXPECT_NE(far.status().message().find("99991231235959999"), std::string::npos);
}

TEST(Instant, ParsesFileNames) {
  auto done = Instant::FromFileName("20260102030405678_20260102030405999.commit");
  ASSERT_TRUE(done.has_value());
  EXPECT_TRUE(done->is_completed());
  EXPECT_EQ(done->completion_time, "20260102030405999");
  auto inflight = Instant::FromFileName("20260102030405678.clean.inflight");
  ASSERT_TRUE(inflight.has_value());
  EXPECT_EQ(inflight->state, InstantState::kInflight);
  EXPECT_EQ(inflight->action, "clean");
  // Hudi's names: a commit's inflight file is `<t>.inflight`; layout 1 completes as `<t>.<action>`.
  auto commit_inflight = Instant::FromFileName("20240418173213674.inflight");
  ASSERT_TRUE(commit_inflight.has_value());
  EXPECT_EQ(commit_inflight->action, "commit");
  EXPECT_EQ(commit_inflight->state, InstantState::kInflight);
  EXPECT_EQ(commit_inflight->FileName(), "20240418173213674.inflight");
  auto v1_done = Instant::FromFileName("20240418173213674.deltacommit");
  ASSERT_TRUE(v1_done.has_value());
  EXPECT_TRUE(v1_done->is_completed());
  EXPECT_EQ(v1_done->FileName(TimelineLayout::kV1), "20240418173213674.deltacommit");
  auto clustering = Instant::FromFileName("20260307162454799.clustering.requested");
  ASSERT_TRUE(clustering.has_value());
  EXPECT_EQ(actions::CompletedAction(clustering->action), "replacecommit");
  // Whatever is not an instant file of a known action is ignored, as Hudi ignores it.
  for (const char* stray : {"2026010203040567x.commit", "20260102030405678.frobnicate.requested",
                            "notes.txt", "hoodie.properties", ".20260102030405678.commit.crc",
                            "20260102030405678_2026.commit", "20260102030405678.commit.done",
                            "20260102030405678_20260102030405999.commit.requested", ""}) {
    EXPECT_FALSE(Instant::FromFileName(stray).has_value()) << stray;
  }
}

TEST(Timeline, TruncatedInstantIsAClearErrorAndLosesNothing) {
  testing::TempDir dir("timeline_truncated");
  auto table = *Table::Create(dir.path(), testing::PeopleConfig());
  ASSERT_TRUE(table->Write(WriteOperation::kUpsert, testing::PeopleReader({{1, "a", 1, "x"}})).ok());
  auto storage = *Storage::Open(dir.path());
  auto timeline = *Timeline::Load(*storage);
  ASSERT_EQ(timeline.instants().size(), 1u);
  std::string path = testing::TableTimeline().PathOf(timeline.instants()[0]);
  std::string text = *storage->ReadString(path);
  ASSERT_TRUE(storage->WriteString(path, text.substr(0, text.size() / 2)).ok());
  auto files_before = *storage->List("", true);

  // Opening reads the commits (the schema is the latest commit's): the damage is reported there.
  auto fresh = Table::Open(dir.path());
  ASSERT_FALSE(fresh.ok());
  EXPECT_TRUE(IsError(fresh.status(), ErrorKind::kCorruptMetadata)) << fresh.status();
  EXPECT_NE(fresh.status().message().find(path), std::string::npos) << fresh.status();
  // The Table object opened before the damage fails its reads and writes, deleting nothing.
  auto read = table->Read();
  EXPECT_TRUE(read.ok() || IsError(read.status(), ErrorKind::kCorruptMetadata)) << read.status();
  // Nothing was deleted by the failed calls.
  for (const auto& e : files_before) EXPECT_TRUE(*storage->Exists(e.path) || e.is_dir) << e.path;
}

TEST(Timeline, AFarFuturePendingInstantIsAClearErrorAndNothingIsWritten) {
  testing::TempDir dir("timeline_far_future");
  auto table = *Table::Create(dir.path(), testing::PeopleConfig());
  ASSERT_TRUE(table->Write(WriteOperation::kUpsert, testing::PeopleReader({{1, "a", 1, "x"}})).ok());
  auto storage = *Storage::Open(dir.path());
  const std::string far = testing::TableTimeline().PathOf(Instant{"99991231235959999", "commit", InstantState::kRequested});
  ASSERT_TRUE(storage->WriteString(far, "").ok());
  auto before = *storage->List("", true);
  auto write = table->Write(WriteOperation::kUpsert, testing::PeopleReader({{2, "b", 1, "x"}}));
  ASSERT_FALSE(write.ok());
  EXPECT_TRUE(IsError(write.status(), ErrorKind::kCorruptMetadata)) << write.status();
  EXPECT_NE(write.status().message().find("99991231235959999"), std::string::npos) << write.status();
  auto after = *storage->List("", true);
  std::set<std::string> old_paths;
  for (const auto& e : before) old_paths.insert(e.path);
  for (const auto& e : after) {
    // Only the table lock's own lease objects may have come and gone.
    if (e.path.rfind(".hoodie/.aux/lakeshore/lock", 0) == 0) continue;
    EXPECT_TRUE(old_paths.count(e.path)) << "written by a failed write: " << e.path;
  }
  EXPECT_EQ(testing::ReadPeople(*table).size(), 1u);
}

}  // namespace
}  // namespace lakeshore

namespace lakeshore {
namespace {

TEST(Timeline, ASavepointSharesItsCommitsTimeAndBothAreKept) {
  auto storage = *Storage::Open("mem://timeline_savepoint");
  const std::string folder = ".hoodie/timeline/";
  ASSERT_TRUE(storage->WriteString(folder + "20250101000000000_20250101000000100.commit", "").ok());
  ASSERT_TRUE(storage->WriteString(folder + "20250101000000000.savepoint.inflight", "").ok());
  ASSERT_TRUE(storage->WriteString(folder + "20250101000000000_20250102000000000.savepoint", "").ok());
  ASSERT_TRUE(storage->WriteString(folder + "20250101000001000.commit.requested", "").ok());
  auto timeline = Timeline::Load(*storage);
  ASSERT_TRUE(timeline.ok()) << timeline.status();
  ASSERT_EQ(timeline->instants().size(), 3u);
  EXPECT_EQ(timeline->instants()[0].action, "commit");
  EXPECT_EQ(timeline->instants()[1].action, "savepoint");
  EXPECT_TRUE(timeline->instants()[1].is_completed());
  EXPECT_EQ(timeline->Find("20250101000000000")->action, "commit");
  // Two different actions of any other kind at one time are still damage.
  ASSERT_TRUE(storage->WriteString(folder + "20250101000001000.rollback.requested", "").ok());
  EXPECT_TRUE(IsError(Timeline::Load(*storage).status(), ErrorKind::kCorruptMetadata));
}

}  // namespace
}  // namespace lakeshore
