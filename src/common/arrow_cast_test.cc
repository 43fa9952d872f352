#include "common/arrow_cast.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include "lakeshore/storage/storage.h"
#include "lakeshore/table/table.h"
#include "testing/table_test_util.h"

namespace lakeshore {
namespace {

/// A string array whose offsets buffer is shorter than its length says: what a producer
/// outside pyarrow may hand in through the Arrow C interface.
std::shared_ptr<arrow::Array> ShortOffsets() {
  auto offsets = arrow::Buffer::FromString(std::string(8, '\0'));  // 2 offsets for 3 values
  auto data = arrow::ArrayData::Make(arrow::utf8(), 3, {nullptr, offsets, arrow::Buffer::FromString("abc")}, 0);
  return arrow::MakeArray(data);
}

TEST(ArrowCast, MalformedInputIsAnErrorNamingTheData) {
  auto schema = arrow::schema({arrow::field("v", arrow::utf8())});
  auto batch = arrow::RecordBatch::Make(schema, 3, {ShortOffsets()});
  auto reader = *arrow::RecordBatchReader::Make({batch}, schema);
  auto read = ReadValidated(reader, "the records to write");
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(read.status().IsInvalid()) << read.status();
  EXPECT_NE(read.status().message().find("the records to write are malformed"), std::string::npos) << read.status();
}

TEST(ArrowCast, AWriteOfMalformedRecordsFailsCleanlyAndWritesNothing) {
  const std::string uri = "mem://arrow_cast_malformed";
  ASSERT_TRUE(Table::Create(uri, testing::PeopleConfig()).ok());
  auto table = *Table::Open(uri);
  auto good = testing::PeopleReader({{1, "a", 1, "x"}});
  auto rows = *good->ToTable();
  // The name column replaced by one whose offsets are short.
  const int name = rows->schema()->GetFieldIndex("name");
  ASSERT_GE(name, 0);
  // One row needs two offsets; the buffer holds one.
  auto data = arrow::ArrayData::Make(arrow::utf8(), 1,
                                     {nullptr, arrow::Buffer::FromString(std::string(4, '\0')),
                                      arrow::Buffer::FromString("a")},
                                     0);
  auto column = std::make_shared<arrow::ChunkedArray>(arrow::MakeArray(data));
  auto damaged = *rows->SetColumn(name, rows->schema()->field(name), column);
  auto written = table->Write(WriteOperation::kUpsert, std::make_shared<arrow::TableBatchReader>(damaged));
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.status().message().find("malformed"), std::string::npos) << written.status();
  auto files = table->Files();
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_TRUE(files->empty());
}

}  // namespace
}  // namespace lakeshore
