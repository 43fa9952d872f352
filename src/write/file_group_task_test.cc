#include "write/file_group_task.h"

#include <algorithm>
#include <filesystem>
#include <random>

#include <arrow/builder.h>
#include <arrow/table.h>
#include <gtest/gtest.h>

#include "table/meta_columns.h"
#include "testing/status_test_util.h"
#include "testing/table_test_util.h"
#include "write/file_group_write.h"

namespace lakeshore {
namespace {

// A task with rows of the people schema, an old base file and every setting off its default.
FileGroupTask SampleTask() {
  auto reader = testing::PeopleReader({{1, "ana", 5, "x"}, {2, "bo", 6, "x"}, {3, "cy", 7, "x"}});
  auto input = PrepareWriteInput(testing::PeopleConfig(), WriteOperation::kUpsert, reader);
  EXPECT_TRUE(input.ok()) << input.status();
  FileGroupTaskSource source{&*input, "20260101000000000", "ts",
                             meta_columns::WithMetaColumns(*testing::PeopleSchema()), ParquetWriteSettings{}};
  source.parquet.compression = "zstd";
  source.parquet.row_group_rows = 1000;
  source.parquet.bloom_filter = false;
  source.parquet.parallel_within_file = false;
  source.parquet.avro_schema = "{\"type\":\"record\"}";
  FileGroupWrite plan;
  plan.partition = "part=x";
  plan.file_id = "f1-0";
  plan.old_base = BaseFile{"part=x/f1-0_0-1-1_20250101000000000.parquet", 1234, 3, "1", "3"};
  plan.prev_base_instant = "20250101000000000";
  plan.upserts = {2, 0};
  plan.deletes = {1};
  plan.new_path = "part=x/f1-0_0-2-2_20260101000000000.parquet";
  plan.task = 7;
  auto task = MakeFileGroupTask(source, plan);
  EXPECT_TRUE(task.ok()) << task.status();
  return *task;
}

TEST(TakeRows, GivesTheRowsInOrderWhateverTheChunksAndRuns) {
  // 1,000 rows in chunks of 7, 64 and 929 rows, of two columns chunked differently.
  std::vector<int64_t> all(1000);
  for (int64_t i = 0; i < 1000; ++i) all[static_cast<size_t>(i)] = i;
  auto chunked = [&](std::vector<int64_t> bounds) {
    arrow::ArrayVector chunks;
    for (size_t k = 0; k + 1 < bounds.size(); ++k) {
      arrow::Int64Builder b;
      for (int64_t i = bounds[k]; i < bounds[k + 1]; ++i) EXPECT_TRUE(b.Append(i * 10).ok());
      chunks.push_back(*b.Finish());
    }
    return std::make_shared<arrow::ChunkedArray>(chunks);
  };
  auto schema = arrow::schema({arrow::field("a", arrow::int64()), arrow::field("b", arrow::int64())});
  auto table = arrow::Table::Make(schema, {chunked({0, 7, 71, 1000}), chunked({0, 500, 1000})});
  std::mt19937 rng(5);
  auto check = [&](const std::vector<int64_t>& indices) {
    ASSERT_OK_AND_ASSIGN(auto taken, TakeRows(table, indices));
    ASSERT_EQ(taken->num_rows(), static_cast<int64_t>(indices.size()));
    for (int c = 0; c < 2; ++c) {
      int64_t at = 0;
      for (const auto& chunk : taken->column(c)->chunks()) {
        const auto& values = static_cast<const arrow::Int64Array&>(*chunk);
        for (int64_t i = 0; i < values.length(); ++i, ++at) {
          ASSERT_EQ(values.Value(i), indices[static_cast<size_t>(at)] * 10) << "column " << c << " row " << at;
        }
      }
    }
  };
  check({});
  check(all);                              // one run: a slice
  check({3, 4, 5, 6, 7, 8});               // a run across chunk bounds
  std::vector<int64_t> long_runs, short_runs, shuffled = all;
  for (int64_t i = 0; i < 1000; ++i) {
    if (i % 250 != 17) long_runs.push_back(i);  // a few holes: slices
    if (rng() % 3 == 0) short_runs.push_back(i);  // many holes: gathered chunk by chunk
  }
  check(long_runs);
  check(short_runs);
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  check(shuffled);  // not ascending: Arrow's take
  check({999, 0, 500});
}

TEST(FileGroupTask, TakesItsOwnRowsAndRoundTripsThroughBytes) {
  FileGroupTask task = SampleTask();
  // The plan is renumbered to the task's own rows: upserts first, then deletes.
  EXPECT_EQ(task.plan.upserts, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(task.plan.deletes, (std::vector<int64_t>{2}));
  EXPECT_EQ(task.rows->num_rows(), 3);
  ASSERT_EQ(task.keys->length(), 3);
  std::vector<std::string> keys;
  for (const auto& chunk : task.keys->chunks()) {
    const auto& strings = static_cast<const arrow::StringArray&>(*chunk);
    for (int64_t i = 0; i < strings.length(); ++i) keys.push_back(std::string(strings.GetView(i)));
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"3", "1", "2"}));
  ASSERT_OK_AND_ASSIGN(auto bytes, SerializeFileGroupTask(task));
  ASSERT_OK_AND_ASSIGN(auto back, ParseFileGroupTask(bytes));
  EXPECT_EQ(back.instant_time, task.instant_time);
  EXPECT_EQ(back.ordering_field, "ts");
  EXPECT_EQ(back.plan.partition, task.plan.partition);
  EXPECT_EQ(back.plan.file_id, task.plan.file_id);
  ASSERT_TRUE(back.plan.old_base.has_value());
  EXPECT_EQ(back.plan.old_base->path, task.plan.old_base->path);
  EXPECT_EQ(back.plan.old_base->size, 1234);
  EXPECT_EQ(back.plan.prev_base_instant, task.plan.prev_base_instant);
  EXPECT_EQ(back.plan.upserts, task.plan.upserts);
  EXPECT_EQ(back.plan.deletes, task.plan.deletes);
  EXPECT_EQ(back.plan.new_path, task.plan.new_path);
  EXPECT_EQ(back.plan.task, 7);
  EXPECT_EQ(back.parquet.compression, "zstd");
  EXPECT_EQ(back.parquet.row_group_rows, 1000);
  EXPECT_FALSE(back.parquet.bloom_filter);
  EXPECT_FALSE(back.parquet.parallel_within_file);
  EXPECT_EQ(back.parquet.avro_schema, task.parquet.avro_schema);
  EXPECT_TRUE(back.full_schema->Equals(*task.full_schema, /*check_metadata=*/true));
  EXPECT_TRUE(back.rows->Equals(*task.rows)) << back.rows->ToString() << task.rows->ToString();
  EXPECT_TRUE(back.keys->Equals(*task.keys));

  WriteStat stat;
  stat.partition = "part=x";
  stat.file_id = "f1-0";
  stat.path = task.plan.new_path;
  stat.num_records = 2;
  stat.num_updates = 1;
  stat.num_deletes = 1;
  stat.file_size = 999;
  stat.min_record_key = "1";
  stat.max_record_key = "3";
  ASSERT_OK_AND_ASSIGN(auto result, ParseTaskResult(SerializeTaskResult(stat)));
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(SerializeTaskResult(*result), SerializeTaskResult(stat));
  ASSERT_OK_AND_ASSIGN(auto nothing, ParseTaskResult(SerializeTaskResult(std::nullopt)));
  EXPECT_FALSE(nothing.has_value());
}

TEST(FileGroupTask, DamagedTasksAreCleanErrors) {
  ASSERT_OK_AND_ASSIGN(auto bytes, SerializeFileGroupTask(SampleTask()));
  const std::string good = bytes->ToString();
  // Every truncation, and random byte flips: an error or a task, never a crash.
  for (size_t n = 0; n < good.size(); n += 7) {
    auto cut = ParseFileGroupTask(arrow::Buffer::FromString(good.substr(0, n)));
    EXPECT_FALSE(cut.ok()) << n;
  }
  std::mt19937 random(11);
  for (int i = 0; i < 300; ++i) {
    std::string flipped = good;
    flipped[random() % flipped.size()] ^= static_cast<char>(1 + random() % 255);
    (void)ParseFileGroupTask(arrow::Buffer::FromString(flipped));
  }
  // A plan naming rows it does not carry, or a path outside the table.
  for (auto [from, to] : {std::pair<std::string, std::string>{"\"upserts\":[0,1]", "\"upserts\":[0,9]"},
                          {"part=x/f1-0_0-2-2_", "../../af1-0_0-2-2_"}}) {
    FileGroupTask task = SampleTask();
    ASSERT_OK_AND_ASSIGN(auto original, SerializeFileGroupTask(task));
    std::string text = original->ToString();
    auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    // Same length keeps the IPC framing intact, so only the plan is wrong.
    ASSERT_EQ(from.size(), to.size());
    text.replace(at, from.size(), to);
    auto parsed = ParseFileGroupTask(arrow::Buffer::FromString(text));
    EXPECT_FALSE(parsed.ok()) << to;
  }
  EXPECT_FALSE(ParseTaskResult("{\"partition\":1}").ok());
  EXPECT_FALSE(ParseTaskResult("garbage").ok());
}

TEST(FileGroupTask, AWriteWhoseTasksCrossAsBytesWritesTheSameTable) {
  // Two tables, one history: on one the engine hands every file group task over as bytes.
  testing::TempDir in_process("ls_task_in_process");
  testing::TempDir serialized("ls_task_serialized");
  TableOpenOptions plain, bytes;
  ASSERT_OK_AND_ASSIGN(bytes.engine, Engine::MakeThreadPool(2, /*serialize_tasks=*/true));
  ASSERT_TRUE(bytes.engine->SerializesTasks());
  ASSERT_OK_AND_ASSIGN(auto a, Table::Create(in_process.path(), testing::PeopleConfig(), plain));
  ASSERT_OK_AND_ASSIGN(auto b, Table::Create(serialized.path(), testing::PeopleConfig(), bytes));
  std::mt19937 random(3);
  for (int step = 0; step < 6; ++step) {
    std::vector<testing::Person> rows;
    for (int i = 0; i < 40; ++i) {
      int64_t id = static_cast<int64_t>(random() % 60);
      rows.push_back({id, "n" + std::to_string(random() % 1000), static_cast<int64_t>(random() % 5),
                      std::string(1, static_cast<char>('p' + id % 3))});
    }
    ASSERT_OK(a->Write(WriteOperation::kUpsert, testing::PeopleReader(rows)).status());
    ASSERT_OK(b->Write(WriteOperation::kUpsert, testing::PeopleReader(rows)).status());
    std::vector<std::pair<int64_t, std::string>> gone;
    for (int i = 0; i < 5; ++i) {
      int64_t id = static_cast<int64_t>(random() % 60);
      gone.push_back({id, std::string(1, static_cast<char>('p' + id % 3))});
    }
    ASSERT_OK(a->Write(WriteOperation::kDelete, testing::KeysReader(gone)).status());
    ASSERT_OK(b->Write(WriteOperation::kDelete, testing::KeysReader(gone)).status());
    EXPECT_EQ(testing::ReadPeople(*a), testing::ReadPeople(*b)) << "step " << step;
  }
  EXPECT_FALSE(testing::ReadPeople(*b).empty());
}

}  // namespace
}  // namespace lakeshore
