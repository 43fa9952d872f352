#include "io/base_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include <arrow/api.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>

#include "table/meta_columns.h"
#include "testing/status_test_util.h"

namespace lakeshore {
namespace {

/// Hudi's five meta columns for `keys` (commit time, seqno, key, partition, file name) as a
/// writer builds them (dictionary arrays for the near-constant ones), then `user` columns.
std::shared_ptr<arrow::Table> WithMeta(const std::vector<std::string>& keys, const std::string& partition,
                                       std::vector<std::shared_ptr<arrow::Field>> user_fields,
                                       std::vector<std::shared_ptr<arrow::Array>> user) {
  arrow::StringBuilder kb;
  for (const auto& k : keys) (void)kb.Append(k);
  auto n = static_cast<int64_t>(keys.size());
  std::vector<std::shared_ptr<arrow::Array>> columns = {
      *meta_columns::MakeConstantColumn("20260101000000000", n),
      *meta_columns::MakeSeqnoColumn("20260101000000000", "0", 0, n), *kb.Finish(),
      *meta_columns::MakeConstantColumn(partition, n), *meta_columns::MakeConstantColumn("f.parquet", n)};
  std::vector<std::shared_ptr<arrow::Field>> fields;
  for (const auto& c : columns) fields.push_back(arrow::field("x", c->type()));
  const char* names[] = {meta_columns::kCommitTime, meta_columns::kCommitSeqno, meta_columns::kRecordKey,
                         meta_columns::kPartition, meta_columns::kFileName};
  for (int i = 0; i < 5; ++i) fields[static_cast<size_t>(i)] = arrow::field(names[i], columns[static_cast<size_t>(i)]->type());
  for (auto& f : user_fields) fields.push_back(f);
  for (auto& c : user) columns.push_back(c);
  return arrow::Table::Make(arrow::schema(fields), columns);
}

/// `table` as a reader sees it: dictionary meta columns come back as utf8.
std::shared_ptr<arrow::Table> AsRead(const std::shared_ptr<arrow::Table>& table) {
  std::vector<std::shared_ptr<arrow::Field>> fields;
  for (const auto& f : table->schema()->fields()) {
    fields.push_back(f->type()->id() == arrow::Type::DICTIONARY ? arrow::field(f->name(), arrow::utf8()) : f);
  }
  auto conformed = ConformToSchema(table, arrow::schema(fields), "test");
  return conformed.ok() ? *conformed : nullptr;
}

std::shared_ptr<arrow::Table> Rows(const std::vector<std::string>& keys) {
  arrow::Int64Builder vb;
  for (size_t i = 0; i < keys.size(); ++i) (void)vb.Append(static_cast<int64_t>(i));
  return WithMeta(keys, "p=1", {arrow::field("v", arrow::int64())}, {*vb.Finish()});
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
  EXPECT_TRUE(back->Equals(*AsRead(rows))) << back->ToString();
  // Hudi's footer: key range, bloom filter, Avro schema.
  ASSERT_OK_AND_ASSIGN(auto input, storage->OpenInputFile("p=1/f.parquet"));
  auto kv = parquet::ParquetFileReader::Open(input)->metadata()->key_value_metadata();
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->Get("hoodie_min_record_key").ValueOr(""), "a1");
  EXPECT_EQ(kv->Get("hoodie_max_record_key").ValueOr(""), "zz");
  EXPECT_EQ(kv->Get("hoodie_bloom_filter_type_code").ValueOr(""), "DYNAMIC_V0");
  EXPECT_TRUE(kv->Contains("org.apache.hudi.bloomfilter"));
  EXPECT_FALSE(kv->Contains("ARROW:schema"));
  ASSERT_OK_AND_ASSIGN(auto keys, ReadBaseFile(*storage, "p=1/f.parquet", {"v", meta_columns::kRecordKey}));
  EXPECT_EQ(keys->schema()->field(0)->name(), "v");
  EXPECT_EQ(keys->num_columns(), 2);
}

// The footer's key range compares keys by their first eight bytes as one integer, and by all
// their bytes only on a tie: keys that tie there (shared prefixes, keys shorter than eight
// bytes, a trailing NUL, bytes above 0x7f) must still give the byte-order least and greatest.
TEST(BaseFile, KeyRangeIsByteOrderWhereEightBytePrefixesTie) {
  auto storage = *Storage::Open("mem://base_file_test_key_range");
  const std::vector<std::vector<std::string>> cases = {
      {"abcdefgh2", "abcdefgh10", "abcdefgh", "abcdefgh1"},
      {"ab", std::string("ab\0", 3), "a", "ab\x01"},
      {"\xc3\xa9t\xc3\xa9", "zzzz", "\x7f", "\xff"},
      {"k-00000000009", "k-00000000010", "k-00000000001"},
      {"same"}};
  for (const auto& keys : cases) {
    ASSERT_OK_AND_ASSIGN(auto result, WriteBaseFile(*storage, "p=1/r.parquet", *Rows(keys), ParquetWriteSettings{}));
    EXPECT_EQ(result.min_record_key, *std::min_element(keys.begin(), keys.end()));
    EXPECT_EQ(result.max_record_key, *std::max_element(keys.begin(), keys.end()));
  }
}

// Hudi's Java readers prune files by the footer's key range compared as Java Strings (UTF-16
// code units), where a character of U+E000–U+FFFF sorts after an emoji (a surrogate pair);
// in byte order it sorts before. The footer states the Java range (a Spark upsert of "\uFFFD"
// would otherwise skip this file and store the key twice); the write result, which Lakeshore's
// own byte-order pruning uses, keeps the byte range.
TEST(BaseFile, FooterKeyRangeIsInJavaStringOrder) {
  auto storage = *Storage::Open("mem://base_file_test_java_range");
  const std::string emoji = "\xf0\x9f\x98\x80", private_use = "\xee\x80\x80", replacement = "\xef\xbf\xbd";
  auto rows = Rows({"k" + private_use, "k" + emoji, "k" + replacement, "k", "k" + emoji + "x"});
  ASSERT_OK_AND_ASSIGN(auto result, WriteBaseFile(*storage, "p=1/j.parquet", *rows, ParquetWriteSettings{}));
  EXPECT_EQ(result.min_record_key, "k");
  EXPECT_EQ(result.max_record_key, "k" + emoji + "x");
  ASSERT_OK_AND_ASSIGN(auto input, storage->OpenInputFile("p=1/j.parquet"));
  auto kv = parquet::ParquetFileReader::Open(input)->metadata()->key_value_metadata();
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->Get("hoodie_min_record_key").ValueOr(""), "k");
  EXPECT_EQ(kv->Get("hoodie_max_record_key").ValueOr(""), "k" + replacement);
}

// With several files written at once, a file's pages stream to storage as they are encoded and
// its filter hashes on one thread: the file holds the same rows and the same Hudi footer.
TEST(BaseFile, StreamedWriteEqualsTheParallelOne) {
  auto storage = *Storage::Open("mem://base_file_test_streamed");
  std::vector<std::string> keys;
  for (int i = 0; i < 30000; ++i) keys.push_back("key-" + std::to_string((i * 7919) % 30000));
  auto rows = Rows(keys);
  ParquetWriteSettings parallel;
  parallel.row_group_rows = 10000;
  ParquetWriteSettings streamed = parallel;
  streamed.parallel_within_file = false;
  ASSERT_OK_AND_ASSIGN(auto a, WriteBaseFile(*storage, "p=1/a.parquet", *rows, parallel));
  ASSERT_OK_AND_ASSIGN(auto b, WriteBaseFile(*storage, "p=1/b.parquet", *rows, streamed));
  EXPECT_EQ(a.min_record_key, b.min_record_key);
  EXPECT_EQ(a.max_record_key, b.max_record_key);
  ASSERT_OK_AND_ASSIGN(auto back_a, ReadBaseFile(*storage, "p=1/a.parquet"));
  ASSERT_OK_AND_ASSIGN(auto back_b, ReadBaseFile(*storage, "p=1/b.parquet"));
  EXPECT_TRUE(back_b->Equals(*AsRead(rows)));
  EXPECT_TRUE(back_b->Equals(*back_a));
  auto footer = [&](const std::string& path) {
    auto input = *storage->OpenInputFile(path);
    auto metadata = parquet::ParquetFileReader::Open(input)->metadata();
    EXPECT_EQ(metadata->num_row_groups(), 3);
    return metadata->key_value_metadata();
  };
  auto kv_a = footer("p=1/a.parquet"), kv_b = footer("p=1/b.parquet");
  for (const char* key : {"hoodie_min_record_key", "hoodie_max_record_key", "org.apache.hudi.bloomfilter",
                          "hoodie_bloom_filter_type_code"}) {
    EXPECT_EQ(kv_a->Get(key).ValueOr("a"), kv_b->Get(key).ValueOr("b")) << key;
  }
}

// A file's work is spread over the cores only while fewer files are written at once than there
// are cores: the files written at once are the fewer of the files and the engine's workers.
TEST(BaseFile, FilesAtOnceDecideParallelWithinAFile) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const ParquetWriteSettings table;
  EXPECT_EQ(ForFilesAtOnce(table, 1, 8).parallel_within_file, cores > 1);
  EXPECT_EQ(ForFilesAtOnce(table, 0, 8).parallel_within_file, cores > 1);
  EXPECT_FALSE(ForFilesAtOnce(table, cores, cores).parallel_within_file);
  EXPECT_FALSE(ForFilesAtOnce(table, 100, cores + 4).parallel_within_file);
  EXPECT_EQ(ForFilesAtOnce(table, 100, 1).parallel_within_file, cores > 1);  // one worker: one file at a time
  ParquetWriteSettings zstd;
  zstd.compression = "zstd";
  EXPECT_EQ(ForFilesAtOnce(zstd, 100, cores).compression, "zstd");
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
  (void)kb;
  auto rows = WithMeta(keys, "", {arrow::field("v", arrow::int64()), arrow::field("c", arrow::utf8())},
                       {*vb.Finish(), *cb.Finish()});
  ASSERT_OK(WriteBaseFile(*storage, "f.parquet", *rows, ParquetWriteSettings{}).status());
  ASSERT_OK_AND_ASSIGN(auto input, storage->OpenInputFile("f.parquet"));
  auto meta = parquet::ParquetFileReader::Open(input)->metadata();
  auto has_dictionary = [&](int column) { return meta->RowGroup(0)->ColumnChunk(column)->has_dictionary_page(); };
  EXPECT_TRUE(has_dictionary(0));   // commit time
  EXPECT_FALSE(has_dictionary(2));  // record key
  EXPECT_FALSE(has_dictionary(5));  // v: unique
  EXPECT_TRUE(has_dictionary(6));   // c: three values
  ASSERT_OK_AND_ASSIGN(auto back, ReadBaseFile(*storage, "f.parquet"));
  EXPECT_TRUE(back->Equals(*AsRead(rows)));
}

TEST(BaseFile, DictionaryOnlyColumnsReadAsTheirValues) {
  // Dictionary-only string and binary columns are read as dictionaries and expanded: each row
  // group has its own dictionary, and nulls keep their places.
  auto storage = *Storage::Open("mem://base_file_test_dictionary_read");
  std::vector<std::string> keys;
  arrow::StringBuilder cb;
  arrow::BinaryBuilder bb;
  for (int i = 0; i < 12; ++i) {
    keys.push_back("k" + std::to_string(i));
    if (i % 5 == 3) {
      ASSERT_OK(cb.AppendNull());
    } else {
      ASSERT_OK(cb.Append("group" + std::to_string(i / 4) + (i % 2 ? "-odd" : "-even")));
    }
    ASSERT_OK(bb.Append(std::string(i % 2 ? "\x01\x02" : "\xff", i % 2 ? 2 : 1)));
  }
  auto rows = WithMeta(keys, "p=1", {arrow::field("c", arrow::utf8()), arrow::field("b", arrow::binary())},
                       {*cb.Finish(), *bb.Finish()});
  ParquetWriteSettings settings;
  settings.row_group_rows = 4;
  ASSERT_OK(WriteBaseFile(*storage, "p=1/f.parquet", *rows, settings).status());
  ASSERT_OK_AND_ASSIGN(auto back, ReadBaseFile(*storage, "p=1/f.parquet"));
  EXPECT_TRUE(back->Equals(*AsRead(rows))) << back->ToString();
  ASSERT_OK_AND_ASSIGN(auto some, ReadBaseFile(*storage, "p=1/f.parquet", {"c", meta_columns::kFileName}));
  EXPECT_EQ(some->schema()->field(0)->type()->id(), arrow::Type::STRING);
  EXPECT_EQ(some->schema()->field(1)->type()->id(), arrow::Type::STRING);
  EXPECT_TRUE(some->column(0)->Equals(*back->GetColumnByName("c")));
  EXPECT_TRUE(some->column(1)->Equals(*back->GetColumnByName(meta_columns::kFileName)));
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
