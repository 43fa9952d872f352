#include "format/hoodie_avro_schemas.h"

#include <gtest/gtest.h>

#include "format/avro_container.h"
#include "testing/hudi_tables.h"

namespace lakeshore::format {
namespace {

TEST(HoodieAvroSchemas, EverySchemaIsSelfContainedAndParsesInAvroC) {
  for (const char* name :
       {"HoodieArchivedMetaEntry", "HoodieCleanMetadata", "HoodieCleanPartitionMetadata", "HoodieCleanerPlan",
        "HoodieClusteringGroup", "HoodieClusteringPlan", "HoodieClusteringStrategy", "HoodieCommitMetadata",
        "HoodieCompactionMetadata", "HoodieCompactionPlan", "HoodieCompactionStrategy", "HoodieDeleteRecordList",
        "HoodieIndexCommitMetadata", "HoodieIndexPartitionInfo", "HoodieIndexPlan", "HoodieInstantInfo",
        "HoodieLSMTimelineInstant", "HoodieMetadataRecord", "HoodieReplaceCommitMetadata",
        "HoodieRequestedReplaceMetadata", "HoodieRestoreMetadata", "HoodieRestorePlan", "HoodieRollbackMetadata",
        "HoodieRollbackPlan", "HoodieSavepointMetadata", "HoodieSliceInfo", "HoodieWriteStat"}) {
    auto schema = HoodieAvroSchema(name);
    ASSERT_TRUE(schema.ok()) << name << ": " << schema.status();
    // Avro C parses it on its own: an empty container file with it writes.
    auto written = WriteAvroContainer(*schema, {});
    EXPECT_TRUE(written.ok()) << name << ": " << written.status();
  }
  EXPECT_FALSE(HoodieAvroSchema("NoSuchSchema").ok());
}

TEST(HoodieAvroSchemas, CommitMetadataRoundTripsAndSparkWrittenFilesDecode) {
  auto schema = HoodieAvroSchema("HoodieCommitMetadata");
  ASSERT_TRUE(schema.ok());
  nlohmann::json commit = {
      {"partitionToWriteStats",
       {{"p=1", {{{"fileId", "f-0"}, {"path", "p=1/f-0_0-1-2_20260101000000000.parquet"}, {"prevCommit", "null"},
                  {"numWrites", 3}, {"numInserts", 3}, {"fileSizeInBytes", 1234}, {"partitionPath", "p=1"}}}}}},
      {"compacted", false},
      {"extraMetadata", {{"schema", "{}"}}},
      {"operationType", "UPSERT"}};
  auto bytes = WriteAvroContainer(*schema, {commit});
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto read = ReadAvroContainer(*bytes, "round trip");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->records[0]["partitionToWriteStats"]["p=1"][0]["numWrites"], 3);
  EXPECT_EQ(read->records[0]["operationType"], "UPSERT");
}

}  // namespace
}  // namespace lakeshore::format
