#include "table/hoodie_table_config.h"

#include <regex>

#include <gtest/gtest.h>

#include "table/file_naming.h"
#include "testing/hudi_tables.h"
#include "testing/status_test_util.h"
#include "timeline/commit_metadata.h"

namespace lakeshore {
namespace {

constexpr const char* kV9 = R"(#Updated at 2026-03-07T22:24:59.031420Z
hoodie.table.initial.version=9
hoodie.table.keygenerator.type=SIMPLE
hoodie.table.type=COPY_ON_WRITE
hoodie.table.metadata.partitions=column_stats,files
hoodie.table.partition.fields=region
hoodie.timeline.layout.version=2
hoodie.timeline.history.path=history
hoodie.table.name=v9_txns_cow_simple_meta
hoodie.table.recordkey.fields=txn_id
hoodie.timeline.path=timeline
hoodie.table.ordering.fields=txn_ts
hoodie.datasource.write.hive_style_partitioning=true
hoodie.database.name=default
hoodie.record.merge.mode=EVENT_TIME_ORDERING
hoodie.table.version=9
hoodie.some.future.key=kept
)";

TEST(HoodieTableConfig, ParsesVersion9) {
  auto c = HoodieTableConfig::Parse(kV9, "v9");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->name, "v9_txns_cow_simple_meta");
  EXPECT_EQ(c->table_version, 9);
  EXPECT_EQ(c->timeline_layout_version, 2);
  EXPECT_EQ(c->timeline_folder, ".hoodie/timeline");
  EXPECT_EQ(c->archive_folder, ".hoodie/timeline/history");
  EXPECT_EQ(c->record_key_fields, std::vector<std::string>{"txn_id"});
  EXPECT_EQ(c->partition_fields, std::vector<std::string>{"region"});
  EXPECT_EQ(c->ordering_fields, std::vector<std::string>{"txn_ts"});
  EXPECT_EQ(c->key_generator, KeyGeneratorKind::kSimple);
  EXPECT_TRUE(c->hive_style_partitioning);
  EXPECT_EQ(c->merge_mode, RecordMergeMode::kEventTimeOrdering);
  EXPECT_EQ(c->metadata_partitions, (std::vector<std::string>{"column_stats", "files"}));
  EXPECT_EQ(c->properties.Get("hoodie.some.future.key"), "kept");
}

TEST(HoodieTableConfig, RefusesWhatItCannotRead) {
  std::string text = kV9;
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return HoodieTableConfig::Parse(t, "edited").status();
  };
  EXPECT_TRUE(IsError(with("hoodie.table.version=9", "hoodie.table.version=7"), ErrorKind::kUnsupportedFeature));
  EXPECT_TRUE(IsError(with("hoodie.table.version=9", "hoodie.table.version=x"), ErrorKind::kCorruptMetadata));
  EXPECT_TRUE(IsError(with("hoodie.timeline.layout.version=2", "hoodie.timeline.layout.version=1"),
                      ErrorKind::kCorruptMetadata));
  EXPECT_TRUE(IsError(with("COPY_ON_WRITE", "SOMETHING"), ErrorKind::kCorruptMetadata));
  EXPECT_TRUE(IsError(with("hoodie.timeline.path=timeline", "hoodie.timeline.path=../../etc"),
                      ErrorKind::kCorruptMetadata));
  // A checksum that does not match the names.
  auto st = with("hoodie.table.version=9", "hoodie.table.version=9\nhoodie.table.checksum=12345");
  EXPECT_TRUE(IsError(st, ErrorKind::kCorruptMetadata)) << st;
  EXPECT_NE(st.message().find("edited"), std::string::npos);
}

TEST(HoodieTableConfig, RecordKeyEncodingFollowsHudisComplexKeyGenEncoding) {
  // HUDI-7001: a COMPLEX key generator over one field prefixes the field name unless the table
  // says VALUE_ONLY; at version 8 without the key the table cannot say.
  auto parse = [](std::string text, const std::string& extra) {
    text.replace(text.find("keygenerator.type=SIMPLE"), 24, "keygenerator.type=COMPLEX");
    return HoodieTableConfig::Parse(text + extra, "edited");
  };
  ASSERT_OK_AND_ASSIGN(auto simple, HoodieTableConfig::Parse(kV9, "v9"));
  EXPECT_EQ(simple.record_key_encoding, TableConfig::KeyEncoding::kPlain);
  ASSERT_OK_AND_ASSIGN(auto v9, parse(kV9, ""));
  EXPECT_EQ(v9.record_key_encoding, TableConfig::KeyEncoding::kComplex);
  ASSERT_OK_AND_ASSIGN(auto value_only, parse(kV9, "hoodie.table.complex.keygen.encoding= value_only\n"));
  EXPECT_EQ(value_only.record_key_encoding, TableConfig::KeyEncoding::kPlain);
  std::string v8 = kV9;
  v8.replace(v8.find("hoodie.table.version=9"), 22, "hoodie.table.version=8");
  ASSERT_OK_AND_ASSIGN(auto unknown, parse(v8, ""));
  EXPECT_EQ(unknown.record_key_encoding, TableConfig::KeyEncoding::kUnknown);
  ASSERT_OK_AND_ASSIGN(auto prefixed, parse(v8, "hoodie.table.complex.keygen.encoding=FIELD_PREFIXED\n"));
  EXPECT_EQ(prefixed.record_key_encoding, TableConfig::KeyEncoding::kComplex);
  auto bad = parse(kV9, "hoodie.table.complex.keygen.encoding=SOMETIMES\n");
  EXPECT_TRUE(IsError(bad.status(), ErrorKind::kCorruptMetadata)) << bad.status();
  EXPECT_NE(bad.status().message().find("SOMETIMES"), std::string::npos) << bad.status();
}

TEST(HoodieTableConfig, Version6InfersMergeModeFromThePayload) {
  const std::string v6 =
      "hoodie.table.name=t\nhoodie.table.version=6\nhoodie.table.precombine.field=ts\n"
      "hoodie.compaction.payload.class=org.apache.hudi.common.model.OverwriteWithLatestAvroPayload\n"
      "hoodie.table.keygenerator.class=org.apache.hudi.keygen.ComplexKeyGenerator\n"
      "hoodie.table.partition.fields=a,b\n";
  auto c = HoodieTableConfig::Parse(v6, "v6");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->timeline_layout_version, 1);
  EXPECT_EQ(c->timeline_folder, ".hoodie");
  EXPECT_EQ(c->archive_folder, ".hoodie/archived");
  EXPECT_EQ(c->merge_mode, RecordMergeMode::kCommitTimeOrdering);
  EXPECT_EQ(c->key_generator, KeyGeneratorKind::kComplex);
  EXPECT_EQ(c->ordering_fields, std::vector<std::string>{"ts"});
}

TEST(DataFileName, ParsesHudiBaseAndLogFiles) {
  auto base = ParseDataFileName("a079bdb3-731c-4894-b855-abfcd6921007-0_0-203-274_20240418173551906.parquet");
  ASSERT_TRUE(base.has_value());
  EXPECT_EQ(base->file_id, "a079bdb3-731c-4894-b855-abfcd6921007-0");
  EXPECT_EQ(base->write_token, "0-203-274");
  EXPECT_EQ(base->instant_time, "20240418173551906");
  EXPECT_FALSE(base->is_log);
  auto log = ParseDataFileName(".8aa68f7e-afd6-4c94-b86c-8a886552e08d-0_20251220210130911.log.1_0-98-160");
  ASSERT_TRUE(log.has_value());
  EXPECT_TRUE(log->is_log);
  EXPECT_EQ(log->file_id, "8aa68f7e-afd6-4c94-b86c-8a886552e08d-0");
  EXPECT_EQ(log->instant_time, "20251220210130911");
  EXPECT_EQ(log->log_version, 1);
  EXPECT_EQ(log->write_token, "0-98-160");
  auto cdc = ParseDataFileName(".f1-0_20251220210130911.log.2_1-2-3.cdc");
  ASSERT_TRUE(cdc.has_value());
  EXPECT_TRUE(cdc->is_cdc);
  for (const char* bad : {"x.parquet", "a_b.parquet", "a_b_c.parquet", "a_b_2024.parquet", ".a_2024041817355190.log.1_x",
                          ".a_20240418173551906.log.x_1", ".hoodie_partition_metadata", "a_b_20240418173551906.orc"}) {
    EXPECT_FALSE(ParseDataFileName(bad).has_value()) << bad;
  }
}

TEST(CommitMetadata, ReadsSparkWrittenJsonAndAvro) {
  const std::string json = testing::ReadHudiTablesFile("unit/commit_metadata/v6_commit.json");
  const std::string avro = testing::ReadHudiTablesFile("unit/commit_metadata/v8_deltacommit.avro");
  if (json.empty() || avro.empty()) GTEST_SKIP() << "shared/hudi-tables not found";
  auto v6 = CommitMetadata::FromHoodie(json, TimelineLayout::kV1, "v6_commit.json");
  ASSERT_TRUE(v6.ok()) << v6.status();
  ASSERT_EQ(v6->write_stats.size(), 1u);
  EXPECT_EQ(v6->write_stats[0].file_id, "a079bdb3-731c-4894-b855-abfcd6921007-0");
  EXPECT_EQ(v6->write_stats[0].prev_base_instant, "20240418173550988");
  EXPECT_EQ(v6->write_stats[0].num_records, 4);
  EXPECT_EQ(v6->write_stats[0].file_size, 441520);
  EXPECT_EQ(v6->operation, "UPSERT");
  EXPECT_NE(v6->extra.at("schema").find("v6_nonpartitioned_record"), std::string::npos);
  auto v8 = CommitMetadata::FromHoodie(avro, TimelineLayout::kV2, "v8_deltacommit.avro");
  ASSERT_TRUE(v8.ok()) << v8.status();
  EXPECT_FALSE(v8->write_stats.empty());
  EXPECT_EQ(v8->operation, "UPSERT");
  // Truncated or garbage content is a clear error naming the file.
  EXPECT_TRUE(IsError(CommitMetadata::FromHoodie(json.substr(0, json.size() / 2), TimelineLayout::kV1, "cut.json").status(),
                      ErrorKind::kCorruptMetadata));
  EXPECT_TRUE(IsError(CommitMetadata::FromHoodie("garbage", TimelineLayout::kV2, "g.commit").status(),
                      ErrorKind::kCorruptMetadata));
}

TEST(CommitMetadata, AStatNamingAFileOutsideTheTableIsRefused) {
  for (const char* path : {"../victim.parquet", "/etc/passwd", "a/../../b.parquet", "a//b.parquet"}) {
    std::string text = std::string(R"({"partitionToWriteStats":{"":[{"fileId":"f","path":")") + path +
                       R"("}]},"operationType":"UPSERT"})";
    auto m = CommitMetadata::FromHoodie(text, TimelineLayout::kV1, "bad.commit");
    EXPECT_TRUE(IsError(m.status(), ErrorKind::kPathOutsideTable)) << path << " " << m.status();
  }
}

}  // namespace
}  // namespace lakeshore

namespace lakeshore {
namespace {

TEST(DataFileName, NamesLakeshoreWritesMatchHudisPatterns) {
  // Hudi's HoodieLogFile pattern and its base file name layout, with the write token as three
  // numbers (Hudi's readers parse it so).
  const std::regex log_pattern(R"(^\.(.+)_(.*)\.(log|archive)\.(\d+)(_((\d+)-(\d+)-(\d+))(.cdc)?)?$)");
  const std::regex base_pattern(R"(^(.+)_((\d+)-(\d+)-(\d+))_(\d{17})\.parquet$)");
  for (int i = 0; i < 100; ++i) {
    const std::string token = NewWriteToken();
    const std::string id = NewFileId();
    const std::string log = LogFileName(id, "20261201000000000", 1, token);
    EXPECT_TRUE(std::regex_match(log, log_pattern)) << log;
    const std::string base = BaseFileName(id, token, "20261201000000000");
    EXPECT_TRUE(std::regex_match(base, base_pattern)) << base;
    auto parsed = ParseDataFileName(log);
    ASSERT_TRUE(parsed.has_value()) << log;
    EXPECT_EQ(parsed->file_id, id);
    EXPECT_EQ(parsed->write_token, token);
    EXPECT_EQ(parsed->log_version, 1);
  }
}

}  // namespace
}  // namespace lakeshore
