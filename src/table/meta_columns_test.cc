#include "table/meta_columns.h"

#include <arrow/array.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace lakeshore {
namespace {

// Every value equals the one a plain formatting gives, across digit-count boundaries, and the
// array's buffers are exactly as long as its values.
TEST(MetaColumns, SeqnoColumnAcrossDigitBoundaries) {
  for (int64_t first : {int64_t{0}, int64_t{7}, int64_t{95}, int64_t{999}, int64_t{99990}}) {
    const int64_t n = 1234;
    auto column = meta_columns::MakeSeqnoColumn("20260101000000000", "3", first, n);
    ASSERT_TRUE(column.ok()) << column.status().ToString();
    ASSERT_EQ((*column)->type_id(), arrow::Type::STRING);
    const auto& strings = static_cast<const arrow::StringArray&>(**column);
    ASSERT_EQ(strings.length(), n);
    ASSERT_TRUE(strings.ValidateFull().ok());
    int64_t bytes = 0;
    for (int64_t i = 0; i < n; ++i) {
      const std::string expected = "20260101000000000_3_" + std::to_string(first + i);
      ASSERT_EQ(strings.GetView(i), expected) << "row " << i << " from " << first;
      bytes += static_cast<int64_t>(expected.size());
    }
    EXPECT_EQ(strings.value_data()->size(), bytes);
  }
}

TEST(MetaColumns, SeqnoColumnNearTheLargestRowNumber) {
  const int64_t first = INT64_MAX - 3;
  auto column = meta_columns::MakeSeqnoColumn("1", "0", first, 3);
  ASSERT_TRUE(column.ok()) << column.status().ToString();
  const auto& strings = static_cast<const arrow::StringArray&>(**column);
  EXPECT_EQ(strings.GetView(2), "1_0_" + std::to_string(INT64_MAX - 1));
  EXPECT_FALSE(meta_columns::MakeSeqnoColumn("1", "0", INT64_MAX, 2).ok());
  EXPECT_FALSE(meta_columns::MakeSeqnoColumn("1", "0", -1, 2).ok());
}

TEST(MetaColumns, EmptySeqnoColumn) {
  auto column = meta_columns::MakeSeqnoColumn("1", "0", 0, 0);
  ASSERT_TRUE(column.ok()) << column.status().ToString();
  EXPECT_EQ((*column)->length(), 0);
  EXPECT_TRUE((*column)->ValidateFull().ok());
}

// Constant columns share one process-wide buffer of zero indices, grown to the longest request:
// every length reads back as that many copies of its own value, before and after a longer one.
TEST(MetaColumns, ConstantColumnsOfEveryLength) {
  for (int64_t length : {int64_t{0}, int64_t{3}, int64_t{100000}, int64_t{5}, int64_t{250000}, int64_t{1}}) {
    const std::string value = "v" + std::to_string(length);
    auto column = meta_columns::MakeConstantColumn(value, length);
    ASSERT_TRUE(column.ok()) << column.status().ToString();
    ASSERT_EQ((*column)->length(), length);
    ASSERT_TRUE((*column)->ValidateFull().ok());
    const auto& dict = static_cast<const arrow::DictionaryArray&>(**column);
    const auto& indices = static_cast<const arrow::Int32Array&>(*dict.indices());
    for (int64_t i = 0; i < length; ++i) ASSERT_EQ(indices.Value(i), 0);
    EXPECT_EQ(static_cast<const arrow::StringArray&>(*dict.dictionary()).GetString(0), value);
  }
  EXPECT_FALSE(meta_columns::MakeConstantColumn("x", -1).ok());
}

}  // namespace
}  // namespace lakeshore
