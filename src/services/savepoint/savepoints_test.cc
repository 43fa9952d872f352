#include "services/savepoint/savepoints.h"

#include <gtest/gtest.h>

#include "lakeshore/table/table.h"
#include "testing/status_test_util.h"
#include "testing/table_test_util.h"

namespace lakeshore {
namespace {
using testing::PeopleReader;
using testing::ReadPeople;

TEST(Savepoints, CreateListDeleteAndArchivalKeepsWhatTheyNeed) {
  testing::TempDir dir("savepoints");
  auto table = *Table::Create(dir.path(), testing::PeopleConfig());
  std::vector<std::string> instants;
  for (int i = 0; i < 8; ++i) {
    auto r = table->Write(WriteOperation::kUpsert, PeopleReader({{i, "n" + std::to_string(i), 1, i % 2 ? "x" : "y"}}));
    ASSERT_TRUE(r.ok()) << r.status();
    instants.push_back(r->instant_time);
  }
  ASSERT_OK_AND_ASSIGN(auto sp, table->CreateSavepoint(instants[2], "ana", "before the migration"));
  EXPECT_EQ(sp.instant_time, instants[2]);
  EXPECT_EQ(sp.user, "ana");
  EXPECT_EQ(sp.comment, "before the migration");
  EXPECT_EQ(sp.files, 2);  // the latest slices as of instant 2: one per partition
  EXPECT_GT(sp.completion_time, instants.back());
  ASSERT_OK_AND_ASSIGN(auto listed, table->Savepoints());
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].instant_time, instants[2]);
  // The table reads as before; a second savepoint of the same commit, or of nothing, is refused.
  EXPECT_EQ(ReadPeople(*table).size(), 8u);
  EXPECT_TRUE(table->CreateSavepoint(instants[2]).status().IsInvalid());
  EXPECT_TRUE(table->CreateSavepoint("20000101000000000").status().IsInvalid());
  // Archival keeps the savepointed commit and everything after it.
  ArchiveOptions archive;
  archive.keep_min_commits = 1;
  archive.keep_max_commits = 2;
  ASSERT_OK_AND_ASSIGN(auto moved, table->Archive(archive));
  EXPECT_EQ(moved.archived_instants, (std::vector<std::string>{instants[0], instants[1]}));
  // Once deleted, it holds nothing back.
  ASSERT_OK(table->DeleteSavepoint(instants[2]));
  EXPECT_TRUE(table->Savepoints()->empty());
  EXPECT_TRUE(table->DeleteSavepoint(instants[2]).IsInvalid());
  ASSERT_OK_AND_ASSIGN(moved, table->Archive(archive));
  EXPECT_EQ(moved.archived_instants.size(), 5u);
  EXPECT_EQ(ReadPeople(*table).size(), 8u);
  ReadOptions at;
  at.as_of = instants[2];
  EXPECT_EQ(ReadPeople(*table, at).size(), 3u);
}

}  // namespace
}  // namespace lakeshore
