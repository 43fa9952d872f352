#include "format/avro_schema.h"

#include <gtest/gtest.h>

#include "format/avro_container.h"

namespace lakeshore::format {
namespace {

std::shared_ptr<arrow::Schema> Wide() {
  return arrow::schema({
      arrow::field("id", arrow::int64(), false),
      arrow::field("small", arrow::int16()),
      arrow::field("tiny", arrow::uint8()),
      arrow::field("flag", arrow::boolean()),
      arrow::field("ratio", arrow::float32()),
      arrow::field("score", arrow::float64()),
      arrow::field("name", arrow::large_utf8()),
      arrow::field("raw", arrow::binary()),
      arrow::field("hash", arrow::fixed_size_binary(16)),
      arrow::field("price", arrow::decimal128(10, 2)),
      arrow::field("big", arrow::decimal128(38, 0)),
      arrow::field("day", arrow::date32()),
      arrow::field("at", arrow::timestamp(arrow::TimeUnit::NANO, "Europe/Oslo")),
      arrow::field("local", arrow::timestamp(arrow::TimeUnit::MILLI)),
      arrow::field("tags", arrow::list(arrow::utf8())),
      arrow::field("attrs", arrow::map(arrow::utf8(), arrow::int32())),
      arrow::field("point", arrow::struct_({arrow::field("x", arrow::float64()), arrow::field("y", arrow::float64())})),
      arrow::field("points", arrow::list(arrow::struct_({arrow::field("x", arrow::int32())}))),
      arrow::field("photo", HudiBlobType()),
  });
}

TEST(AvroSchema, ArrowSchemasRoundTripThroughAvroOnceNormalized) {
  auto normal = NormalizeForHudi(*Wide());
  EXPECT_TRUE(normal->GetFieldByName("small")->type()->Equals(*arrow::int32()));
  EXPECT_TRUE(normal->GetFieldByName("at")->type()->Equals(*arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")));
  EXPECT_TRUE(normal->GetFieldByName("local")->type()->Equals(*arrow::timestamp(arrow::TimeUnit::MILLI, "UTC")));
  auto avro = ArrowSchemaToAvro(*normal, "t_record", "hoodie.t");
  ASSERT_TRUE(avro.ok()) << avro.status();
  auto back = AvroSchemaToArrow(*avro, "round trip");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE((*back)->Equals(*normal)) << (*back)->ToString() << "\n---\n" << normal->ToString();
  // Avro C accepts it (names unique, types valid).
  EXPECT_TRUE(WriteAvroContainer(*avro, {}).ok());
  // The blob column is Hudi's BLOB logical type.
  EXPECT_NE(avro->find(R"("logicalType":"blob")"), std::string::npos) << *avro;
  EXPECT_NE(avro->find(R"("blob_storage_type")"), std::string::npos);
  // Decimals are fixed of the fewest bytes, as Spark writes them.
  EXPECT_NE(avro->find(R"("logicalType":"decimal","name":"fixed","namespace":"hoodie.t.t_record.price","precision":10,"scale":2,"size":5)"),
            std::string::npos)
      << *avro;
}

TEST(AvroSchema, WhatAvroCannotHoldIsRefusedNamingTheColumn) {
  for (const auto& field : {arrow::field("u", arrow::uint64()), arrow::field("h", arrow::float16()),
                            arrow::field("m", arrow::map(arrow::int32(), arrow::utf8())),
                            arrow::field("bad name", arrow::int32())}) {
    auto avro = ArrowSchemaToAvro(*arrow::schema({field}), "r", "ns");
    ASSERT_FALSE(avro.ok()) << field->ToString();
    EXPECT_TRUE(IsError(avro.status(), ErrorKind::kUnsupportedFeature));
    EXPECT_NE(avro.status().message().find(field->name()), std::string::npos) << avro.status();
  }
}

TEST(AvroSchema, ReadsTheSchemasSparkWrote) {
  const char* spark = R"({"type":"record","name":"v6_nonpartitioned_record","namespace":"hoodie.v6_nonpartitioned","fields":[{"name":"id","type":["null","int"],"default":null},{"name":"decimalField","type":["null",{"type":"fixed","name":"fixed","namespace":"hoodie.v6_nonpartitioned.v6_nonpartitioned_record.decimalField","size":5,"logicalType":"decimal","precision":10,"scale":5}],"default":null},{"name":"timestampField","type":["null",{"type":"long","logicalType":"timestamp-micros"}],"default":null},{"name":"arrayField","type":["null",{"type":"array","items":["null",{"type":"record","name":"arrayField","namespace":"hoodie.v6_nonpartitioned.v6_nonpartitioned_record","fields":[{"name":"arr_struct_f1","type":["null","string"],"default":null}]}]}],"default":null}]})";
  auto schema = AvroSchemaToArrow(spark, "spark");
  ASSERT_TRUE(schema.ok()) << schema.status();
  EXPECT_TRUE((*schema)->GetFieldByName("decimalField")->type()->Equals(*arrow::decimal128(10, 5)));
  EXPECT_TRUE((*schema)->GetFieldByName("timestampField")->type()->Equals(*arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")));
  EXPECT_EQ((*schema)->GetFieldByName("arrayField")->type()->id(), arrow::Type::LIST);
  for (const char* bad : {"", "[1,2", R"({"type":"record","fields":[{"name":"x","type":["int","string"]}]})",
                          R"({"type":"record","name":"r","fields":[{"name":"x","type":"nosuchtype"}]})",
                          R"({"type":"record","name":"r","fields":[{"name":"x","type":{"type":"fixed","logicalType":"decimal","precision":"ten"}}]})"}) {
    EXPECT_FALSE(AvroSchemaToArrow(bad, "bad").ok()) << bad;
  }
}

}  // namespace
}  // namespace lakeshore::format
