#include "table/partition_path.h"

#include <gtest/gtest.h>

#include <arrow/api.h>

#include "testing/status_test_util.h"

namespace lakeshore {
namespace {

TEST(PartitionPath, EscapesAndParsesLikeHive) {
  EXPECT_EQ(EscapePartitionValue("a/b=c%d:e"), "a%2Fb%3Dc%25d%3Ae");
  ASSERT_OK_AND_ASSIGN(auto back, UnescapePartitionValue("a%2Fb%3Dc%25d%3Ae"));
  EXPECT_EQ(back, "a/b=c%d:e");
  EXPECT_FALSE(UnescapePartitionValue("bad%2").ok());
  const PartitionStyle hive{true, true};
  ASSERT_OK_AND_ASSIGN(auto parsed, ParsePartitionPath("country=US/day=2026-01-01", {"country", "day"}, hive));
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed[1].second, "2026-01-01");
  EXPECT_FALSE(ParsePartitionPath("noequals", {"a"}, hive).ok());
  // Plain paths (Spark's non-hive-style tables) take the fields in order; raw values stay raw.
  ASSERT_OK_AND_ASSIGN(auto plain, ParsePartitionPath("US/50%", {"country", "share"}, PartitionStyle{false, false}));
  EXPECT_EQ(plain[0].first, "country");
  EXPECT_EQ(plain[1].second, "50%");
  EXPECT_FALSE(ParsePartitionPath("a/b/c", {"x", "y"}, PartitionStyle{false, false}).ok());
}

TEST(PartitionPath, AssignsDistinctTuplesAcrossChunksWithNulls) {
  arrow::StringBuilder a1, a2;
  arrow::Int32Builder b1, b2;
  ASSERT_OK(a1.AppendValues({"x", "y/z"}));
  ASSERT_OK(b1.AppendValues({1, 2}));
  ASSERT_OK(a2.Append("x"));
  ASSERT_OK(a2.AppendNull());
  ASSERT_OK(b2.AppendValues({1, 2}));
  auto schema = arrow::schema({arrow::field("a", arrow::utf8()), arrow::field("b", arrow::int32())});
  auto t1 = arrow::Table::Make(schema, {*a1.Finish(), *b1.Finish()});
  auto t2 = arrow::Table::Make(schema, {*a2.Finish(), *b2.Finish()});
  ASSERT_OK_AND_ASSIGN(auto table, arrow::ConcatenateTables({t1, t2}));
  ASSERT_OK_AND_ASSIGN(auto parts, ComputePartitions(*table, {"a", "b"}, PartitionStyle{}));
  ASSERT_EQ(parts.id_of_row.size(), 4u);
  EXPECT_EQ(parts.PathOf(0), "a=x/b=1");
  EXPECT_EQ(parts.PathOf(1), "a=y%2Fz/b=2");
  EXPECT_EQ(parts.PathOf(2), "a=x/b=1");
  EXPECT_EQ(parts.id_of_row[0], parts.id_of_row[2]);
  EXPECT_EQ(parts.PathOf(3), std::string("a=") + kNullPartitionValue + "/b=2");
  EXPECT_EQ(parts.paths.size(), 3u);

  ASSERT_OK_AND_ASSIGN(auto none, ComputePartitions(*table, {}, PartitionStyle{}));
  EXPECT_EQ(none.paths, std::vector<std::string>{""});
  EXPECT_EQ(none.PathOf(3), "");
  // Plain, not url-encoded: values as they are, and a '/' (another folder level) refused.
  ASSERT_OK_AND_ASSIGN(auto raw, ComputePartitions(*t2, {"a", "b"}, PartitionStyle{false, false}));
  EXPECT_EQ(raw.PathOf(0), "x/1");
  EXPECT_EQ(raw.PathOf(1), std::string(kNullPartitionValue) + "/2");
  EXPECT_TRUE(IsError(ComputePartitions(*t1, {"a"}, PartitionStyle{false, false}).status(), ErrorKind::kSchemaMismatch));
}

TEST(PartitionPath, ManyFieldsNeverShareAFolderBetweenDistinctTuples) {
  // 33 fields of three values each: one mixed-radix number of every field's code (4^33) wrapped
  // past 64 bits, and a row whose first field was "b" went to another row's folder "c0=a/...".
  const std::vector<std::string> first = {"a", "b", "c", "c"}, rest = {"x", "x", "y", "z"};
  std::vector<std::shared_ptr<arrow::Field>> fields;
  std::vector<std::shared_ptr<arrow::Array>> arrays;
  std::vector<std::string> names;
  for (int f = 0; f < 33; ++f) {
    names.push_back("c" + std::to_string(f));
    fields.push_back(arrow::field(names.back(), arrow::utf8()));
    arrow::StringBuilder b;
    ASSERT_OK(b.AppendValues(f == 0 ? first : rest));
    ASSERT_OK_AND_ASSIGN(auto array, b.Finish());
    arrays.push_back(array);
  }
  auto table = arrow::Table::Make(arrow::schema(fields), arrays);
  ASSERT_OK_AND_ASSIGN(auto parts, ComputePartitions(*table, names, PartitionStyle{}));
  ASSERT_EQ(parts.paths.size(), 4u);
  for (int64_t r = 0; r < 4; ++r) {
    std::string expected = "c0=" + first[static_cast<size_t>(r)];
    for (int f = 1; f < 33; ++f) expected += "/c" + std::to_string(f) + "=" + rest[static_cast<size_t>(r)];
    EXPECT_EQ(parts.PathOf(r), expected) << r;
  }
}

TEST(PartitionPath, AnEmptyValueSharesTheNullFolderAsHudisKeyGeneratorsLayItOut) {
  // KeyGenUtils: a null or empty partition value goes to __HIVE_DEFAULT_PARTITION__; two rows
  // with "" and null are in one partition (one path id), in every style.
  arrow::StringBuilder a;
  ASSERT_OK(a.AppendValues({"", "x"}));
  ASSERT_OK(a.AppendNull());
  ASSERT_OK(a.Append(""));
  auto schema = arrow::schema({arrow::field("a", arrow::utf8())});
  auto table = arrow::Table::Make(schema, {*a.Finish()});
  for (auto style : {PartitionStyle{}, PartitionStyle{false, false}, PartitionStyle{true, false}}) {
    ASSERT_OK_AND_ASSIGN(auto parts, ComputePartitions(*table, {"a"}, style));
    const std::string def = std::string(style.hive_style ? "a=" : "") + kNullPartitionValue;
    EXPECT_EQ(parts.PathOf(0), def);
    EXPECT_EQ(parts.PathOf(2), def);
    EXPECT_EQ(parts.id_of_row[0], parts.id_of_row[2]);
    EXPECT_EQ(parts.id_of_row[0], parts.id_of_row[3]);
    EXPECT_EQ(parts.paths.size(), 2u);
  }
}

}  // namespace
}  // namespace lakeshore
