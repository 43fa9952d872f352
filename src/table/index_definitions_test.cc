#include "table/index_definitions.h"

#include <gtest/gtest.h>

namespace lakeshore {
namespace {

TEST(IndexDefinitions, ParsesHudisIndexJson) {
  auto defs = ParseIndexDefinitions(R"({"indexDefinitions":{
      "secondary_index_city":{"indexName":"secondary_index_city","indexType":"secondary_index",
        "indexFunction":"identity","sourceFields":["city"],"indexOptions":{},"version":"V2","future":1},
      "record_index":{"indexName":"record_index","indexType":"record_index","sourceFields":[],
        "indexOptions":{"isPartitioned":"false"}}}})",
                                    "index.json");
  ASSERT_TRUE(defs.ok()) << defs.status();
  ASSERT_EQ(defs->size(), 2u);
  const auto& city = defs->at("secondary_index_city");
  EXPECT_EQ(city.type, "secondary_index");
  EXPECT_EQ(city.source_fields, std::vector<std::string>{"city"});
  EXPECT_TRUE(city.HashesBySecondaryKey());
  const auto& rli = defs->at("record_index");
  EXPECT_EQ(rli.version, "V1");  // absent: the first layout
  EXPECT_FALSE(rli.HashesBySecondaryKey());
  EXPECT_EQ(rli.options.at("isPartitioned"), "false");
}

TEST(IndexDefinitions, DamagedFilesAreCorruptMetadataNamingTheFile) {
  for (const char* bad : {"", "[]", "{\"indexDefinitions\":[]}", "{\"indexDefinitions\":{\"a\":1}}",
                          "{\"indexDefinitions\":{\"a\":{\"sourceFields\":\"x\"}}}",
                          "{\"indexDefinitions\":{\"a\":{\"sourceFields\":[1]}}}",
                          "{\"indexDefinitions\":{\"a\":{\"indexType\":3}}}",
                          "{\"indexDefinitions\":{\"a\":{\"indexOptions\":{\"k\":2}}}}", "{\"indexDefinitions\":"}) {
    auto defs = ParseIndexDefinitions(bad, ".hoodie/.index_defs/index.json");
    ASSERT_FALSE(defs.ok()) << bad;
    EXPECT_TRUE(IsError(defs.status(), ErrorKind::kCorruptMetadata)) << defs.status();
    EXPECT_NE(defs.status().message().find(".hoodie/.index_defs/index.json"), std::string::npos);
  }
}

}  // namespace
}  // namespace lakeshore
