#include "io/base_file.h"

#include <gtest/gtest.h>

#include <arrow/api.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>

#include "table/meta_columns.h"
#include "testing/status_test_util.h"

namespace lakeshore {
namespace {

std::shared_ptr<arrow::Table> Rows(const std::vector<std::string>& keys) {
  arrow::StringBuilder kb;
  arrow::Int64Builder vb;
  for (size_t i = 0; i < keys.size(); ++i) {
    (void)kb.Append(keys[i]);
    (void)vb.Append(static_cast<int64_t>(i));
  }
  auto n = static_cast<int64_t>(keys.size());
  auto schema = meta_columns::WithMetaColumns(*arrow::schema({arrow::field("v", arrow::int64())}));
  return arrow::Table::Make(schema, {*meta_columns::MakeConstantColumn("20260101000000000", n), *kb.Finish(),
                                     *meta_columns::MakeConstantColumn("p=1", n), *vb.Finish()});
}

TEST(BaseFile, RoundTripsAndReportsKeyRangeAcrossRowGroups) {
  auto storage = *Storage::Open("mem://base_file_test");
  auto rows = Rows({"m", "b", "zz", "c", "a1", "q"});
  ParquetWriteSettings settings;
  settings.row_group_rows = 2;  // three row groups: the range must cover all of them
  ASSERT_OK_AND_ASSIGN(auto result, WriteBaseFile(*storage, "p=1/f.parquet", *rows, settings));
  EXPECT_EQ(result.num_records, 6);
  EXPECT_EQ(result.min_record_key, "a1");
  EXPECT_EQ(result.max_record_key, "zz");
  ASSERT_OK_AND_ASSIGN(auto back, ReadBaseFile(*storage, "p=1/f.parquet"));
  EXPECT_TRUE(back->Equals(*rows)) << back->ToString();
  ASSERT_OK_AND_ASSIGN(auto keys, ReadBaseFile(*storage, "p=1/f.parquet", {"v", meta_columns::kRecordKey}));
  EXPECT_EQ(keys->schema()->field(0)->name(), "v");
  EXPECT_EQ(keys->num_columns(), 2);
}

TEST(BaseFile, DictionaryOnlyWhereValuesRepeat) {
  // 20000 rows: "v" is unique (no dictionary attempt), "c" has 3 values (dictionary).
  auto storage = *Storage::Open("mem://base_file_test_dictionary");
  std::vector<std::string> keys;
  arrow::Int64Builder vb;
  arrow::StringBuilder cb;
  for (int i = 0; i < 20000; ++i) {
    keys.push_back("k" + std::to_string(i));
    ASSERT_OK(vb.Append(i));
    ASSERT_OK(cb.Append(i % 3 == 0 ? "red" : (i % 3 == 1 ? "green" : "blue")));
  }
  arrow::StringBuilder kb;
  ASSERT_OK(kb.AppendValues(keys));
  auto schema = meta_columns::WithMetaColumns(
      *arrow::schema({arrow::field("v", arrow::int64()), arrow::field("c", arrow::utf8())}));
  auto rows = arrow::Table::Make(schema, {*meta_columns::MakeConstantColumn("20260101000000000", 20000), *kb.Finish(),
                                          *meta_columns::MakeConstantColumn("", 20000), *vb.Finish(), *cb.Finish()});
  ASSERT_OK(WriteBaseFile(*storage, "f.parquet", *rows, ParquetWriteSettings{}).status());
  ASSERT_OK_AND_ASSIGN(auto input, storage->OpenInputFile("f.parquet"));
  auto meta = parquet::ParquetFileReader::Open(input)->metadata();
  auto has_dictionary = [&](int column) { return meta->RowGroup(0)->ColumnChunk(column)->has_dictionary_page(); };
  EXPECT_TRUE(has_dictionary(0));   // commit time
  EXPECT_FALSE(has_dictionary(1));  // record key
  EXPECT_FALSE(has_dictionary(3));  // v: unique
  EXPECT_TRUE(has_dictionary(4));   // c: three values
  ASSERT_OK_AND_ASSIGN(auto back, ReadBaseFile(*storage, "f.parquet"));
  EXPECT_TRUE(back->Equals(*rows));
}

TEST(BaseFile, GarbageIsCorruptNotACrash) {
  auto storage = *Storage::Open("mem://base_file_test_garbage");
  ASSERT_OK(storage->WriteString("f.parquet", "not parquet at all"));
  auto st = ReadBaseFile(*storage, "f.parquet").status();
  EXPECT_TRUE(IsError(st, ErrorKind::kCorruptMetadata)) << st;
  EXPECT_NE(st.message().find("f.parquet"), std::string::npos);
}

}  // namespace
}  // namespace lakeshore
