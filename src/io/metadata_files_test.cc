// The `files` partition of Spark-written metadata tables lists exactly the data files the
// table holds, with their sizes.
#include "io/metadata_files.h"

#include <gtest/gtest.h>

#include "testing/hudi_tables.h"

namespace lakeshore {
namespace {

int counter = 0;

TEST(MetadataFiles, TheSparkWrittenFilesPartitionListsTheTablesDataFiles) {
  for (const char* zip : {"sample_table/cow/v9_txns_simple_meta.zip", "sample_table/mor/avro/v9_txns_simple_meta.zip",
                          "sample_table/mor/avro/v9_nonpartitioned_rollback.zip",
                          "quickstart_trips_table/mor/avro/v8_trips_8i3u1d.zip"}) {
    SCOPED_TRACE(zip);
    const auto entries = testing::ReadHudiTablesZip(zip);
    if (entries.empty()) GTEST_SKIP() << "shared/hudi-tables is not beside the checkout";
    // The table, in memory; the files the zip holds in each partition folder are the oracle.
    auto storage = *Storage::Open("mem://mdt_files_" + std::to_string(counter++));
    std::map<std::string, std::map<std::string, int64_t>> expected;
    for (const auto& [name, bytes] : entries) {
      const std::string path = name.substr(name.find('/') + 1);
      ASSERT_TRUE(storage->WriteString(path, bytes).ok());
      if (path.rfind(".hoodie", 0) == 0) continue;
      const size_t slash = path.rfind('/');
      const std::string partition = slash == std::string::npos ? "" : path.substr(0, slash);
      const std::string file = path.substr(slash == std::string::npos ? 0 : slash + 1);
      if (file == ".hoodie_partition_metadata") continue;
      expected[partition][file] = static_cast<int64_t>(bytes.size());
    }
    auto listing = ReadMetadataFiles(storage, *Engine::Default(), nullptr);
    ASSERT_TRUE(listing.ok()) << listing.status();
    EXPECT_EQ(listing->files, expected);
  }
}

}  // namespace
}  // namespace lakeshore
