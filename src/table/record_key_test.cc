#include "table/record_key.h"

#include <limits>

#include <gtest/gtest.h>

#include <arrow/api.h>

#include "testing/status_test_util.h"

namespace lakeshore {
namespace {

std::vector<std::string> Keys(const arrow::Table& t, const std::vector<std::string>& fields) {
  auto keys = ComputeRecordKeys(t, fields, /*complex_encoding=*/fields.size() > 1);
  EXPECT_TRUE(keys.ok()) << keys.status();
  std::vector<std::string> out;
  for (auto v : StringViews(**keys)) out.emplace_back(v);
  return out;
}

TEST(RecordKey, RendersIntegersStringsAndCompositeKeys) {
  arrow::Int64Builder ids;
  ASSERT_OK(ids.AppendValues({0, -7, std::numeric_limits<int64_t>::min(), 42}));
  arrow::StringBuilder names;
  ASSERT_OK(names.AppendValues({"a", "b,c", "", "z"}));
  auto schema = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("name", arrow::utf8())});
  auto t = arrow::Table::Make(schema, {*ids.Finish(), *names.Finish()});
  EXPECT_EQ(Keys(*t, {"id"}), (std::vector<std::string>{"0", "-7", "-9223372036854775808", "42"}));
  // An empty plain key is refused, as Hudi's SIMPLE key generator refuses it.
  auto empty_plain = ComputeRecordKeys(*t, {"name"}, /*complex_encoding=*/false);
  EXPECT_TRUE(IsError(empty_plain.status(), ErrorKind::kSchemaMismatch));
  EXPECT_NE(empty_plain.status().message().find("'name' is empty in row 2"), std::string::npos) << empty_plain.status();
  // A ',' in a composite key's value is refused: ('x,k2:y', 'z') and ('x', 'y,k2:z') would
  // both render "k1:x,k2:y,k2:z" and merge.
  auto ambiguous = ComputeRecordKeys(*t, {"id", "name"}, /*complex_encoding=*/true);
  EXPECT_TRUE(IsError(ambiguous.status(), ErrorKind::kSchemaMismatch));
  EXPECT_NE(ambiguous.status().message().find("'b,c' (row 1)"), std::string::npos) << ambiguous.status();
  arrow::StringBuilder clean;
  ASSERT_OK(clean.AppendValues({"a", "b:c", "", "z"}));
  auto t2 = arrow::Table::Make(schema, {t->column(0)->chunk(0), *clean.Finish()});
  EXPECT_EQ(Keys(*t2, {"id", "name"}),
            (std::vector<std::string>{"id:0,name:a", "id:-7,name:b:c", "id:-9223372036854775808,name:__empty__",
                                      "id:42,name:z"}));
  // One key field with several partition fields uses the complex encoding too.
  auto single = ComputeRecordKeys(*t2, {"id"}, /*complex_encoding=*/true);
  ASSERT_TRUE(single.ok());
  EXPECT_EQ(StringViews(**single)[1], "id:-7");
}

TEST(RecordKey, EmptyValuesOfCompositeKeysAreWrittenAsHudisKeyGeneratorsWriteThem) {
  // KeyGenUtils: an empty value is `__empty__`; a key empty in every field is refused; a value
  // spelled like a placeholder would be ambiguous with a null or empty one and is refused.
  arrow::StringBuilder a, b;
  ASSERT_OK(a.AppendValues({"", "x", ""}));
  ASSERT_OK(b.AppendValues({"y", "", "z"}));
  auto schema = arrow::schema({arrow::field("a", arrow::utf8()), arrow::field("b", arrow::utf8())});
  auto t = arrow::Table::Make(schema, {*a.Finish(), *b.Finish()});
  EXPECT_EQ(Keys(*t, {"a", "b"}), (std::vector<std::string>{"a:__empty__,b:y", "a:x,b:__empty__", "a:__empty__,b:z"}));
  arrow::StringBuilder c, d;
  ASSERT_OK(c.AppendValues({"x", ""}));
  ASSERT_OK(d.AppendValues({"y", ""}));
  auto all_empty = ComputeRecordKeys(*arrow::Table::Make(schema, {*c.Finish(), *d.Finish()}), {"a", "b"}, true);
  EXPECT_TRUE(IsError(all_empty.status(), ErrorKind::kSchemaMismatch));
  EXPECT_NE(all_empty.status().message().find("all null or empty in row 1"), std::string::npos) << all_empty.status();
  // A null value of a composite key is Hudi's __null__ (integers too); a key null or empty in
  // every field is refused.
  arrow::Int64Builder g;
  arrow::StringBuilder h;
  ASSERT_OK(g.AppendValues({7, 0}));
  ASSERT_OK(g.AppendNull());
  ASSERT_OK(g.AppendNull());
  ASSERT_OK(h.AppendNull());
  ASSERT_OK(h.AppendValues({"", "w"}));
  ASSERT_OK(h.AppendNull());
  auto mixed_schema = arrow::schema({arrow::field("n", arrow::int64()), arrow::field("s", arrow::utf8())});
  auto mixed = arrow::Table::Make(mixed_schema, {*g.Finish(), *h.Finish()});
  auto sliced = mixed->Slice(0, 3);
  EXPECT_EQ(Keys(*sliced, {"n", "s"}), (std::vector<std::string>{"n:7,s:__null__", "n:0,s:__empty__", "n:__null__,s:w"}));
  auto all_null = ComputeRecordKeys(*mixed, {"n", "s"}, true);
  EXPECT_TRUE(IsError(all_null.status(), ErrorKind::kSchemaMismatch));
  EXPECT_NE(all_null.status().message().find("all null or empty in row 3"), std::string::npos) << all_null.status();
  for (const char* spelled : {"__empty__", "__null__"}) {
    arrow::StringBuilder e, f;
    ASSERT_OK(e.AppendValues({"x", spelled}));
    ASSERT_OK(f.AppendValues({"y", "z"}));
    auto odd = ComputeRecordKeys(*arrow::Table::Make(schema, {*e.Finish(), *f.Finish()}), {"a", "b"}, true);
    EXPECT_TRUE(IsError(odd.status(), ErrorKind::kSchemaMismatch)) << spelled;
    EXPECT_NE(odd.status().message().find("(row 1)"), std::string::npos) << odd.status();
  }
}

TEST(RecordKey, NullKeyNamesFieldAndRow) {
  arrow::Int32Builder ids;
  ASSERT_OK(ids.Append(1));
  ASSERT_OK(ids.AppendNull());
  auto t = arrow::Table::Make(arrow::schema({arrow::field("id", arrow::int32())}), {*ids.Finish()});
  auto st = ComputeRecordKeys(*t, {"id"}, false).status();
  EXPECT_TRUE(st.IsInvalid());
  EXPECT_NE(st.message().find("'id' is null in row 1"), std::string::npos) << st;
  EXPECT_TRUE(IsError(ComputeRecordKeys(*t, {"nope"}, false).status(), ErrorKind::kSchemaMismatch));
}

}  // namespace
}  // namespace lakeshore
