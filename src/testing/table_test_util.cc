#include "testing/table_test_util.h"

#include "table/layout.h"
#include "timeline/instant_codec.h"

#include <random>

#include <gtest/gtest.h>

namespace lakeshore::testing {

TempDir::TempDir(const std::string& name) {
  std::random_device rd;
  path_ = (std::filesystem::temp_directory_path() /
           ("lakeshore_" + name + "_" + std::to_string(rd()))).string();
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::shared_ptr<arrow::Schema> PeopleSchema() {
  return arrow::schema({arrow::field("id", arrow::int64(), false), arrow::field("name", arrow::utf8()),
                        arrow::field("ts", arrow::int64()), arrow::field("part", arrow::utf8())});
}

TableConfig PeopleConfig(bool partitioned) {
  TableConfig config;
  config.name = "people";
  config.schema = PeopleSchema();
  config.record_key_fields = {"id"};
  if (partitioned) config.partition_fields = {"part"};
  config.ordering_field = "ts";
  return config;
}

std::shared_ptr<arrow::RecordBatchReader> PeopleReader(const std::vector<Person>& rows) {
  arrow::Int64Builder id, ts;
  arrow::StringBuilder name, part;
  for (const auto& p : rows) {
    (void)id.Append(p.id);
    (void)name.Append(p.name);
    (void)ts.Append(p.ts);
    (void)part.Append(p.part);
  }
  auto batch = arrow::RecordBatch::Make(PeopleSchema(), static_cast<int64_t>(rows.size()),
                                        {*id.Finish(), *name.Finish(), *ts.Finish(), *part.Finish()});
  return *arrow::RecordBatchReader::Make({batch}, PeopleSchema());
}

std::shared_ptr<arrow::RecordBatchReader> KeysReader(const std::vector<std::pair<int64_t, std::string>>& keys) {
  auto schema = arrow::schema({arrow::field("id", arrow::int64(), false), arrow::field("part", arrow::utf8())});
  arrow::Int64Builder id;
  arrow::StringBuilder part;
  for (const auto& [k, p] : keys) {
    (void)id.Append(k);
    (void)part.Append(p);
  }
  auto batch = arrow::RecordBatch::Make(schema, static_cast<int64_t>(keys.size()), {*id.Finish(), *part.Finish()});
  return *arrow::RecordBatchReader::Make({batch}, schema);
}

std::map<std::pair<std::string, int64_t>, Person> ReadPeople(Table& table, const ReadOptions& options) {
  std::map<std::pair<std::string, int64_t>, Person> out;
  auto result = table.Read(options);
  if (!result.ok()) throw std::runtime_error(result.status().ToString());
  auto t = *(*result)->CombineChunks();
  auto id = std::static_pointer_cast<arrow::Int64Array>(t->GetColumnByName("id")->chunk(0));
  auto name = std::static_pointer_cast<arrow::StringArray>(t->GetColumnByName("name")->chunk(0));
  auto ts = std::static_pointer_cast<arrow::Int64Array>(t->GetColumnByName("ts")->chunk(0));
  auto part = std::static_pointer_cast<arrow::StringArray>(t->GetColumnByName("part")->chunk(0));
  for (int64_t i = 0; i < t->num_rows(); ++i) {
    Person p{id->Value(i), name->GetString(i), ts->Value(i), part->GetString(i)};
    auto [it, inserted] = out.emplace(std::make_pair(p.part, p.id), p);
    if (!inserted) throw std::runtime_error("duplicate key in snapshot: " + std::to_string(p.id));
  }
  return out;
}

}  // namespace lakeshore::testing

namespace lakeshore::testing {

const TimelineLocation& TableTimeline() {
  static const TimelineLocation location{layout::kTimelineDir, TimelineLayout::kV2};
  return location;
}

Result<CommitMetadata> ReadInstant(Storage& storage, const Instant& instant) {
  Instant at = instant;
  if (instant.action == actions::kRollback && !instant.is_completed()) at.state = InstantState::kRequested;
  ARROW_ASSIGN_OR_RAISE(auto text, timeline_ops::ReadContent(storage, TableTimeline(), at));
  return InstantCodec{TimelineLayout::kV2, storage.ExternalPath("")}.Decode(at, text, TableTimeline().PathOf(at));
}

}  // namespace lakeshore::testing

namespace lakeshore::testing {

RecordedTable::RecordedTable(const std::string& name)
    : uri("mem://" + name), clock(std::make_shared<ManualClock>(1767225600000)) {
  auto opened = Storage::Open(uri);
  EXPECT_TRUE(opened.ok()) << opened.status();
  if (opened.ok()) storage = *opened;
}

TableOpenOptions RecordedTable::Options(std::shared_ptr<Storage> over) const {
  TableOpenOptions o;
  o.clock = clock;
  o.storage_override = over ? std::move(over) : storage;
  return o;
}

std::shared_ptr<Table> RecordedTable::Open(std::shared_ptr<Storage> over) const {
  auto t = Table::Open(uri, Options(std::move(over)));
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : nullptr;
}

void RecordedTable::Record(Table& table, const Result<WriteResult>& r) {
  ASSERT_TRUE(r.ok()) << r.status();
  as_of[r->instant_time] = ReadPeople(table);
  clock->Advance(1000);
}

void RecordedTable::ExpectReadsUnchanged(Table& table) const {
  for (const auto& [instant, expected] : as_of) {
    ReadOptions options;
    options.as_of = instant;
    EXPECT_EQ(ReadPeople(table, options), expected) << "as of " << instant;
  }
  ASSERT_FALSE(as_of.empty());
  EXPECT_EQ(ReadPeople(table), as_of.rbegin()->second);
}

}  // namespace lakeshore::testing
