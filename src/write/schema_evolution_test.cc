#include "write/schema_evolution.h"

#include <gtest/gtest.h>

namespace lakeshore {
namespace {

TEST(SchemaEvolution, WideningsAndTheirLimits) {
  EXPECT_TRUE(IsWidening(*arrow::int8(), *arrow::int64()));
  EXPECT_TRUE(IsWidening(*arrow::int32(), *arrow::int64()));
  EXPECT_TRUE(IsWidening(*arrow::float32(), *arrow::float64()));
  EXPECT_TRUE(IsWidening(*arrow::utf8(), *arrow::utf8()));
  EXPECT_FALSE(IsWidening(*arrow::int64(), *arrow::int32()));
  EXPECT_FALSE(IsWidening(*arrow::float64(), *arrow::float32()));
  EXPECT_FALSE(IsWidening(*arrow::int32(), *arrow::utf8()));
  EXPECT_FALSE(IsWidening(*arrow::int32(), *arrow::float64()));  // not allowed by this build
  auto current = arrow::schema({arrow::field("id", arrow::int64(), false), arrow::field("n", arrow::int32())});
  EXPECT_TRUE(CheckSchemaEvolution(*current, *arrow::schema({arrow::field("x", arrow::utf8()),
                                                             arrow::field("n", arrow::int64()),
                                                             arrow::field("id", arrow::int64(), false)}))
                  .ok());
  auto nullable_id = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("n", arrow::int32())});
  EXPECT_TRUE(CheckSchemaEvolution(*current, *nullable_id).ok());  // a column may become nullable
  auto dropped = arrow::schema({arrow::field("id", arrow::int64(), false)});
  auto st = CheckSchemaEvolution(*current, *dropped);
  EXPECT_TRUE(IsError(st, ErrorKind::kSchemaMismatch)) << st;
  EXPECT_NE(st.message().find("'n'"), std::string::npos);
  auto required = arrow::schema({arrow::field("id", arrow::int64(), false), arrow::field("n", arrow::int32()),
                                 arrow::field("r", arrow::utf8(), false)});
  EXPECT_TRUE(IsError(CheckSchemaEvolution(*current, *required), ErrorKind::kSchemaMismatch));
  auto tightened = arrow::schema({arrow::field("id", arrow::int64(), false), arrow::field("n", arrow::int32(), false)});
  EXPECT_TRUE(IsError(CheckSchemaEvolution(*current, *tightened), ErrorKind::kSchemaMismatch));
}

}  // namespace
}  // namespace lakeshore
