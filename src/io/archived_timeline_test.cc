#include "io/archived_timeline.h"

#include <arrow/api.h>
#include <arrow/io/memory.h>
#include <gtest/gtest.h>
#include <parquet/arrow/writer.h>

#include "testing/status_test_util.h"

namespace lakeshore {
namespace {

constexpr const char* kHistory = ".hoodie/timeline/history";

/// A completed commit's Avro bytes, as its active instant file held them.
std::string CommitBytes(const std::string& time, const std::string& file) {
  CommitMetadata m;
  m.operation = "upsert";
  WriteStat stat;
  stat.partition = "p";
  stat.file_id = "f" + time;
  stat.path = "p/" + file;
  stat.num_records = 1;
  stat.num_inserts = 1;
  stat.file_size = 10;
  m.write_stats.push_back(stat);
  auto bytes = InstantCodec{TimelineLayout::kV2, ""}.Encode(Instant{time, actions::kCommit, InstantState::kCompleted, ""}, m);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return *bytes;
}

/// One LSM data file with Hudi's six columns (rows: time, completion or null, action, metadata).
void WriteDataFile(Storage& storage, const std::string& name,
                   const std::vector<std::tuple<std::string, std::optional<std::string>, std::string, std::string>>& rows) {
  arrow::StringBuilder times, completions, actions_builder;
  arrow::BinaryBuilder metadata, plan;
  arrow::Int32Builder version;
  for (const auto& [t, c, a, m] : rows) {
    ASSERT_OK(times.Append(t));
    ASSERT_OK(c ? completions.Append(*c) : completions.AppendNull());
    ASSERT_OK(actions_builder.Append(a));
    ASSERT_OK(metadata.Append(m));
    ASSERT_OK(plan.AppendNull());
    ASSERT_OK(version.Append(1));
  }
  std::vector<std::shared_ptr<arrow::Array>> columns(6);
  ASSERT_OK(times.Finish(&columns[0]));
  ASSERT_OK(completions.Finish(&columns[1]));
  ASSERT_OK(actions_builder.Finish(&columns[2]));
  ASSERT_OK(metadata.Finish(&columns[3]));
  ASSERT_OK(plan.Finish(&columns[4]));
  ASSERT_OK(version.Finish(&columns[5]));
  auto schema = arrow::schema({arrow::field("instantTime", arrow::utf8()), arrow::field("completionTime", arrow::utf8()),
                               arrow::field("action", arrow::utf8()), arrow::field("metadata", arrow::binary()),
                               arrow::field("plan", arrow::binary()), arrow::field("version", arrow::int32(), false)});
  auto table = arrow::Table::Make(schema, columns);
  auto sink = *arrow::io::BufferOutputStream::Create();
  ASSERT_OK(parquet::arrow::WriteTable(*table, arrow::default_memory_pool(), sink, 1024));
  ASSERT_OK(storage.WriteFile(JoinPath(kHistory, name), *sink->Finish()));
}

std::string Manifest(const std::vector<std::string>& files) {
  std::string out = "{\n  \"files\" : [ ";
  for (size_t i = 0; i < files.size(); ++i) {
    out += (i ? ", " : "") + std::string("{\n    \"fileName\" : \"") + files[i] + "\",\n    \"fileLen\" : 100\n  }";
  }
  return out + " ]\n}";
}

TEST(ArchivedTimeline, ReadsTheLatestManifestsFilesAndNothingElse) {
  auto storage = *Storage::Open("mem://archived_timeline_read");
  auto engine = Engine::Default();
  // Nothing archived yet: empty, and no error.
  ASSERT_OK_AND_ASSIGN(auto none, ReadArchivedTimeline(*storage, kHistory, *engine));
  EXPECT_TRUE(none.empty());
  WriteDataFile(*storage, "20250101000000000_20250101000100000_0.parquet",
                {{"20250101000000000", "20250101000000500", "commit", CommitBytes("20250101000000000", "a.parquet")},
                 {"20250101000100000", std::nullopt, "clean", ""}});
  WriteDataFile(*storage, "20250101000200000_20250101000200000_0.parquet",
                {{"20250101000200000", "20250101000200900", "commit", CommitBytes("20250101000200000", "b.parquet")}});
  // A file no manifest names (a crashed archival) is not part of the timeline.
  WriteDataFile(*storage, "20250101000300000_20250101000300000_0.parquet",
                {{"20250101000300000", "20250101000300100", "commit", CommitBytes("20250101000300000", "c.parquet")}});
  ASSERT_OK(storage->WriteString(JoinPath(kHistory, "manifest_1"), Manifest({"20250101000000000_20250101000100000_0.parquet"})));
  ASSERT_OK(storage->WriteString(JoinPath(kHistory, "manifest_2"),
                                 Manifest({"20250101000000000_20250101000100000_0.parquet",
                                           "20250101000200000_20250101000200000_0.parquet"})));
  ASSERT_OK(storage->WriteString(JoinPath(kHistory, "_version_"), "2"));
  ArchivedTimelineVersion version;
  ASSERT_OK_AND_ASSIGN(auto archived, ReadArchivedTimeline(*storage, kHistory, *engine, &version));
  EXPECT_EQ(version.manifest, 2);
  ASSERT_EQ(archived.size(), 3u);
  EXPECT_EQ(archived[0].instant.completion_time, "20250101000000500");
  EXPECT_EQ(archived[1].instant.action, "clean");
  EXPECT_EQ(archived[1].instant.completion_time, "20250101000100000");  // none stored: the instant time
  EXPECT_TRUE(archived[2].instant.is_completed());

  // Decoded as active instant files are, and merged before the active commits.
  ArchivedCommits commits;
  ASSERT_OK_AND_ASSIGN(auto decoded, commits.Load(*storage, kHistory, *engine, InstantCodec{TimelineLayout::kV2, ""}));
  ASSERT_EQ(decoded.size(), 3u);
  ASSERT_EQ(decoded[0].metadata.write_stats.size(), 1u);
  EXPECT_EQ(decoded[0].metadata.write_stats[0].path, "p/a.parquet");
  CompletedCommit active{Instant{"20250101000200000", "commit", InstantState::kCompleted, "20250101000200900"}, {}};
  auto merged = WithArchivedCommits(decoded, {active});
  ASSERT_EQ(merged.size(), 3u);  // the instant in both is kept once, as its active copy
  EXPECT_TRUE(merged[2].metadata.write_stats.empty());

  // `_version_` missing or unreadable (a writer replacing it): the highest manifest.
  ASSERT_OK(storage->WriteString(JoinPath(kHistory, "_version_"), "garbage"));
  ASSERT_OK_AND_ASSIGN(auto fallback, LatestArchivedVersion(*storage, kHistory));
  EXPECT_EQ(fallback.manifest, 2);
  ASSERT_OK(storage->DeleteFiles({JoinPath(kHistory, "_version_")}).status());
  ASSERT_OK_AND_ASSIGN(fallback, LatestArchivedVersion(*storage, kHistory));
  EXPECT_EQ(fallback.manifest, 2);
}

TEST(ArchivedTimeline, DamageIsACleanErrorNamingTheFile) {
  auto storage = *Storage::Open("mem://archived_timeline_damage");
  auto engine = Engine::Default();
  ASSERT_OK(storage->WriteString(JoinPath(kHistory, "_version_"), "1"));
  for (const std::string& manifest :
       {std::string("{\"files\": 7}"), std::string("[1,2]"), std::string("{\"files\":[{\"fileLen\":3}]}"),
        std::string("{\"files\":[{\"fileName\":\"../../p/a.parquet\"}]}"), std::string("{\"files\":[{\"fileName\":")}) {
    ASSERT_OK(storage->WriteString(JoinPath(kHistory, "manifest_1"), manifest));
    auto r = ReadArchivedTimeline(*storage, kHistory, *engine);
    EXPECT_TRUE(IsError(r.status(), ErrorKind::kCorruptMetadata)) << manifest << " " << r.status();
    if (!r.ok()) EXPECT_NE(r.status().message().find("manifest_1"), std::string::npos) << r.status();
  }
  // A named data file that is truncated, or whose rows are not instants.
  ASSERT_OK(storage->WriteString(JoinPath(kHistory, "manifest_1"), Manifest({"1_2_0.parquet"})));
  ASSERT_OK(storage->WriteString(JoinPath(kHistory, "1_2_0.parquet"), "PAR1 not really"));
  auto truncated = ReadArchivedTimeline(*storage, kHistory, *engine);
  EXPECT_TRUE(IsError(truncated.status(), ErrorKind::kCorruptMetadata)) << truncated.status();
  WriteDataFile(*storage, "1_2_0.parquet", {{"not-a-time", "x", "commit", ""}});
  auto rows = ReadArchivedTimeline(*storage, kHistory, *engine);
  EXPECT_TRUE(IsError(rows.status(), ErrorKind::kCorruptMetadata)) << rows.status();
  // Damaged commit bytes inside a good file: named when decoded.
  WriteDataFile(*storage, "1_2_0.parquet", {{"20250101000000000", "20250101000000001", "commit", "Obj\x01garbage"}});
  ArchivedCommits commits;
  auto decoded = commits.Load(*storage, kHistory, *engine, InstantCodec{TimelineLayout::kV2, ""});
  EXPECT_TRUE(IsError(decoded.status(), ErrorKind::kCorruptMetadata)) << decoded.status();
}

}  // namespace
}  // namespace lakeshore
