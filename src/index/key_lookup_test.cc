#include "index/key_lookup.h"

#include <string>

#include <gtest/gtest.h>

namespace lakeshore {
namespace {

TEST(KeyLookup, FindsEveryIndexedKeyAndNothingElse) {
  std::vector<std::string> owned;
  for (int i = 0; i < 5000; ++i) owned.push_back("key-" + std::to_string(i * 7));
  owned.push_back("");  // the empty key is a key too
  std::vector<std::string_view> keys(owned.begin(), owned.end());
  std::vector<int64_t> rows;
  for (size_t r = 0; r < keys.size(); r += 2) rows.push_back(static_cast<int64_t>(r));  // every other one
  KeyLookup lookup(keys, rows);
  for (size_t r = 0; r < keys.size(); ++r) {
    EXPECT_EQ(lookup.Find(keys[r]), r % 2 == 0 ? static_cast<int64_t>(r) : -1) << keys[r];
  }
  EXPECT_EQ(lookup.Find("key-1"), -1);
  std::vector<int64_t> many(keys.size());
  lookup.FindMany(keys.data(), keys.size(), many.data());
  for (size_t r = 0; r < keys.size(); ++r) EXPECT_EQ(many[r], lookup.Find(keys[r]));
  EXPECT_EQ(lookup.Find("key-00"), -1);
}

TEST(KeyLookup, ARepeatedKeyKeepsItsFirstRow) {
  std::vector<std::string_view> keys = {"a", "b", "a"};
  KeyLookup lookup(keys, {0, 1, 2});
  EXPECT_EQ(lookup.Find("a"), 0);
  EXPECT_EQ(lookup.Find("b"), 1);
  KeyLookup empty(keys, {});
  EXPECT_EQ(empty.Find("a"), -1);
}

}  // namespace
}  // namespace lakeshore
