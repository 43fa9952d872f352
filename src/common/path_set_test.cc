#include "common/path_set.h"

#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace lakeshore {
namespace {

TEST(PathSet, AnswersAsAnOrderedSetDoesOverRandomPaths) {
  // Paths of every length from empty to longer than a whole block of kept text, many sharing
  // prefixes, some repeated, some differing in one byte (NUL included), across many rehashes.
  std::mt19937_64 rng(7);
  std::vector<std::string> pool;
  for (int i = 0; i < 3000; ++i) {
    std::string p = "p=" + std::to_string(rng() % 50) + "/part-" + std::to_string(rng() % 2000);
    if (i % 7 == 0) p.append(rng() % 300, 'x');
    if (i % 11 == 0) p.push_back('\0');
    pool.push_back(std::move(p));
  }
  pool.push_back("");
  pool.push_back(std::string(200 * 1024, 'y'));  // beyond one 64 KiB block
  pool.push_back(std::string(200 * 1024, 'y') + "z");
  PathSet set;
  std::set<std::string> model;
  for (int step = 0; step < 6000; ++step) {
    const std::string& p = pool[rng() % pool.size()];
    ASSERT_EQ(set.insert(p), model.insert(p).second) << step;
    ASSERT_EQ(set.size(), model.size());
  }
  for (const auto& p : pool) {
    EXPECT_EQ(set.contains(p), model.count(p) == 1);
    EXPECT_EQ(set.count(p), model.count(p));
    std::string other = p + "!";
    EXPECT_EQ(set.contains(other), model.count(other) == 1);
  }
}

TEST(PathSet, KeepsItsOwnCopiesAndMovesWhole) {
  PathSet set;
  set.reserve(4);
  {
    std::string transient = "p=1/a.parquet";
    EXPECT_TRUE(set.insert(transient));
    transient[0] = 'q';  // the set kept a copy
  }
  EXPECT_TRUE(set.contains("p=1/a.parquet"));
  EXPECT_FALSE(set.contains("q=1/a.parquet"));
  EXPECT_FALSE(set.insert("p=1/a.parquet"));
  PathSet moved = std::move(set);
  EXPECT_TRUE(moved.contains("p=1/a.parquet"));
  EXPECT_EQ(moved.size(), 1u);
  // The moved-from set is empty and usable: what it takes now is its own.
  EXPECT_TRUE(set.empty());  // NOLINT(bugprone-use-after-move): documented state
  EXPECT_FALSE(set.contains("p=1/a.parquet"));
  EXPECT_TRUE(set.insert("p=2/b.parquet"));
  EXPECT_FALSE(moved.contains("p=2/b.parquet"));
  // An empty path asked by a view with no data (memcmp must not see the null pointer).
  EXPECT_FALSE(set.contains(std::string_view()));
  EXPECT_TRUE(set.insert(""));
  EXPECT_TRUE(set.contains(std::string_view()));
  const std::vector<std::string> folders = {"a", "a/b", "a"};
  PathSet from_range(folders.begin(), folders.end());
  EXPECT_EQ(from_range.size(), 2u);
  EXPECT_TRUE(from_range.contains("a/b"));
}

}  // namespace
}  // namespace lakeshore
