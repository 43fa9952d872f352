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
  EXPECT_EQ(Keys(*t, {"name"}), (std::vector<std::string>{"a", "b,c", "", "z"}));
  // A ',' in a composite key's value is refused: ('x,k2:y', 'z') and ('x', 'y,k2:z') would
  // both render "k1:x,k2:y,k2:z" and merge.
  auto ambiguous = ComputeRecordKeys(*t, {"id", "name"}, /*complex_encoding=*/true);
  EXPECT_TRUE(IsError(ambiguous.status(), ErrorKind::kSchemaMismatch));
  EXPECT_NE(ambiguous.status().message().find("'b,c' (row 1)"), std::string::npos) << ambiguous.status();
  arrow::StringBuilder clean;
  ASSERT_OK(clean.AppendValues({"a", "b:c", "", "z"}));
  auto t2 = arrow::Table::Make(schema, {t->column(0)->chunk(0), *clean.Finish()});
  EXPECT_EQ(Keys(*t2, {"id", "name"}),
            (std::vector<std::string>{"id:0,name:a", "id:-7,name:b:c", "id:-9223372036854775808,name:", "id:42,name:z"}));
  // One key field with several partition fields uses the complex encoding too.
  auto single = ComputeRecordKeys(*t2, {"id"}, /*complex_encoding=*/true);
  ASSERT_TRUE(single.ok());
  EXPECT_EQ(StringViews(**single)[1], "id:-7");
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
