// Scenario tests of Delta VACUUM: create files, delete them logically, advance the clock,
// vacuum, check which files exist.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <arrow/api.h>
#include <arrow/array/concatenate.h>
#include <arrow/io/memory.h>
#include <gtest/gtest.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/writer.h>

#include "lakeshore/delta/delta_log.h"
#include "lakeshore/storage/fault_injection_storage.h"
#include "services/vacuum/table_listing.h"
#include "services/vacuum/vacuum_watermark.h"
#include "testing/delta_scenario.h"
#include "testing/pass_through_storage.h"

namespace lakeshore {
namespace {

using nlohmann::json;
using testing::DeltaScenario;
using testing::DvJson;
using testing::kDayMs;
using testing::kHourMs;
using testing::Z85Uuid;

std::vector<std::string> CandidatePaths(const VacuumReport& r) {
  std::vector<std::string> out;
  for (const auto& c : r.candidates) out.push_back(c.path);
  return out;
}

VacuumReport MustVacuum(DeltaScenario& s, VacuumOptions o = {}) {
  auto r = s.Vacuum(o);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : VacuumReport{};
}

/// A table protocol (reader 3, writer 7) with one table feature, for readers and writers.
json ProtocolWith(const std::string& feature) {
  return {{"minReaderVersion", 3}, {"minWriterVersion", 7}, {"readerFeatures", {feature}}, {"writerFeatures", {feature}}};
}

VacuumOptions DryRun() {
  VacuumOptions o;
  o.dry_run = true;
  return o;
}

TEST(DeltaVacuum, UntrackedFilesOldAndNew) {
  DeltaScenario s("untracked");
  s.Create();
  s.Add("live.parquet");
  s.Put("orphan_old.parquet", 100);
  s.Advance(8 * kDayMs);
  s.Put("orphan_new.parquet", 100);
  auto dry = MustVacuum(s, DryRun());
  EXPECT_EQ(CandidatePaths(dry), std::vector<std::string>{"orphan_old.parquet"});
  EXPECT_EQ(dry.candidates[0].size, 100);
  EXPECT_EQ(dry.files_deleted, 0);
  EXPECT_TRUE(s.Exists("orphan_old.parquet"));  // a dry run deletes nothing
  auto real = MustVacuum(s);
  EXPECT_EQ(real.files_deleted, 1);
  EXPECT_EQ(real.bytes_deleted, 100);
  EXPECT_FALSE(s.Exists("orphan_old.parquet"));
  EXPECT_TRUE(s.Exists("orphan_new.parquet"));
  EXPECT_TRUE(s.Exists("live.parquet"));
}

TEST(DeltaVacuum, TombstonesInsideAndOutsideRetention) {
  DeltaScenario s("tombstones");
  s.Create();
  s.Add("a.parquet");
  s.Add("b.parquet");
  s.Remove("a.parquet");
  s.Advance(3 * kDayMs);
  s.Remove("b.parquet");
  s.Advance(5 * kDayMs);  // a removed 8 days ago, b 5 days ago
  MustVacuum(s);
  EXPECT_FALSE(s.Exists("a.parquet"));
  EXPECT_TRUE(s.Exists("b.parquet"));
  s.Advance(3 * kDayMs);
  MustVacuum(s);
  EXPECT_FALSE(s.Exists("b.parquet"));
}

TEST(DeltaVacuum, TableRetentionPropertyAndRetentionCheck) {
  DeltaScenario s("retention");
  s.Create({}, {{"delta.deletedFileRetentionDuration", "interval 2 days"}});
  s.Add("a.parquet");
  s.Remove("a.parquet");
  s.Put("orphan.parquet");
  s.Advance(1 * kDayMs);
  VacuumOptions short_retention;
  short_retention.retain_hours = 1;
  auto refused = s.Vacuum(short_retention);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(IsError(refused.status(), ErrorKind::kRetentionViolation)) << refused.status();
  EXPECT_TRUE(s.Exists("a.parquet"));
  EXPECT_TRUE(s.Exists("orphan.parquet"));
  MustVacuum(s);  // the table's 2 days: nothing is old enough yet
  EXPECT_TRUE(s.Exists("a.parquet"));
  short_retention.enforce_retention = false;
  auto forced = MustVacuum(s, short_retention);
  EXPECT_EQ(forced.files_deleted, 2);
  EXPECT_FALSE(s.Exists("a.parquet"));
  EXPECT_FALSE(s.Exists("orphan.parquet"));
}

TEST(DeltaVacuum, HiddenPathsAreNeverTouched) {
  DeltaScenario s("hidden");
  s.Create({"p"});
  s.Put("_tmp/x.parquet");
  s.Put(".hidden/y.parquet");
  s.Put("_delta_log/junk.tmp");
  s.Put("p=1/_staging/z.parquet");
  s.Put("p=1/.part-0.crc");
  s.Put("_delta_index/idx.bin");
  s.Put("p=1/orphan.parquet");
  s.Advance(30 * kDayMs);
  auto dry = MustVacuum(s, DryRun());
  EXPECT_EQ(CandidatePaths(dry), (std::vector<std::string>{"_delta_index/idx.bin", "p=1/orphan.parquet"}));
  MustVacuum(s);
  for (const char* p : {"_tmp/x.parquet", ".hidden/y.parquet", "_delta_log/junk.tmp",
                        "p=1/_staging/z.parquet", "p=1/.part-0.crc"}) {
    EXPECT_TRUE(s.Exists(p)) << p;
  }
  EXPECT_FALSE(s.Exists("p=1/orphan.parquet"));
}

TEST(DeltaVacuum, PartitionFoldersStartingWithUnderscore) {
  DeltaScenario s("underscore_partition");
  s.Create({"_p"});
  s.Add("_p=1/live.parquet");
  s.Put("_p=1/orphan.parquet");
  s.Put("_q=1/hidden.parquet");  // not a partition column: hidden
  s.Advance(8 * kDayMs);
  MustVacuum(s);
  EXPECT_TRUE(s.Exists("_p=1/live.parquet"));
  EXPECT_FALSE(s.Exists("_p=1/orphan.parquet"));
  EXPECT_TRUE(s.Exists("_q=1/hidden.parquet"));
}

TEST(DeltaVacuum, SpecialCharactersAndPercentEncodedPartitionValues) {
  DeltaScenario s("special_chars");
  s.Create({"p"});
  // On disk the Hive-escaped folder "p=a%3Ab c"; in the log the URL-encoded path.
  s.Add("p=a%3Ab c/live file.parquet", std::nullopt, std::string("p=a%253Ab%20c/live%20file.parquet"));
  s.Add("p=a%3Ab c/old.parquet", std::nullopt, std::string("p=a%253Ab%20c/old.parquet"));
  s.Remove("p=a%3Ab c/old.parquet", std::nullopt, std::string("p=a%253Ab%20c/old.parquet"));
  s.Advance(8 * kDayMs);
  auto dry = MustVacuum(s, DryRun());
  EXPECT_EQ(CandidatePaths(dry), std::vector<std::string>{"p=a%3Ab c/old.parquet"});
  MustVacuum(s);
  EXPECT_TRUE(s.Exists("p=a%3Ab c/live file.parquet"));
  EXPECT_FALSE(s.Exists("p=a%3Ab c/old.parquet"));
}

TEST(DeltaVacuum, DeletionVectorsOfAllStorageTypes) {
  DeltaScenario s("dvs");
  json protocol = ProtocolWith("deletionVectors");
  s.Create({}, json::object(), protocol);
  const std::string u1 = "11111111-2222-3333-4444-555555555555";
  const std::string u2 = "66666666-7777-8888-9999-aaaaaaaaaaaa";
  const std::string dv_u_prefixed = "ab/deletion_vector_" + u1 + ".bin";
  const std::string dv_u_plain = "deletion_vector_" + u2 + ".bin";
  const std::string dv_p = "dvs/deletion_vector_abs.bin";
  s.Put(dv_u_prefixed);
  s.Put(dv_u_plain);
  s.Put(dv_p);
  s.Add("a.parquet", DvJson("u", "ab" + Z85Uuid(u1)));
  s.Add("b.parquet", DvJson("p", "file://" + s.root() + "/" + dv_p));
  s.Add("c.parquet", DvJson("i", "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L"));
  // c.parquet's DV is updated: the old logical file (plain u DV) is tombstoned.
  s.Add("d.parquet", DvJson("u", Z85Uuid(u2)));
  s.Advance(8 * kDayMs);
  MustVacuum(s);
  for (const auto& p : {dv_u_prefixed, dv_u_plain, dv_p}) EXPECT_TRUE(s.Exists(p)) << p;
  // Replace d's DV: remove (d, dv u2), add (d, no DV). The old DV file must survive until its
  // tombstone expires, then go.
  s.Commit({{{"remove", {{"path", "d.parquet"}, {"deletionTimestamp", s.now()}, {"size", 10},
                          {"deletionVector", DvJson("u", Z85Uuid(u2))}}}},
            {{"add", {{"path", "d.parquet"}, {"size", 10}, {"modificationTime", s.now()},
                      {"dataChange", true}}}}});
  s.Advance(1 * kDayMs);
  MustVacuum(s);
  EXPECT_TRUE(s.Exists(dv_u_plain));
  EXPECT_TRUE(s.Exists("d.parquet"));
  s.Advance(7 * kDayMs);
  MustVacuum(s);
  EXPECT_FALSE(s.Exists(dv_u_plain));
  EXPECT_TRUE(s.Exists("d.parquet"));
  EXPECT_TRUE(s.Exists(dv_u_prefixed));
}

TEST(DeltaVacuum, AnUndecodableDeletionVectorNamesItsDataFileAndLog) {
  // The error said only "deletion vector path 'abc' is shorter than a Z85 UUID": no data file,
  // no log. Full and lite runs name both, and delete nothing.
  DeltaScenario s("dv_bad");
  json protocol = ProtocolWith("deletionVectors");
  s.Create({}, json::object(), protocol);
  s.Put("orphan.parquet");
  s.Add("a.parquet", DvJson("u", "abc"));
  s.Advance(8 * kDayMs);
  for (VacuumMode mode : {VacuumMode::kFull, VacuumMode::kLite}) {
    VacuumOptions o;
    o.mode = mode;
    auto r = s.Vacuum(o);
    ASSERT_TRUE(IsError(r.status(), ErrorKind::kCorruptMetadata)) << r.status();
    EXPECT_NE(r.status().message().find("'a.parquet'"), std::string::npos) << r.status();
    EXPECT_NE(r.status().message().find("_delta_log"), std::string::npos) << r.status();
    EXPECT_NE(r.status().message().find("shorter than a Z85 UUID"), std::string::npos) << r.status();
  }
  EXPECT_TRUE(s.Exists("orphan.parquet"));
  EXPECT_TRUE(s.Exists("a.parquet"));
}

TEST(DeltaVacuum, ChangeDataFilesFollowTheirModificationTime) {
  DeltaScenario s("cdc");
  s.Create();
  s.Put("_change_data/cdc-1.parquet");
  s.Commit({{{"cdc", {{"path", "_change_data/cdc-1.parquet"}, {"size", 10}, {"dataChange", false}}}}}, "UPDATE");
  s.Advance(8 * kDayMs);
  s.Put("_change_data/cdc-2.parquet");
  s.Commit({{{"cdc", {{"path", "_change_data/cdc-2.parquet"}, {"size", 10}, {"dataChange", false}}}}}, "UPDATE");
  MustVacuum(s);
  EXPECT_FALSE(s.Exists("_change_data/cdc-1.parquet"));
  EXPECT_TRUE(s.Exists("_change_data/cdc-2.parquet"));
}

TEST(DeltaVacuum, EmptyFoldersAreRemoved) {
  DeltaScenario s("empty_dirs");
  s.Create({"p"});
  s.Put("p=1/q=2/orphan.parquet");
  s.MakeDir("p=3");
  s.Add("p=4/live.parquet");
  s.Advance(8 * kDayMs);
  s.MakeDir("p=5");  // young empty folder: a writer may be about to fill it
  auto r = MustVacuum(s);
  EXPECT_FALSE(s.Exists("p=1"));
  EXPECT_FALSE(s.Exists("p=3"));
  EXPECT_TRUE(s.Exists("p=4/live.parquet"));
  EXPECT_TRUE(s.Exists("p=5"));
  EXPECT_EQ(r.dirs_deleted, 3);  // p=1/q=2, p=1, p=3
}

TEST(DeltaVacuum, WorksFromMultiPartAndV2Checkpoints) {
  for (int variant = 0; variant < 2; ++variant) {
    DeltaScenario s("vacuum_cp" + std::to_string(variant));
    json protocol = ProtocolWith("v2Checkpoint");
    s.Create({}, json::object(), protocol);
    s.Add("a.parquet");
    s.Add("b.parquet");
    s.Add("c.parquet");
    s.Remove("a.parquet");
    s.Checkpoint(variant == 0 ? 2 : 1, variant == 1);
    for (int v = 0; v <= 4; ++v) std::filesystem::remove(s.root() + "/" + delta::DeltaLog::CommitPath(v));
    s.Put("orphan.parquet");
    s.Advance(8 * kDayMs);
    MustVacuum(s);
    EXPECT_FALSE(s.Exists("a.parquet"));
    EXPECT_FALSE(s.Exists("orphan.parquet"));
    EXPECT_TRUE(s.Exists("b.parquet"));
    EXPECT_TRUE(s.Exists("c.parquet"));
    EXPECT_TRUE(s.Exists("_delta_log/_sidecars/3a0d65cd-4056-49b8-937b-95f9e3ee90e5.parquet") || variant == 0);
  }
}

/// `table` as Parquet bytes.
std::shared_ptr<arrow::Buffer> ParquetBytes(const arrow::Table& table) {
  auto sink = *arrow::io::BufferOutputStream::Create();
  EXPECT_TRUE(parquet::arrow::WriteTable(table, arrow::default_memory_pool(), sink, 1024).ok());
  return *sink->Finish();
}

/// A Parquet file of one int64 column `foo`: no Delta action columns at all.
std::shared_ptr<arrow::Buffer> ForeignParquet() {
  arrow::Int64Builder b;
  EXPECT_TRUE(b.AppendValues({1, 2}).ok());
  return ParquetBytes(*arrow::Table::Make(arrow::schema({arrow::field("foo", arrow::int64())}), {*b.Finish()}));
}

/// The Parquet file at `path` of scenario `s` rewritten by `edit`.
void EditParquet(DeltaScenario& s, const std::string& path,
                 const std::function<std::shared_ptr<arrow::Table>(std::shared_ptr<arrow::Table>)>& edit) {
  auto file = *s.storage()->OpenInputFile(path);
  auto reader = *parquet::arrow::OpenFile(file, arrow::default_memory_pool());
  std::shared_ptr<arrow::Table> table;
  ASSERT_TRUE(reader->ReadTable(&table).ok());
  ASSERT_TRUE(s.storage()->WriteFile(path, ParquetBytes(*edit(table))).ok());
}

/// `table` without the field `field` of its struct column `column`.
std::shared_ptr<arrow::Table> WithoutField(std::shared_ptr<arrow::Table> table, const std::string& column,
                                           const std::string& field) {
  const int at = table->schema()->GetFieldIndex(column);
  auto structs = std::static_pointer_cast<arrow::StructArray>(*arrow::Concatenate(table->column(at)->chunks()));
  arrow::ArrayVector children;
  arrow::FieldVector fields;
  for (int i = 0; i < structs->num_fields(); ++i) {
    if (structs->type()->field(i)->name() == field) continue;
    children.push_back(*structs->GetFlattenedField(i));
    fields.push_back(structs->type()->field(i));
  }
  auto rebuilt = *arrow::StructArray::Make(children, fields, structs->null_bitmap(), structs->null_count());
  return *table->SetColumn(at, arrow::field(column, rebuilt->type()), std::make_shared<arrow::ChunkedArray>(rebuilt));
}

/// The Parquet file at `path` of scenario `s` rewritten without its column `column`.
void DropColumn(DeltaScenario& s, const std::string& path, const std::string& column) {
  EditParquet(s, path, [&](std::shared_ptr<arrow::Table> t) { return *t->RemoveColumn(t->schema()->GetFieldIndex(column)); });
}

constexpr const char* kCheckpoint = "_delta_log/00000000000000000002.checkpoint.parquet";
constexpr const char* kSidecar = "_delta_log/_sidecars/3a0d65cd-4056-49b8-937b-95f9e3ee90e5.parquet";
constexpr const char* kV2Checkpoint =
    "_delta_log/00000000000000000002.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json";

/// The V2 checkpoint's sidecar actions rewritten by `edit`.
void EditSidecarActions(DeltaScenario& s, const std::function<void(json&)>& edit) {
  std::string text;
  std::istringstream lines(*s.storage()->ReadString(kV2Checkpoint));
  for (std::string line; std::getline(lines, line);) {
    json action = json::parse(line);
    if (action.contains("sidecar")) edit(action["sidecar"]);
    text += action.dump() + "\n";
  }
  ASSERT_TRUE(s.storage()->WriteString(kV2Checkpoint, text).ok());
}

// A sidecar action's relative path is relative to `_delta_log/_sidecars/`, folders included
// (found by outside testing: `sub/x.parquet` was looked for below the table root, so a table
// delta-rs reads was refused, and a file planted at `<root>/sub/x.parquet` was read instead).
TEST(DeltaVacuum, ASidecarInAFolderOfSidecarsIsReadThere) {
  DeltaScenario s("vacuum_sidecar_folder");
  json protocol = ProtocolWith("v2Checkpoint");
  s.Create({}, json::object(), protocol);
  s.Add("a.parquet");
  s.Add("b.parquet");
  s.Checkpoint(1, /*v2_sidecars=*/true);
  const std::string name = "3a0d65cd-4056-49b8-937b-95f9e3ee90e5.parquet";
  std::filesystem::create_directories(s.root() + "/_delta_log/_sidecars/sub");
  std::filesystem::rename(s.root() + "/_delta_log/_sidecars/" + name, s.root() + "/_delta_log/_sidecars/sub/" + name);
  EditSidecarActions(s, [&](json& sidecar) { sidecar["path"] = "sub/" + name; });
  s.Put("orphan.parquet");
  s.Advance(30 * kDayMs);
  auto report = MustVacuum(s, DryRun());
  EXPECT_EQ(CandidatePaths(report), std::vector<std::string>{"orphan.parquet"});
}

TEST(DeltaVacuum, BadInputDeletesNothing) {
  struct Case {
    std::string name;
    std::function<void(DeltaScenario&)> damage;
    ErrorKind kind;
    std::string names;
  };
  std::vector<Case> cases = {
      {"truncated", [](DeltaScenario& s) { s.CommitRaw("{\"remove\":{\"path\":\"a.parquet\",\"deletionTi"); },
       ErrorKind::kCorruptMetadata, "00000000000000000003.json"},
      {"garbage", [](DeltaScenario& s) { s.CommitRaw("\x01\x02 not json\n"); },
       ErrorKind::kCorruptMetadata, "00000000000000000003.json"},
      {"missing_part",
       [](DeltaScenario& s) {
         s.Checkpoint(2);
         std::filesystem::remove(s.root() + "/_delta_log/00000000000000000002.checkpoint.0000000001.0000000002.parquet");
       },
       ErrorKind::kCorruptMetadata, "00000000000000000002.checkpoint.0000000001.0000000002.parquet"},
      {"unknown_writer_feature",
       [](DeltaScenario& s) {
         s.Commit({{{"protocol", {{"minReaderVersion", 3}, {"minWriterVersion", 7},
                                  {"readerFeatures", json::array()},
                                  {"writerFeatures", {"futureFilesFeature"}}}}}});
       },
       ErrorKind::kUnsupportedFeature, "futureFilesFeature"},
      {"bad_retention",
       [](DeltaScenario& s) {
         s.Commit({{{"metaData", {{"id", "t"}, {"partitionColumns", json::array()},
                                  {"configuration", {{"delta.deletedFileRetentionDuration", "a while"}}}}}}});
       },
       ErrorKind::kCorruptMetadata, "deletedFileRetentionDuration"},
      // Found by outside testing: a checkpoint (or a V2 checkpoint's sidecar) of another
      // shape was read as holding no files, and every data file was deleted.
      {"foreign_checkpoint",
       [](DeltaScenario& s) {
         s.Checkpoint();
         ASSERT_TRUE(s.storage()->WriteFile(kCheckpoint, ForeignParquet()).ok());
       },
       ErrorKind::kCorruptMetadata, std::string(kCheckpoint) + "' has no `add` column"},
      {"checkpoint_without_add",
       [](DeltaScenario& s) {
         s.Checkpoint();
         DropColumn(s, kCheckpoint, "add");
       },
       ErrorKind::kCorruptMetadata, std::string(kCheckpoint) + "' has no `add` column"},
      {"checkpoint_without_remove",
       [](DeltaScenario& s) {
         s.Checkpoint();
         DropColumn(s, kCheckpoint, "remove");
       },
       ErrorKind::kCorruptMetadata, std::string(kCheckpoint) + "' has no `remove` column"},
      {"checkpoint_without_protocol",
       [](DeltaScenario& s) {
         s.Checkpoint();
         DropColumn(s, kCheckpoint, "protocol");
       },
       ErrorKind::kCorruptMetadata, "checkpoint '" + std::string(kCheckpoint) + "' (version 2) has no protocol action"},
      {"sidecar_replaced",
       [](DeltaScenario& s) {
         s.Checkpoint(1, /*v2_sidecars=*/true);
         ASSERT_TRUE(s.storage()->WriteFile(kSidecar, ForeignParquet()).ok());
       },
       ErrorKind::kCorruptMetadata, std::string(kSidecar) + "' holds"},
      {"foreign_sidecar",
       [](DeltaScenario& s) {
         // The sidecar action states the foreign file's true size: only its columns tell.
         s.Checkpoint(1, /*v2_sidecars=*/true);
         auto foreign = ForeignParquet();
         ASSERT_TRUE(s.storage()->WriteFile(kSidecar, foreign).ok());
         EditSidecarActions(s, [&](json& sidecar) { sidecar["sizeInBytes"] = foreign->size(); });
       },
       ErrorKind::kCorruptMetadata, std::string(kSidecar) + "' has no `add` column"},
      {"add_without_path",
       [](DeltaScenario& s) {
         s.Checkpoint();
         EditParquet(s, kCheckpoint, [](auto t) { return WithoutField(t, "add", "path"); });
       },
       ErrorKind::kCorruptMetadata, "has a column `add` without its `path` field"},
      {"remove_without_path",
       [](DeltaScenario& s) {
         s.Checkpoint();
         EditParquet(s, kCheckpoint, [](auto t) { return WithoutField(t, "remove", "path"); });
       },
       ErrorKind::kCorruptMetadata, "has a column `remove` without its `path` field"},
      {"add_twice",
       [](DeltaScenario& s) {
         // The rows in `Add`, beside an all-null `add`: which one holds them is unknown.
         s.Checkpoint();
         EditParquet(s, kCheckpoint, [](std::shared_ptr<arrow::Table> t) {
           const int at = t->schema()->GetFieldIndex("add");
           auto nulls = *arrow::MakeArrayOfNull(t->column(at)->type(), t->num_rows());
           return *t->AddColumn(t->num_columns(), arrow::field("Add", nulls->type()),
                                std::make_shared<arrow::ChunkedArray>(nulls));
         });
       },
       ErrorKind::kCorruptMetadata, "has two columns named 'add'"},
      {"sidecar_without_size",
       [](DeltaScenario& s) {
         s.Checkpoint(1, /*v2_sidecars=*/true);
         EditSidecarActions(s, [&](json& sidecar) { sidecar.erase("sizeInBytes"); });
       },
       ErrorKind::kCorruptMetadata, "without a size above 0"},
  };
  for (const auto& c : cases) {
    DeltaScenario s("bad_" + c.name);
    s.Create();
    s.Add("a.parquet");
    s.Add("b.parquet");
    s.Put("orphan.parquet");
    s.Advance(30 * kDayMs);
    c.damage(s);
    auto before = s.DataFiles();
    for (bool dry : {true, false}) {
      VacuumOptions o;
      o.dry_run = dry;
      for (auto mode : {VacuumMode::kFull, VacuumMode::kLite}) {
        o.mode = mode;
        auto r = s.Vacuum(o);
        ASSERT_FALSE(r.ok()) << c.name;
        EXPECT_TRUE(IsError(r.status(), c.kind)) << c.name << ": " << r.status();
        EXPECT_NE(r.status().message().find(c.names), std::string::npos) << c.name << ": " << r.status();
      }
    }
    EXPECT_EQ(s.DataFiles(), before) << c.name;
  }
}

TEST(DeltaVacuum, RecordsVacuumStartAndEndCommits) {
  DeltaScenario s("history");
  s.Create();
  s.Add("a.parquet");
  s.Put("orphan.parquet", 7);
  s.Advance(8 * kDayMs);
  MustVacuum(s, DryRun());
  EXPECT_FALSE(s.Exists(delta::DeltaLog::CommitPath(2)));  // a dry run writes nothing
  MustVacuum(s);
  auto start = *s.storage()->ReadString(delta::DeltaLog::CommitPath(2));
  auto end = *s.storage()->ReadString(delta::DeltaLog::CommitPath(3));
  auto start_info = json::parse(start)["commitInfo"];
  auto end_info = json::parse(end)["commitInfo"];
  EXPECT_EQ(start_info["operation"], "VACUUM START");
  EXPECT_EQ(start_info["operationMetrics"]["numFilesToDelete"], "1");
  EXPECT_EQ(start_info["operationMetrics"]["sizeOfDataToDelete"], "7");
  EXPECT_EQ(start_info["operationParameters"]["defaultRetentionMillis"], std::to_string(7 * kDayMs));
  EXPECT_EQ(end_info["operation"], "VACUUM END");
  EXPECT_EQ(end_info["operationParameters"]["status"], "COMPLETED");
  EXPECT_EQ(end_info["operationMetrics"]["numDeletedFiles"], "1");
  // The table still reads, and the vacuum commits changed nothing in it.
  auto log = *delta::DeltaLog::Open(s.storage(), Engine::Default());
  auto snap = *log->LoadSnapshot();
  EXPECT_EQ(snap.version, 3);
  EXPECT_EQ(snap.active_files.size(), 1u);
}

TEST(DeltaVacuum, InCommitTimestampsStayIncreasing) {
  DeltaScenario s("ict");
  json protocol = {{"minReaderVersion", 3}, {"minWriterVersion", 7},
                   {"readerFeatures", json::array()}, {"writerFeatures", {"inCommitTimestamp"}}};
  s.Create({}, {{"delta.enableInCommitTimestamps", "true"}}, protocol);
  const int64_t ahead = s.now() + 10 * kDayMs;  // a writer whose clock runs ahead
  s.CommitRaw(json{{"commitInfo", {{"inCommitTimestamp", ahead}, {"timestamp", ahead}, {"operation", "WRITE"}}}}.dump() +
              "\n" + json{{"add", {{"path", "a.parquet"}, {"size", 1}, {"modificationTime", 1}, {"dataChange", true}}}}.dump() + "\n");
  s.Put("a.parquet");
  s.Put("orphan.parquet");
  s.Advance(8 * kDayMs);
  MustVacuum(s);
  auto start = json::parse(*s.storage()->ReadString(delta::DeltaLog::CommitPath(2)))["commitInfo"];
  auto end = json::parse(*s.storage()->ReadString(delta::DeltaLog::CommitPath(3)))["commitInfo"];
  EXPECT_EQ(start["inCommitTimestamp"], ahead + 1);
  EXPECT_EQ(end["inCommitTimestamp"], ahead + 2);
  // commitInfo is the first action of each commit, as the feature requires.
  EXPECT_EQ(s.storage()->ReadString(delta::DeltaLog::CommitPath(2))->rfind("{\"commitInfo\"", 0), 0u);
}

TEST(DeltaVacuum, CommitRacesMoveToTheNextVersion) {
  DeltaScenario s("race");
  s.Create();
  s.Add("a.parquet");
  s.Put("orphan.parquet");
  s.Advance(8 * kDayMs);
  // A concurrent writer takes version 2 after we read version 1: our START goes to 3.
  class RacingStorage : public testing::PassThroughStorage {
   public:
    using testing::PassThroughStorage::PassThroughStorage;
    Result<bool> PutIfAbsent(std::string_view p, std::shared_ptr<arrow::Buffer> d) override {
      if (!raced_) {
        raced_ = true;
        (void)inner_->PutIfAbsentString(p, "{\"commitInfo\":{\"timestamp\":1,\"operation\":\"WRITE\"}}\n");
      }
      return inner_->PutIfAbsent(p, d);
    }
    bool raced_ = false;
  };
  auto racing = std::make_shared<RacingStorage>(s.storage());
  VacuumOptions o;
  o.clock = s.clock();
  auto r = Vacuum(racing, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(json::parse(*s.storage()->ReadString(delta::DeltaLog::CommitPath(2)))["commitInfo"]["operation"], "WRITE");
  EXPECT_EQ(json::parse(*s.storage()->ReadString(delta::DeltaLog::CommitPath(3)))["commitInfo"]["operation"], "VACUUM START");
  EXPECT_EQ(json::parse(*s.storage()->ReadString(delta::DeltaLog::CommitPath(4)))["commitInfo"]["operation"], "VACUUM END");
}

TEST(DeltaVacuum, RepeatedOptimisticRuns) {
  DeltaScenario s("optimistic");
  s.Create();
  s.Add("a.parquet");
  s.Add("b.parquet");
  s.Put("orphan.parquet");
  s.Advance(8 * kDayMs);
  VacuumOptions o;
  o.optimistic = true;
  auto first = MustVacuum(s, o);
  EXPECT_FALSE(first.skipped);  // nothing recorded yet
  EXPECT_FALSE(s.Exists("orphan.parquet"));
  auto second = MustVacuum(s, o);
  EXPECT_TRUE(second.skipped) << second.skip_reason;
  EXPECT_EQ(second.files_listed, 0);
  // Appends only: nothing can have become deletable.
  s.Advance(1 * kHourMs);
  s.Add("c.parquet");
  auto third = MustVacuum(s, o);
  EXPECT_TRUE(third.skipped) << third.skip_reason;
  // An OPTIMIZE (not in the seed's list of "file generating operations") removes b: while its
  // tombstone is young there is still nothing to delete ...
  s.Remove("b.parquet", std::nullopt, std::nullopt, "OPTIMIZE");
  s.Advance(1 * kDayMs);
  auto fourth = MustVacuum(s, o);
  EXPECT_TRUE(fourth.skipped) << fourth.skip_reason;
  EXPECT_TRUE(s.Exists("b.parquet"));
  // ... and once it expires the optimistic run must not skip.
  s.Advance(7 * kDayMs);
  auto fifth = MustVacuum(s, o);
  EXPECT_FALSE(fifth.skipped);
  EXPECT_NE(fifth.skip_reason.find("b.parquet"), std::string::npos) << fifth.skip_reason;
  EXPECT_FALSE(s.Exists("b.parquet"));
  auto sixth = MustVacuum(s, o);
  EXPECT_TRUE(sixth.skipped) << sixth.skip_reason;
}

TEST(DeltaVacuum, OptimisticRunsOnChangeDataAndDeletionVectors) {
  DeltaScenario s("optimistic_cdc_dv");
  json protocol = {{"minReaderVersion", 3}, {"minWriterVersion", 7},
                   {"readerFeatures", {"deletionVectors"}}, {"writerFeatures", {"deletionVectors", "changeDataFeed"}}};
  s.Create({}, json::object(), protocol);
  s.Add("a.parquet");
  s.Advance(8 * kDayMs);
  VacuumOptions o;
  o.optimistic = true;
  MustVacuum(s, o);
  EXPECT_TRUE(MustVacuum(s, o).skipped);
  s.Put("_change_data/c.parquet");
  s.Commit({{{"cdc", {{"path", "_change_data/c.parquet"}, {"size", 10}, {"dataChange", false}}}}}, "MERGE");
  auto after_cdc = MustVacuum(s, o);
  EXPECT_FALSE(after_cdc.skipped);
  EXPECT_NE(after_cdc.skip_reason.find("change data"), std::string::npos);
  s.Add("b.parquet", DvJson("u", Z85Uuid("11111111-2222-3333-4444-555555555555")));
  s.Advance(8 * kDayMs);  // so the cdc commit is behind the next watermark
  auto after_dv = MustVacuum(s, o);
  EXPECT_FALSE(after_dv.skipped);
  EXPECT_FALSE(s.Exists("_change_data/c.parquet"));
  EXPECT_TRUE(MustVacuum(s, o).skipped);
}

TEST(DeltaVacuum, OptimisticForceFullAfterBound) {
  DeltaScenario s("optimistic_force");
  s.Create();
  s.Add("a.parquet");
  VacuumOptions o;
  o.optimistic = true;
  o.force_full_after_hours = 24 * 10;
  MustVacuum(s, o);
  EXPECT_TRUE(MustVacuum(s, o).skipped);
  // A crashed writer's file: no commit names it, so the log cannot see it ...
  s.Put("crashed_writer.parquet");
  s.Advance(9 * kDayMs);
  EXPECT_TRUE(MustVacuum(s, o).skipped);
  EXPECT_TRUE(s.Exists("crashed_writer.parquet"));
  // ... until the last full run is older than the bound.
  s.Advance(2 * kDayMs);
  auto forced = MustVacuum(s, o);
  EXPECT_FALSE(forced.skipped);
  EXPECT_FALSE(s.Exists("crashed_writer.parquet"));
}

TEST(DeltaVacuum, OptimisticRunsOnceAFileTooYoungForTheLastFullRunHasAged) {
  // A full run keeps a non-live file whose mtime is inside the retention: a removed file touched
  // since (its tombstone long expired), a stray just written. No later commit says anything
  // about it, so optimistic runs skipped until the force-full bound: log-named garbage stayed.
  DeltaScenario s("optimistic_young");
  s.Create();
  s.Add("a.parquet");
  s.Remove("a.parquet");
  s.Advance(8 * kDayMs);
  s.Stamp("a.parquet");  // touched: its mtime is now
  s.Put("young_stray.parquet");
  VacuumOptions o;
  o.optimistic = true;
  auto first = MustVacuum(s, o);  // no watermark yet: a full run
  EXPECT_FALSE(first.skipped);
  EXPECT_TRUE(s.Exists("a.parquet"));
  EXPECT_TRUE(s.Exists("young_stray.parquet"));
  s.Advance(kDayMs);
  EXPECT_TRUE(MustVacuum(s, o).skipped);  // both still younger than the cutoff
  s.Advance(7 * kDayMs);
  auto aged = MustVacuum(s, o);
  EXPECT_FALSE(aged.skipped) << aged.skip_reason;
  EXPECT_FALSE(s.Exists("a.parquet"));
  EXPECT_FALSE(s.Exists("young_stray.parquet"));
  EXPECT_TRUE(MustVacuum(s, o).skipped);  // nothing young was left
}

TEST(DeltaVacuum, LiteVacuumUsesTheLogAndPersistsTheWatermark) {
  DeltaScenario s("lite");
  s.Create();
  s.Add("a.parquet");
  s.Add("b.parquet");
  s.Remove("a.parquet");
  s.Put("orphan.parquet");  // untracked: lite never sees it
  s.Advance(8 * kDayMs);
  s.Remove("b.parquet");
  VacuumOptions lite;
  lite.mode = VacuumMode::kLite;
  auto r = MustVacuum(s, lite);
  EXPECT_EQ(r.files_listed, 0);
  EXPECT_EQ(r.mode, "lite");
  EXPECT_EQ(CandidatePaths(r), std::vector<std::string>{"a.parquet"});
  EXPECT_FALSE(s.Exists("a.parquet"));
  EXPECT_TRUE(s.Exists("b.parquet"));
  EXPECT_TRUE(s.Exists("orphan.parquet"));
  auto w = *vacuum::ReadVacuumWatermark(*s.storage());
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->latest_commit_version_outside_retention, 3);  // the remove of a.parquet
  auto raw = json::parse(*s.storage()->ReadString(vacuum::kLastVacuumInfoPath));
  EXPECT_EQ(raw["latestCommitVersionOutsideOfRetentionWindow"], 3);  // Spark's field
  s.Advance(8 * kDayMs);
  auto again = MustVacuum(s, lite);
  EXPECT_EQ(CandidatePaths(again), std::vector<std::string>{"b.parquet"});
  EXPECT_FALSE(s.Exists("b.parquet"));
}

TEST(DeltaVacuum, LiteDatesCommitsByTheirInCommitTimestamps) {
  // Spark's getActiveCommitAtTime: with in-commit timestamps on, a commit's time is its
  // commitInfo.inCommitTimestamp, not its file's mtime, which a copy or restore sets to "now".
  DeltaScenario s("lite_ict");
  json protocol = {{"minReaderVersion", 1}, {"minWriterVersion", 7}, {"writerFeatures", {"inCommitTimestamp"}}};
  s.Create({}, {{"delta.enableInCommitTimestamps", "true"}}, protocol);
  s.Add("a.parquet");
  s.Add("b.parquet");
  s.Remove("a.parquet");
  s.Advance(8 * kDayMs);
  s.Remove("b.parquet");  // within retention
  s.Advance(kDayMs);
  for (int64_t v = 0; v <= s.version(); ++v) s.Stamp(delta::DeltaLog::CommitPath(v));  // "copied": mtimes now
  VacuumOptions full;
  full.dry_run = true;
  VacuumOptions lite = full;
  lite.mode = VacuumMode::kLite;
  auto f = MustVacuum(s, full);
  auto l = MustVacuum(s, lite);
  EXPECT_EQ(CandidatePaths(f), std::vector<std::string>{"a.parquet"});
  EXPECT_EQ(CandidatePaths(l), CandidatePaths(f));
  lite.dry_run = false;
  MustVacuum(s, lite);
  EXPECT_FALSE(s.Exists("a.parquet"));
  EXPECT_TRUE(s.Exists("b.parquet"));
  EXPECT_EQ((*vacuum::ReadVacuumWatermark(*s.storage()))->latest_commit_version_outside_retention, 3);
}

TEST(DeltaVacuum, LiteRefusesACommitWithoutItsInCommitTimestamp) {
  DeltaScenario s("lite_ict_missing");
  json protocol = {{"minReaderVersion", 1}, {"minWriterVersion", 7}, {"writerFeatures", {"inCommitTimestamp"}}};
  s.Create({}, {{"delta.enableInCommitTimestamps", "true"}}, protocol);
  s.Add("a.parquet");
  s.CommitRaw(R"({"commitInfo":{"timestamp":1,"operation":"WRITE"}})" "\n" R"({"remove":{"path":"a.parquet","deletionTimestamp":1,"dataChange":true}})" "\n");
  s.Advance(8 * kDayMs);
  VacuumOptions lite;
  lite.mode = VacuumMode::kLite;
  auto r = s.Vacuum(lite);
  EXPECT_TRUE(IsError(r.status(), ErrorKind::kCorruptMetadata)) << r.status();
  EXPECT_TRUE(s.Exists("a.parquet"));
}

TEST(DeltaVacuum, InCommitTimestampsTurnedOnLaterDateOnlyTheCommitsSinceTheirEnablement) {
  // Spark records the version in-commit timestamps were turned on at in the metaData of a JSON
  // commit; the parser kept only the properties it listed, so the older commits (without one)
  // were taken for corrupt and every lite or real vacuum of the valid table failed.
  DeltaScenario s("ict_later");
  s.Create();
  s.Add("a.parquet");
  s.Remove("a.parquet");
  s.Advance(8 * kDayMs);
  json protocol = {{"minReaderVersion", 1}, {"minWriterVersion", 7}, {"writerFeatures", {"inCommitTimestamp"}}};
  const int64_t enabled_at = s.version() + 1;
  json metadata = {{"id", "t"},
                   {"format", {{"provider", "parquet"}, {"options", json::object()}}},
                   {"schemaString", R"({"type":"struct","fields":[]})"},
                   {"partitionColumns", json::array()},
                   {"configuration",
                    {{"delta.enableInCommitTimestamps", "true"},
                     {"delta.inCommitTimestampEnablementVersion", std::to_string(enabled_at)},
                     {"delta.inCommitTimestampEnablementTimestamp", std::to_string(s.clock()->NowMs())}}}};
  s.CommitRaw(json{{"commitInfo", {{"inCommitTimestamp", s.clock()->NowMs()}, {"timestamp", s.clock()->NowMs()},
                                   {"operation", "SET TBLPROPERTIES"}}}}.dump() + "\n" +
              json{{"protocol", protocol}}.dump() + "\n" + json{{"metaData", metadata}}.dump() + "\n");
  s.Advance(kDayMs);
  VacuumOptions lite;
  lite.mode = VacuumMode::kLite;
  auto r = s.Vacuum(lite);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(CandidatePaths(*r), std::vector<std::string>{"a.parquet"});
  EXPECT_FALSE(s.Exists("a.parquet"));
}

TEST(DeltaVacuum, LiteRefusesWhenTheLogWasCleanedUp) {
  DeltaScenario s("lite_cleaned");
  s.Create();
  s.Add("a.parquet");
  s.Checkpoint();
  s.Add("b.parquet");
  std::filesystem::remove(s.root() + "/" + delta::DeltaLog::CommitPath(0));
  s.Advance(8 * kDayMs);
  VacuumOptions lite;
  lite.mode = VacuumMode::kLite;
  auto r = s.Vacuum(lite);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("full vacuum"), std::string::npos) << r.status();
}

TEST(DeltaVacuum, InventoryReplacesListing) {
  DeltaScenario s("inventory");
  s.Create();
  s.Add("live.parquet");
  s.Put("orphan1.parquet", 5);
  s.Put("orphan2.parquet", 6);
  s.Advance(8 * kDayMs);
  std::string inv = s.root() + "_inventory.csv";
  {
    std::ofstream out(inv);
    int64_t old = s.now() - 8 * kDayMs;
    out << "path,length,isDir,modificationTime\n";
    out << "file://" << s.root() << "/orphan1.parquet,5,false," << old << "\n";
    out << "live.parquet,10,false," << old << "\n";
    out << "_delta_log/00000000000000000000.json,10,false," << old << "\n";
    out << "file:///elsewhere/x.parquet,10,false," << old << "\n";
  }
  VacuumOptions o;
  o.inventory = inv;
  auto r = MustVacuum(s, o);
  EXPECT_EQ(r.files_listed, 2);
  EXPECT_EQ(CandidatePaths(r), std::vector<std::string>{"orphan1.parquet"});
  EXPECT_FALSE(s.Exists("orphan1.parquet"));
  EXPECT_TRUE(s.Exists("orphan2.parquet"));  // not in the inventory
  EXPECT_TRUE(s.Exists("live.parquet"));
  std::filesystem::remove(inv);
}

TEST(DeltaVacuum, AnInventoryWithANegativeLengthOrTimeIsRefusedAndNothingIsDeleted) {
  // A negative size would be reported as deleted bytes below zero; a negative time would make
  // any file old. Neither is a file's: the inventory is refused, naming it and the row.
  for (const char* bad : {"-5,false,OLD", "5,false,-1"}) {
    DeltaScenario s(std::string("inventory_negative") + (bad[0] == '-' ? "_length" : "_time"));
    s.Create();
    s.Put("orphan.parquet", 5);
    s.Advance(8 * kDayMs);
    std::string inv = s.root() + "_inventory.csv";
    {
      std::string row = bad;
      row.replace(row.find("OLD") == std::string::npos ? row.size() : row.find("OLD"),
                  row.find("OLD") == std::string::npos ? 0 : 3, std::to_string(s.now() - 8 * kDayMs));
      std::ofstream out(inv);
      out << "path,length,isDir,modificationTime\n";
      out << "orphan.parquet," << row << "\n";
    }
    VacuumOptions o;
    o.inventory = inv;
    auto r = s.Vacuum(o);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("inventory '" + inv + "'"), std::string::npos) << r.status();
    EXPECT_NE(r.status().message().find("row 1 ('orphan.parquet') has a negative"), std::string::npos) << r.status();
    EXPECT_TRUE(s.Exists("orphan.parquet")) << bad;
    std::filesystem::remove(inv);
  }
}

void BuildCrashTable(DeltaScenario& s) {
  s.Create({"p"});
  for (int i = 0; i < 4; ++i) s.Add("p=" + std::to_string(i) + "/live.parquet");
  s.Add("p=0/removed.parquet");
  s.Remove("p=0/removed.parquet");
  for (int i = 0; i < 8; ++i) s.Put("p=" + std::to_string(i % 4) + "/orphan" + std::to_string(i) + ".parquet");
  s.Put("q=9/only_orphan.parquet");
  s.Advance(8 * kDayMs);
}

void ExpectConverged(DeltaScenario& s, const std::string& label) {
  for (int i = 0; i < 8; ++i) {
    EXPECT_FALSE(s.Exists("p=" + std::to_string(i % 4) + "/orphan" + std::to_string(i) + ".parquet")) << label;
  }
  EXPECT_FALSE(s.Exists("p=0/removed.parquet")) << label;
  EXPECT_FALSE(s.Exists("q=9")) << label;
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(s.Exists("p=" + std::to_string(i) + "/live.parquet")) << label;
}

TEST(DeltaVacuum, CrashAtEveryMutationThenRerunConverges) {
  VacuumOptions o;
  o.delete_batch_size = 2;
  int64_t n = 0;
  {
    DeltaScenario s("crash_count");
    BuildCrashTable(s);
    o.clock = s.clock();
    auto counting = *FaultInjectionStorage::Make(s.storage(), 0, FaultMode::kCrash);
    ASSERT_TRUE(Vacuum(counting, o).ok());
    n = counting->mutating_calls();
    ExpectConverged(s, "no crash");
  }
  ASSERT_GE(n, 8);  // START, 6 delete batches, folders, END, watermark
  for (int64_t k = 1; k <= n; ++k) {
    DeltaScenario s("crash" + std::to_string(k));
    BuildCrashTable(s);
    o.clock = s.clock();
    auto crashing = *FaultInjectionStorage::Make(s.storage(), k, FaultMode::kCrash);
    auto crashed = Vacuum(crashing, o);
    EXPECT_FALSE(crashed.ok()) << k;
    EXPECT_TRUE(crashing->crashed()) << k;
    // The restarted process: the table still reads, live files are all there ...
    auto log = delta::DeltaLog::Open(s.storage(), Engine::Default());
    ASSERT_TRUE(log.ok()) << k << ": " << log.status();
    ASSERT_TRUE((*log)->LoadSnapshot().ok()) << k;
    for (int i = 0; i < 4; ++i) EXPECT_TRUE(s.Exists("p=" + std::to_string(i) + "/live.parquet")) << k;
    // ... and a rerun finishes the job.
    auto rerun = MustVacuum(s, o);
    ExpectConverged(s, "crash at " + std::to_string(k));
    EXPECT_EQ(MustVacuum(s, DryRun()).candidates.size(), 0u) << k;
  }
}

TEST(DeltaVacuum, FilesAlreadyGoneAreNotCountedAsDeleted) {
  DeltaScenario s("already_gone");
  s.Create();
  s.Put("orphan1.parquet", 5);
  s.Put("orphan2.parquet", 6);
  s.Advance(8 * kDayMs);
  class VanishingStorage : public testing::PassThroughStorage {
   public:
    using testing::PassThroughStorage::PassThroughStorage;
    Result<DeleteOutcome> DeleteFiles(const std::vector<std::string>& p) override {
      (void)inner_->DeleteFiles({"orphan1.parquet"});  // someone else got there first
      return inner_->DeleteFiles(p);
    }
  };
  auto storage = std::make_shared<VanishingStorage>(s.storage());
  VacuumOptions o;
  o.clock = s.clock();
  auto r = Vacuum(storage, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->candidates.size(), 2u);
  EXPECT_EQ(r->files_deleted, 1);
  EXPECT_EQ(r->bytes_deleted, 6);
}

TEST(DeltaVacuum, HiddenRule) {
  std::vector<std::string> parts = {"p", "_q"};
  EXPECT_TRUE(vacuum::IsHiddenName("_delta_log", parts, false, false));
  EXPECT_TRUE(vacuum::IsHiddenName(".x", parts, false, false));
  EXPECT_TRUE(vacuum::IsHiddenName("_tmp", parts, false, false));
  EXPECT_FALSE(vacuum::IsHiddenName("_change_data", parts, false, false));
  EXPECT_FALSE(vacuum::IsHiddenName("_delta_index", parts, false, false));
  EXPECT_FALSE(vacuum::IsHiddenName("_q=1", parts, false, false));
  EXPECT_TRUE(vacuum::IsHiddenName("_qq=1", parts, false, false));
  EXPECT_FALSE(vacuum::IsHiddenName("metadata", parts, false, false));
  EXPECT_TRUE(vacuum::IsHiddenName("metadata", parts, true, false));
  // A name shaped as our staged writes is a user's hidden folder in a Delta table (found by
  // outside testing: `.backup.tmp.2024.06.01/` was a candidate); in a Hudi table it is ours.
  const std::string staged_file = ".f.parquet" + std::string(kStagedFileMarker) + "1.2.3";
  const std::string staged_folder = ".q=2" + std::string(kStagedFolderMarker) + "1.2.3";
  const std::string backup = ".backup" + std::string(kStagedFileMarker) + "2024.06.01";
  EXPECT_TRUE(vacuum::IsHiddenName(backup, parts, false, false));
  EXPECT_FALSE(vacuum::IsHiddenName(backup, parts, false, true));
  vacuum::VisibilityRule rule{parts, true};
  EXPECT_TRUE(rule.IsHidden("p=1/_tmp/x"));
  EXPECT_FALSE(rule.IsHidden("p=1/metadata/x"));
  EXPECT_TRUE(rule.IsHidden("metadata/x"));
  EXPECT_TRUE(rule.IsHidden("p=1/" + staged_file));
  // A Hudi table's rule: a staged file, or a staged folder, is visible; a folder merely shaped
  // as a staged file's name is the user's, hidden (it was a candidate), and so is a file named
  // as staged writes were before they carried Lakeshore's word (a user's was reaped).
  vacuum::VisibilityRule hudi{parts, false, false, /*staged_writes=*/true};
  EXPECT_FALSE(hudi.IsHidden("p=1/" + staged_file));
  EXPECT_FALSE(hudi.IsHidden("p=1/" + staged_folder + "/.f.parquet" + std::string(kStagedFileMarker) + "1.2.4"));
  EXPECT_TRUE(hudi.IsHidden(backup + "/precious.parquet"));
  EXPECT_TRUE(hudi.IsHidden("p=1/" + backup + "/precious.parquet"));
  EXPECT_TRUE(hudi.IsHidden("p=1/.export.tmp.1.2.3"));
  EXPECT_TRUE(hudi.IsHidden("p=1/.q=2.tmp.dir.1.2.3/precious.parquet"));
}

/// A fresh local folder `name` under the temp folder holding `files` (each "xyz"), opened as
/// storage, and a 3-worker engine to list it with.
struct ListingTree {
  std::filesystem::path dir;
  std::shared_ptr<Storage> storage;
  std::shared_ptr<Engine> engine;
  ListingTree(const std::string& name, std::initializer_list<const char*> files)
      : dir(std::filesystem::temp_directory_path() / name) {
    std::filesystem::remove_all(dir);
    for (const char* f : files) {
      std::filesystem::create_directories((dir / f).parent_path());
      std::ofstream(dir / f) << "xyz";
    }
    auto opened = Storage::Open(dir.string());
    auto made = Engine::MakeThreadPool(3);
    if (opened.ok()) storage = *opened;
    if (made.ok()) engine = *made;
  }
  ~ListingTree() { std::filesystem::remove_all(dir); }
};

TEST(DeltaVacuum, ListingComesInPathOrderAcrossFolderNamesThatPrefixEachOther) {
  // "p=1-x" sorts before "p=1/..." ('-' < '/'), so folders cannot simply be walked in name order.
  ListingTree tree("lakeshore_listing_order", {"p=1/b", "p=1/a", "p=1/q=2/z", "p=1/q=10/y", "p=1-x/c", "p=10/d",
                                               "a", "p=1.txt", "_hidden/e", "p=0/_tmp/f"});
  ASSERT_TRUE(tree.storage && tree.engine);
  auto listed = vacuum::ListVisibleFiles(*tree.storage, *tree.engine, vacuum::VisibilityRule{{"p"}, false}, {});
  ASSERT_TRUE(listed.ok()) << listed.status();
  std::vector<std::string> files;
  for (const auto& e : *listed) {
    if (!e.is_dir) files.push_back(e.path);
  }
  EXPECT_EQ(files, (std::vector<std::string>{"a", "p=1-x/c", "p=1.txt", "p=1/a", "p=1/b", "p=1/q=10/y",
                                             "p=1/q=2/z", "p=10/d"}));
  EXPECT_TRUE(std::is_sorted(files.begin(), files.end()));
}

TEST(DeltaVacuum, ListingCountsButDropsFilesListedWithoutDetails) {
  // Files the caller needs no details of (in use) are counted, not returned; the others come
  // with their size and mtime, in path order; hidden files are neither.
  ListingTree tree("lakeshore_listing_skips", {"p=1/live-a", "p=1/stray-b", "p=1/live-c", "p=2/stray-a",
                                               "p=2/live-b", "top-live", "_delta_log/0.json", "p=2/_tmp/x"});
  ASSERT_TRUE(tree.storage && tree.engine);
  auto needs = [](std::string_view path) { return path.find("live") == std::string_view::npos; };
  int64_t without_details = -1;
  auto listed = vacuum::ListVisibleFiles(*tree.storage, *tree.engine, vacuum::VisibilityRule{{"p"}, false}, {},
                                         needs, &without_details);
  ASSERT_TRUE(listed.ok()) << listed.status();
  std::vector<std::string> files;
  for (const auto& e : *listed) {
    if (e.is_dir) continue;
    files.push_back(e.path);
    EXPECT_EQ(e.size, 3) << e.path;
    EXPECT_GT(e.mtime_ms, 0) << e.path;
  }
  // "top-live" is a top-level file, listed with the root's details; the folders' live files go.
  EXPECT_EQ(files, (std::vector<std::string>{"p=1/stray-b", "p=2/stray-a", "top-live"}));
  EXPECT_EQ(without_details, 3);
}

TEST(DeltaVacuum, ANestedTableIsSeenEvenWhenItsMarkersAreInUse) {
  // The files that tell a nested table are never left out of the listing, even when the caller
  // says it needs no details of them (a log naming another table's log or properties as its
  // own): the nested tables' files must still never be this table's strays.
  ListingTree tree("lakeshore_listing_nested_in_use",
                   {"p=1/sub/_delta_log/00000000000000000000.json", "p=1/sub/d.parquet", "p=1/own",
                    "p=2/h/.hoodie/hoodie.properties", "p=2/h/x.parquet", "p=2/stray"});
  ASSERT_TRUE(tree.storage && tree.engine);
  auto needs = [](std::string_view path) {
    return path.find("_delta_log") == std::string_view::npos && path.find("hoodie.properties") == std::string_view::npos;
  };
  int64_t without_details = 0;
  auto listed = vacuum::ListVisibleFiles(*tree.storage, *tree.engine, vacuum::VisibilityRule{{"p"}, false}, {},
                                         needs, &without_details);
  ASSERT_TRUE(listed.ok()) << listed.status();
  std::vector<std::string> files;
  for (const auto& e : *listed) {
    if (!e.is_dir) files.push_back(e.path);
  }
  EXPECT_EQ(files, (std::vector<std::string>{"p=1/own", "p=2/stray"}));
  EXPECT_EQ(without_details, 0);
  // Files of a nested table that the caller says are in use are not counted as this table's
  // either, nor are hidden ones; this table's own files in use are.
  auto in_use = [](std::string_view path) {
    return !(path.find("/sub/") != std::string_view::npos || path.find("/h/") != std::string_view::npos ||
             path == "p=1/own" || path == "p=1/_tmp/live");
  };
  ListingTree more("lakeshore_listing_nested_counts",
                   {"p=1/sub/_delta_log/00000000000000000000.json", "p=1/sub/d.parquet", "p=1/sub/e.parquet",
                    "p=1/own", "p=1/_tmp/live", "p=2/h/.hoodie/hoodie.properties", "p=2/h/x.parquet", "p=2/stray"});
  ASSERT_TRUE(more.storage && more.engine);
  without_details = 0;
  listed = vacuum::ListVisibleFiles(*more.storage, *more.engine, vacuum::VisibilityRule{{"p"}, false}, {}, in_use,
                                    &without_details);
  ASSERT_TRUE(listed.ok()) << listed.status();
  files.clear();
  for (const auto& e : *listed) {
    if (!e.is_dir) files.push_back(e.path);
  }
  EXPECT_EQ(files, (std::vector<std::string>{"p=2/stray"}));
  EXPECT_EQ(without_details, 1);  // p=1/own
}

TEST(DeltaVacuum, SortByPathSortsWhatIsNotSorted) {
  std::vector<VacuumCandidate> c = {{"b", 1}, {"a", 2}, {"c", 3}};
  vacuum::SortByPath(c);
  EXPECT_EQ(c[0].path, "a");
  EXPECT_EQ(c[0].size, 2);
  EXPECT_EQ(c[2].path, "c");
}

TEST(DeltaVacuum, ReportJsonHasExactlyTheDocumentedFields) {
  VacuumReport r;
  r.format = "delta";
  r.candidates = {{"a", 1}};
  auto doc = nlohmann::ordered_json::parse(VacuumReportToJson(r));
  std::vector<std::string> keys;
  for (auto& [k, v] : doc.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"format", "mode", "dry_run", "skipped", "skip_reason",
                                            "files_listed", "files_deleted", "bytes_deleted",
                                            "dirs_deleted", "files_refused", "candidates", "time_to_identify_ms",
                                            "time_to_delete_ms"}));
}

TEST(DeltaVacuum, FormatDetection) {
  auto dir = std::filesystem::temp_directory_path() / "lakeshore_vacuum_not_a_table";
  std::filesystem::create_directories(dir);
  auto r = Vacuum(dir.string(), {});
  EXPECT_TRUE(r.status().IsInvalid()) << r.status();
  std::filesystem::create_directories(dir / ".hoodie");
  r = Vacuum(dir.string(), {});
  EXPECT_FALSE(r.ok());  // a Hudi table folder without its hoodie.properties
  EXPECT_NE(r.status().message().find("hoodie.properties"), std::string::npos) << r.status();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace lakeshore

namespace lakeshore {
namespace {

TEST(DeltaVacuum, WorksOnTheMemoryBackend) {
  auto clock = std::make_shared<ManualClock>(1'700'000'000'000);
  StorageOptions so;
  so.clock = clock;
  auto storage = *Storage::Open("mem://vacuum_memory_backend/t", so);
  json protocol = {{"protocol", {{"minReaderVersion", 1}, {"minWriterVersion", 2}}}};
  json meta = {{"metaData", {{"id", "m"}, {"partitionColumns", {"p"}}, {"configuration", json::object()}}}};
  ASSERT_TRUE(storage->WriteString("_delta_log/00000000000000000000.json", protocol.dump() + "\n" + meta.dump() + "\n").ok());
  ASSERT_TRUE(storage->WriteString("p=1/live.parquet", "x").ok());
  ASSERT_TRUE(storage->WriteString("p=1/orphan.parquet", "xx").ok());
  ASSERT_TRUE(storage->WriteString("p=2/_tmp/hidden.parquet", "x").ok());
  json add = {{"add", {{"path", "p=1/live.parquet"}, {"size", 1}, {"modificationTime", 1}, {"dataChange", true}}}};
  ASSERT_TRUE(storage->WriteString("_delta_log/00000000000000000001.json", add.dump() + "\n").ok());
  clock->Advance(8 * kDayMs);
  ASSERT_TRUE(storage->WriteString("p=2/young.parquet", "x").ok());
  VacuumOptions o;
  o.clock = clock;
  auto r = Vacuum(storage, o);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->candidates.size(), 1u);
  EXPECT_EQ(r->candidates[0].path, "p=1/orphan.parquet");
  EXPECT_EQ(r->files_deleted, 1);
  EXPECT_FALSE(*storage->Exists("p=1/orphan.parquet"));
  EXPECT_TRUE(*storage->Exists("p=1/live.parquet"));
  EXPECT_TRUE(*storage->Exists("p=2/_tmp/hidden.parquet"));
  EXPECT_TRUE(*storage->Exists("p=2/young.parquet"));
  o.optimistic = true;
  auto again = Vacuum(storage, o);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->skipped) << again->skip_reason;
}

}  // namespace
}  // namespace lakeshore
