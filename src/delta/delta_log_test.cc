#include <algorithm>

#include <gtest/gtest.h>

#include "common/percent_encoding.h"
#include "delta/paths.h"
#include "lakeshore/delta/delta_log.h"
#include "testing/delta_scenario.h"
#include "testing/pass_through_storage.h"

namespace lakeshore::delta {
namespace {

using lakeshore::testing::DeltaScenario;
using lakeshore::testing::DvJson;
using nlohmann::json;

TEST(DeltaPaths, DeletionVectorFromProtocolExample) {
  // PROTOCOL.md "JSON Example 1": prefix "ab", UUID d2c639aa-8816-431a-aaf6-d3fe2512ff61.
  DeletionVectorDescriptor dv{"u", "ab^-aqEH.-t@S}K{vb[*k^", 4, 40, 6};
  auto path = DeletionVectorPath(dv, "s3://bucket/mytable");
  ASSERT_TRUE(path.ok()) << path.status();
  EXPECT_EQ(**path, "ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin");
  EXPECT_EQ(dv.UniqueId(), "uab^-aqEH.-t@S}K{vb[*k^@4");
}

TEST(DeltaPaths, DeletionVectorStorageTypes) {
  std::string z = lakeshore::testing::Z85Uuid("0c6cbaaf-5e04-4c9d-8959-1088814f58ef");
  auto u = DeletionVectorPath({"u", z, std::nullopt, 1, 1}, "file:///t");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(**u, "deletion_vector_0c6cbaaf-5e04-4c9d-8959-1088814f58ef.bin");
  auto p = DeletionVectorPath({"p", "file:///t/dv%20dir/x.bin", 1, 1, 1}, "file:///t");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(**p, "dv dir/x.bin");
  auto outside = DeletionVectorPath({"p", "file:///elsewhere/x.bin", 1, 1, 1}, "file:///t");
  EXPECT_TRUE(IsError(outside.status(), ErrorKind::kPathOutsideTable));
  auto inline_dv = DeletionVectorPath({"i", "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L", std::nullopt, 40, 6}, "file:///t");
  ASSERT_TRUE(inline_dv.ok());
  EXPECT_FALSE(inline_dv->has_value());
  auto bad = DeletionVectorPath({"u", "short", std::nullopt, 1, 1}, "file:///t");
  EXPECT_TRUE(IsError(bad.status(), ErrorKind::kCorruptMetadata));
  auto unknown = DeletionVectorPath({"x", z, std::nullopt, 1, 1}, "file:///t");
  EXPECT_TRUE(IsError(unknown.status(), ErrorKind::kCorruptMetadata));
}

TEST(DeltaPaths, PercentDecodeAndRelativize) {
  EXPECT_EQ(*PercentDecode("p=a%253Ab%20c/f.parquet"), "p=a%3Ab c/f.parquet");
  EXPECT_FALSE(PercentDecode("bad%2").ok());
  EXPECT_FALSE(PercentDecode("bad%zz").ok());
  EXPECT_EQ(*RelativizeToTable("a/b.parquet", "file:///t"), "a/b.parquet");
  EXPECT_EQ(*RelativizeToTable("file:/t/a/b.parquet", "file:///t"), "a/b.parquet");
  EXPECT_EQ(*RelativizeToTable("/t/a/b.parquet", "file:///t"), "a/b.parquet");
  EXPECT_EQ(*RelativizeToTable("s3://b/t/a.parquet", "s3://b/t"), "a.parquet");
  EXPECT_TRUE(IsError(RelativizeToTable("s3://b/t2/a.parquet", "s3://b/t").status(), ErrorKind::kPathOutsideTable));
  // Our S3 root URIs carry options in a query string; writers may use the s3a alias.
  EXPECT_EQ(*RelativizeToTable("s3://b/t/p=1/a.parquet", "s3://b/t?region=us-east-1&endpoint_override=h:1&scheme=http"),
            "p=1/a.parquet");
  EXPECT_EQ(*RelativizeToTable("s3a://b/t/a.parquet", "s3://b/t?region=us-east-1"), "a.parquet");
  EXPECT_TRUE(IsError(RelativizeToTable("s3://b/t2/a.parquet", "s3://b/t?region=x").status(), ErrorKind::kPathOutsideTable));
  // A scheme we cannot compare is refused (a vacuum then deletes nothing), never "outside".
  EXPECT_TRUE(IsError(RelativizeToTable("abfss://c@acct/t/a.parquet", "s3://b/t").status(), ErrorKind::kUnsupportedFeature));
  EXPECT_TRUE(IsError(RelativizeToTable("../x.parquet", "file:///t").status(), ErrorKind::kPathOutsideTable));
  EXPECT_TRUE(IsError(RelativizeToTable("/tt/x.parquet", "file:///t").status(), ErrorKind::kPathOutsideTable));
}

TEST(DeltaProperties, ParsesIntervals) {
  EXPECT_EQ(*ParseIntervalMs("interval 7 days"), 7LL * 24 * 3600 * 1000);
  EXPECT_EQ(*ParseIntervalMs("interval 1 week"), 7LL * 24 * 3600 * 1000);
  EXPECT_EQ(*ParseIntervalMs("INTERVAL 1 day 2 hours"), 26LL * 3600 * 1000);
  EXPECT_EQ(*ParseIntervalMs("interval 30 seconds"), 30000);
  EXPECT_FALSE(ParseIntervalMs("interval 1 month").ok());
  EXPECT_FALSE(ParseIntervalMs("interval seven days").ok());
  EXPECT_FALSE(ParseIntervalMs("interval 7").ok());
  // Below a millisecond: summed in their own unit, then rounded up (a longer retention keeps
  // more). They were each read as zero: seven days in microseconds deleted what version 0 needed.
  EXPECT_EQ(*ParseIntervalMs("interval 604800000000 microseconds"), 7LL * 24 * 3600 * 1000);
  EXPECT_EQ(*ParseIntervalMs("interval 604800000000000 nanoseconds"), 7LL * 24 * 3600 * 1000);
  EXPECT_EQ(*ParseIntervalMs("interval 1 microsecond"), 1);
  EXPECT_EQ(*ParseIntervalMs("interval 1 second 500 microseconds 500 microseconds"), 1001);
  EXPECT_EQ(*ParseIntervalMs("interval 1500 nanoseconds"), 1);
}

Result<DeltaSnapshot> Load(DeltaScenario& s) {
  ARROW_ASSIGN_OR_RAISE(auto log, DeltaLog::Open(s.storage(), Engine::Default()));
  return log->LoadSnapshot();
}

std::vector<std::string> ActivePaths(const DeltaSnapshot& snap) {
  std::vector<std::string> out;
  for (const auto& f : snap.active_files) out.push_back(f.path);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(DeltaLogReader, ReplaysJsonCommits) {
  DeltaScenario s("log_json");
  s.Create({"p"}, {{"delta.deletedFileRetentionDuration", "interval 2 days"}});
  s.Add("p=1/a.parquet");
  s.Add("p=1/b.parquet", DvJson("u", lakeshore::testing::Z85Uuid("0c6cbaaf-5e04-4c9d-8959-1088814f58ef")));
  s.Remove("p=1/a.parquet");
  s.Commit({{{"cdc", {{"path", "_change_data/c.parquet"}, {"size", 3}, {"dataChange", false}}}}});
  auto snap = Load(s);
  ASSERT_TRUE(snap.ok()) << snap.status();
  EXPECT_EQ(snap->version, 4);
  EXPECT_EQ(ActivePaths(*snap), std::vector<std::string>{"p=1/b.parquet"});
  ASSERT_EQ(snap->tombstones.size(), 1u);
  EXPECT_EQ(snap->tombstones[0].path, "p=1/a.parquet");
  EXPECT_TRUE(snap->tombstones[0].deletion_timestamp.has_value());
  ASSERT_EQ(snap->cdc_files.size(), 1u);
  EXPECT_EQ(snap->metadata.partition_columns, std::vector<std::string>{"p"});
  EXPECT_EQ(*snap->TombstoneRetentionMs(), 2 * lakeshore::testing::kDayMs);
  ASSERT_TRUE(snap->active_files[0].deletion_vector.has_value());
  EXPECT_EQ(snap->active_files[0].deletion_vector->storage_type, "u");
}

TEST(DeltaLogReader, LogFileNamesWhoseNumbersDoNotFitAreCorruptMetadata) {
  // Found by outside testing: std::stoll threw out of the Status API (IndexError in Python).
  for (const char* name : {"99999999999999999999.json", "99999999999999999999.checkpoint.parquet",
                           "00000000000000000000.checkpoint.9999999999.9999999999.parquet",
                           "00000000000000000000.checkpoint.0000000003.0000000002.parquet",
                           "00000000000000000000.checkpoint.0000000000.0000000002.parquet"}) {
    DeltaScenario s(std::string("log_bad_name_") + name);
    s.Create();
    s.Add("a.parquet");
    ASSERT_TRUE(s.storage()->WriteString(std::string("_delta_log/") + name, "{}").ok());
    auto snap = Load(s);
    ASSERT_FALSE(snap.ok()) << name;
    EXPECT_TRUE(IsError(snap.status(), ErrorKind::kCorruptMetadata)) << snap.status();
    EXPECT_NE(snap.status().message().find(name), std::string::npos) << snap.status();
    auto report = s.Vacuum();
    EXPECT_TRUE(IsError(report.status(), ErrorKind::kCorruptMetadata)) << report.status();
    EXPECT_TRUE(s.Exists("a.parquet"));
  }
}

TEST(DeltaLogReader, LastCheckpointClaimingAbsurdPartCountsIsCorruptNotAHang) {
  DeltaScenario s("log_bad_parts");
  s.Create();
  s.Add("a.parquet");
  s.Checkpoint();
  ASSERT_TRUE(s.storage()->WriteString("_delta_log/_last_checkpoint", R"({"version":1,"parts":2147483647})").ok());
  auto snap = Load(s);
  EXPECT_TRUE(IsError(snap.status(), ErrorKind::kCorruptMetadata)) << snap.status();
}

TEST(DeltaProperties, IntervalOverflowIsAnError) {
  EXPECT_FALSE(ParseIntervalMs("interval 9223372036854775807 weeks").ok());
  EXPECT_FALSE(ParseIntervalMs("interval 99999999999999999999 days").ok());
}

TEST(DeltaLogReader, ClassicMultiPartAndV2Checkpoints) {
  for (int variant = 0; variant < 3; ++variant) {
    DeltaScenario s("log_cp" + std::to_string(variant));
    json protocol = {{"minReaderVersion", 3}, {"minWriterVersion", 7},
                     {"readerFeatures", {"v2Checkpoint", "deletionVectors"}},
                     {"writerFeatures", {"v2Checkpoint", "deletionVectors"}}};
    s.Create({}, json::object(), protocol);
    s.Add("a.parquet");
    s.Add("b.parquet");
    s.Add("c.parquet");
    s.Remove("a.parquet");
    s.Checkpoint(variant == 1 ? 3 : 1, variant == 2);
    s.Add("d.parquet");
    // Commits before the checkpoint are cleaned up: the checkpoint must carry the state.
    for (int v = 0; v <= 4; ++v) std::filesystem::remove(s.root() + "/" + DeltaLog::CommitPath(v));
    auto snap = Load(s);
    ASSERT_TRUE(snap.ok()) << variant << ": " << snap.status();
    EXPECT_EQ(snap->version, 5);
    EXPECT_EQ(ActivePaths(*snap), (std::vector<std::string>{"b.parquet", "c.parquet", "d.parquet"})) << variant;
    ASSERT_EQ(snap->tombstones.size(), 1u);
    EXPECT_EQ(snap->tombstones[0].path, "a.parquet");
    EXPECT_EQ(snap->protocol.min_writer_version, 7);
    ASSERT_TRUE(snap->checkpoint.has_value());
    EXPECT_EQ(snap->checkpoint->version, 4);
  }
}

TEST(DeltaLogReader, LargeCheckpointConvertsInHalvesAsOnePass) {
  // A checkpoint of more rows than ActionsFromTable converts in one pass: its halves are read
  // side by side and joined in order, the protocol and metaData kept, every file once.
  DeltaScenario s("log_cp_large");
  s.Create();
  constexpr int kFiles = 20000;
  std::vector<json> adds;
  for (int i = 0; i < kFiles; ++i) {
    adds.push_back({{"add", {{"path", "f" + std::to_string(i) + ".parquet"}, {"partitionValues", json::object()},
                             {"size", i}, {"modificationTime", 1}, {"dataChange", true}}}});
  }
  s.Commit(adds);
  s.Commit({{{"remove", {{"path", "f7.parquet"}, {"deletionTimestamp", s.now()}, {"dataChange", true}}}}});
  s.Checkpoint();
  std::filesystem::remove(s.root() + "/" + DeltaLog::CommitPath(0));
  std::filesystem::remove(s.root() + "/" + DeltaLog::CommitPath(1));
  auto snap = Load(s);
  ASSERT_TRUE(snap.ok()) << snap.status();
  ASSERT_EQ(snap->active_files.size(), static_cast<size_t>(kFiles - 1));
  std::vector<std::string> expected;
  for (int i = 0; i < kFiles; ++i) {
    if (i != 7) expected.push_back("f" + std::to_string(i) + ".parquet");
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(ActivePaths(*snap), expected);
  ASSERT_EQ(snap->tombstones.size(), 1u);
  EXPECT_EQ(snap->tombstones[0].path, "f7.parquet");
  EXPECT_EQ(snap->protocol.min_writer_version, 2);
  ASSERT_TRUE(snap->checkpoint.has_value());
}

TEST(DeltaLogReader, MissingCheckpointPartNamesTheFile) {
  DeltaScenario s("log_missing_part");
  s.Create();
  s.Add("a.parquet");
  s.Add("b.parquet");
  s.Checkpoint(2);
  std::string part2 = "_delta_log/00000000000000000002.checkpoint.0000000002.0000000002.parquet";
  std::filesystem::remove(s.root() + "/" + part2);
  auto log = DeltaLog::Open(s.storage(), Engine::Default());
  ASSERT_FALSE(log.ok());
  EXPECT_TRUE(IsError(log.status(), ErrorKind::kCorruptMetadata)) << log.status();
  EXPECT_NE(log.status().message().find(part2), std::string::npos) << log.status();
}

/// A table whose first listing of `_delta_log` misses its checkpoint files, as when a writer
/// checkpoints between a reader's listing and its read of `_last_checkpoint`.
class CheckpointAfterFirstListing : public testing::PassThroughStorage {
 public:
  using PassThroughStorage::PassThroughStorage;
  Result<std::vector<FileEntry>> List(std::string_view prefix, bool recursive) override {
    ARROW_ASSIGN_OR_RAISE(auto entries, inner_->List(prefix, recursive));
    if (listings_++ == 0) {
      std::erase_if(entries, [](const FileEntry& e) { return e.path.find(".checkpoint.") != std::string::npos; });
    }
    return entries;
  }
  int listings_ = 0;
};

TEST(DeltaLogReader, ACheckpointWrittenDuringTheListingIsFoundByListingAgain) {
  // It was CorruptMetadata ("names checkpoint version 2 but no checkpoint file of that version
  // exists") for a healthy table a writer checkpointed while the vacuum listed it.
  DeltaScenario s("log_checkpoint_race");
  s.Create();
  s.Add("a.parquet");
  s.Add("b.parquet");
  s.Checkpoint(2);
  auto racing = std::make_shared<CheckpointAfterFirstListing>(s.storage());
  auto log = DeltaLog::Open(racing, Engine::Default());
  ASSERT_TRUE(log.ok()) << log.status();
  EXPECT_EQ(racing->listings_, 2);
  auto snap = (*log)->LoadSnapshot();
  ASSERT_TRUE(snap.ok()) << snap.status();
  ASSERT_TRUE(snap->checkpoint.has_value());
  EXPECT_EQ(snap->active_files.size(), 2u);
}

TEST(DeltaLogReader, CorruptAndTruncatedCommitsNameTheFile) {
  for (std::string bad : {std::string("{\"add\":{\"path\":\"x\",\"size\":1}\n{\"remove\":{\"pa"),
                          std::string("not json\n"), std::string(""),
                          std::string("{\"add\":{\"size\":3}}\n")}) {
    DeltaScenario s("log_corrupt");
    s.Create();
    s.CommitRaw(bad);
    auto snap = Load(s);
    ASSERT_FALSE(snap.ok()) << bad;
    EXPECT_TRUE(IsError(snap.status(), ErrorKind::kCorruptMetadata)) << snap.status();
    EXPECT_NE(snap.status().message().find("00000000000000000001.json"), std::string::npos) << snap.status();
  }
}

TEST(DeltaLogReader, GapInCommitsIsCorrupt) {
  DeltaScenario s("log_gap");
  s.Create();
  s.Add("a.parquet");
  s.Add("b.parquet");
  std::filesystem::remove(s.root() + "/" + DeltaLog::CommitPath(1));
  auto snap = Load(s);
  EXPECT_TRUE(IsError(snap.status(), ErrorKind::kCorruptMetadata));
  EXPECT_NE(snap.status().message().find("00000000000000000001.json"), std::string::npos);
}

TEST(DeltaProtocol, UnknownFeaturesAndVersionsAreRefused) {
  Protocol p;
  p.min_reader_version = 3;
  p.min_writer_version = 7;
  p.writer_features = {"deletionVectors", "fancyNewThing"};
  auto st = CheckProtocolSupported(p, "_delta_log/00000000000000000003.json");
  EXPECT_TRUE(IsError(st, ErrorKind::kUnsupportedFeature));
  EXPECT_NE(st.message().find("fancyNewThing"), std::string::npos);
  EXPECT_NE(st.message().find("00000000000000000003.json"), std::string::npos);
  p.writer_features = {"deletionVectors", "catalogManaged"};
  EXPECT_TRUE(IsError(CheckProtocolSupported(p, "x"), ErrorKind::kUnsupportedFeature));
  p.writer_features = {"deletionVectors"};
  EXPECT_TRUE(CheckProtocolSupported(p, "x").ok());
  p.min_writer_version = 8;
  EXPECT_TRUE(IsError(CheckProtocolSupported(p, "x"), ErrorKind::kUnsupportedFeature));
}

}  // namespace
}  // namespace lakeshore::delta

namespace lakeshore::delta {
namespace {

TEST(DeltaLogReader, BatchedCommitParsingSplitsRowsPerFile) {
  lakeshore::testing::DeltaScenario s("log_batch");
  s.Create();
  s.CommitRaw("{\"add\":{\"path\":\"a.parquet\",\"size\":1}}\r\n\r\n  \n{\"add\":{\"path\":\"b.parquet\",\"size\":2}}");
  s.CommitRaw("{\"remove\":{\"path\":\"a.parquet\",\"deletionTimestamp\":5}}\n");
  s.CommitRaw("\n{\"cdc\":{\"path\":\"_change_data/c.parquet\",\"size\":3}}\n\n");
  auto log = *DeltaLog::Open(s.storage(), Engine::Default());
  auto commits = log->ReadCommits({0, 1, 2, 3});
  ASSERT_TRUE(commits.ok()) << commits.status();
  ASSERT_EQ(commits->size(), 4u);
  EXPECT_TRUE((*commits)[0].protocol.has_value());
  ASSERT_EQ((*commits)[1].adds.size(), 2u);
  EXPECT_EQ((*commits)[1].adds[1].path, "b.parquet");
  EXPECT_TRUE((*commits)[1].removes.empty());
  ASSERT_EQ((*commits)[2].removes.size(), 1u);
  EXPECT_TRUE((*commits)[2].adds.empty());
  ASSERT_EQ((*commits)[3].cdc.size(), 1u);
  // One bad file among good ones: the error names exactly that file.
  s.CommitRaw("{\"add\":{\"path\":\"x\",\"size\":\"not a number\"}}\n");
  s.CommitRaw("{\"add\":{\"path\":\"y.parquet\",\"size\":1}}\n");
  auto log2 = *DeltaLog::Open(s.storage(), Engine::Default());
  auto bad = log2->ReadCommits({1, 2, 3, 4, 5});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("00000000000000000004.json"), std::string::npos) << bad.status();
}

}  // namespace
}  // namespace lakeshore::delta
