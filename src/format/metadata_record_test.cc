#include "format/metadata_record.h"

#include <gtest/gtest.h>

#include <arrow/util/decimal.h>

#include "format/avro_container.h"
#include "testing/status_test_util.h"

namespace lakeshore::format {
namespace {

nlohmann::json Decode(const std::string& datum) {
  auto schema = MetadataRecordSchema();
  EXPECT_TRUE(schema.ok()) << schema.status().ToString();
  auto reader = AvroDatumReader::Make(*schema, "test");
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  auto value = (*reader)->Read(datum);
  EXPECT_TRUE(value.ok()) << value.status().ToString();
  return value.ok() ? *value : nlohmann::json();
}

TEST(MetadataRecord, SchemaHasTheFieldsHudi1Writes) {
  auto schema = MetadataRecordSchema();
  ASSERT_TRUE(schema.ok());
  auto parsed = nlohmann::json::parse(*schema);
  std::vector<std::string> names;
  for (const auto& f : parsed["fields"]) names.push_back(f["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key",
                                             "_hoodie_partition_path", "_hoodie_file_name", "key", "type", "filesystemMetadata", "BloomFilterMetadata",
                                             "ColumnStatsMetadata", "recordIndexMetadata",
                                             "SecondaryIndexMetadata"}));
}

TEST(MetadataRecord, FilesRecordDecodesUnderTheSchema) {
  std::map<std::string, MetadataFileEntry> files = {{"a.parquet", {1234, false}}, {"b.parquet", {0, true}}};
  auto v = Decode(EncodeFilesRecord("region=us", MetadataRecordType::kFiles, files));
  EXPECT_EQ(v["key"], "region=us");
  EXPECT_EQ(v["type"], 2);
  EXPECT_EQ(v["filesystemMetadata"]["a.parquet"]["size"], 1234);
  EXPECT_EQ(v["filesystemMetadata"]["a.parquet"]["isDeleted"], false);
  EXPECT_EQ(v["filesystemMetadata"]["b.parquet"]["isDeleted"], true);
  EXPECT_TRUE(v["recordIndexMetadata"].is_null());
  auto empty = Decode(EncodeFilesRecord("__all_partitions__", MetadataRecordType::kPartitionList, {}));
  EXPECT_EQ(empty["type"], 1);
  EXPECT_TRUE(empty["filesystemMetadata"].empty());
}

TEST(MetadataRecord, RecordIndexUuidFileIdsAreSplitAsHudiStoresThem) {
  auto v = Decode(EncodeRecordIndexRecord("k1", "", "0e1f2a3b-4c5d-6e7f-8091-a2b3c4d5e6f7-12", 1700000000123));
  const auto& info = v["recordIndexMetadata"];
  EXPECT_EQ(v["type"], 5);
  EXPECT_EQ(info["partitionName"], ".");
  EXPECT_EQ(static_cast<uint64_t>(info["fileIdHighBits"].get<int64_t>()), 0x0e1f2a3b4c5d6e7fULL);
  EXPECT_EQ(static_cast<uint64_t>(info["fileIdLowBits"].get<int64_t>()), 0x8091a2b3c4d5e6f7ULL);
  EXPECT_EQ(info["fileIndex"], 12);
  EXPECT_EQ(info["fileIdEncoding"], 0);
  EXPECT_EQ(info["instantTime"], 1700000000123);
  EXPECT_TRUE(info["fileId"].is_null());
}

TEST(MetadataRecord, RecordIndexOtherFileIdsAreStrings) {
  for (std::string id : {"files-0000-0", "0E1F2A3B-4C5D-6E7F-8091-A2B3C4D5E6F7-0", "0e1f2a3b-4c5d-6e7f-8091-a2b3c4d5e6f7-01"}) {
    auto v = Decode(EncodeRecordIndexRecord("k", "p=1", id, 5));
    EXPECT_EQ(v["recordIndexMetadata"]["fileIdEncoding"], 1) << id;
    EXPECT_EQ(v["recordIndexMetadata"]["fileId"], id);
    EXPECT_EQ(v["recordIndexMetadata"]["partitionName"], "p=1");
  }
}

TEST(MetadataRecord, RecordIndexValuesDecodeStraightFromTheirBytes) {
  // The decoded texts are views into the value: it is kept.
  const std::string uuid_value = EncodeRecordIndexRecord("k", "p=1", "0e1f2a3b-4c5d-6e7f-8091-a2b3c4d5e6f7-12", 77);
  auto uuid = DecodeRecordIndexValue(uuid_value);
  ASSERT_TRUE(uuid.has_value());
  EXPECT_TRUE(uuid->uuid_file_id);
  EXPECT_EQ(uuid->high, 0x0e1f2a3b4c5d6e7fULL);
  EXPECT_EQ(uuid->low, 0x8091a2b3c4d5e6f7ULL);
  EXPECT_EQ(uuid->index, 12);
  EXPECT_EQ(uuid->partition, "p=1");
  EXPECT_EQ(uuid->instant_ms, 77);
  const std::string plain_value = EncodeRecordIndexRecord("k", "", "files-0000-0", 5);
  auto plain = DecodeRecordIndexValue(plain_value);
  ASSERT_TRUE(plain.has_value());
  EXPECT_FALSE(plain->uuid_file_id);
  EXPECT_EQ(plain->file_id, "files-0000-0");
  EXPECT_EQ(plain->partition, ".");
  // Anything else is left to the generic decoder.
  EXPECT_FALSE(DecodeRecordIndexValue(EncodeFilesRecord("p", MetadataRecordType::kFiles, {})).has_value());
  const std::string value = EncodeRecordIndexRecord("k", "", "files-0000-0", 5);
  for (size_t cut = 0; cut < value.size(); ++cut) EXPECT_FALSE(DecodeRecordIndexValue(value.substr(0, cut)).has_value());
  EXPECT_TRUE(IsCompatibleMetadataSchema(*MetadataRecordSchema()));
  EXPECT_FALSE(IsCompatibleMetadataSchema("{\"type\":\"record\",\"name\":\"x\",\"fields\":[]}"));
  EXPECT_FALSE(IsCompatibleMetadataSchema("not json"));
}

TEST(MetadataRecord, ColumnStatsRecordsDecodeUnderTheSchema) {
  ColumnStatsValue ints;
  ints.min = arrow::MakeScalar(int64_t{-5});
  ints.max = arrow::MakeScalar(int64_t{42});
  ints.null_count = 1;
  ints.value_count = 10;
  ints.total_size = 100;
  ints.total_uncompressed_size = 120;
  auto v = Decode(EncodeColumnStatsRecord("key", "f.parquet", "n", ints));
  EXPECT_EQ(v["type"], 3);
  const auto& cs = v["ColumnStatsMetadata"];
  EXPECT_EQ(cs["fileName"], "f.parquet");
  EXPECT_EQ(cs["columnName"], "n");
  EXPECT_EQ(cs["minValue"]["value"], -5);
  EXPECT_EQ(cs["maxValue"]["value"], 42);
  EXPECT_EQ(cs["nullCount"], 1);
  EXPECT_EQ(cs["valueCount"], 10);
  EXPECT_EQ(cs["totalSize"], 100);
  EXPECT_EQ(cs["totalUncompressedSize"], 120);
  EXPECT_EQ(cs["isTightBound"], true);
  ColumnStatsValue strings;
  strings.min = std::make_shared<arrow::StringScalar>("apple");
  strings.max = std::make_shared<arrow::StringScalar>("pear");
  auto s = Decode(EncodeColumnStatsRecord("key", "f", "s", strings));
  EXPECT_EQ(s["ColumnStatsMetadata"]["minValue"]["value"], "apple");
  EXPECT_EQ(s["ColumnStatsMetadata"]["maxValue"]["value"], "pear");
  ColumnStatsValue times;
  times.min = std::make_shared<arrow::TimestampScalar>(1500, arrow::timestamp(arrow::TimeUnit::MILLI));
  times.max = std::make_shared<arrow::TimestampScalar>(2500, arrow::timestamp(arrow::TimeUnit::MILLI));
  auto t = Decode(EncodeColumnStatsRecord("key", "f", "t", times));
  EXPECT_EQ(t["ColumnStatsMetadata"]["minValue"]["value"], 1500000);  // micros
  // ... said with the value type TIMESTAMP_MICROS, so a millisecond column keeps its bounds.
  EXPECT_EQ(t["ColumnStatsMetadata"]["valueType"]["typeOrdinal"], 16);
  auto read_back = ColumnStatsFromRecord(t, *arrow::timestamp(arrow::TimeUnit::MILLI));
  ASSERT_TRUE(read_back.has_value() && read_back->min && read_back->max);
  EXPECT_EQ(static_cast<const arrow::TimestampScalar&>(*read_back->max).value, 2500000);
  ColumnStatsValue doubles;
  doubles.min = arrow::MakeScalar(0.25);
  doubles.max = arrow::MakeScalar(8.5);
  auto d = Decode(EncodeColumnStatsRecord("key", "f", "d", doubles));
  EXPECT_EQ(d["ColumnStatsMetadata"]["maxValue"]["value"], 8.5);
  ColumnStatsValue unbounded;  // all nulls: no min or max
  unbounded.null_count = 3;
  auto u = Decode(EncodeColumnStatsRecord("key", "f", "u", unbounded));
  EXPECT_TRUE(u["ColumnStatsMetadata"]["minValue"].is_null());
  EXPECT_TRUE(u["ColumnStatsMetadata"]["maxValue"].is_null());
}

TEST(MetadataRecord, DecimalBoundsAreStoredAtScaleFifteenAsHudiStoresThemAndComeBackExact) {
  const auto type = arrow::decimal128(15, 2);
  auto decimal = [&](int64_t unscaled) { return std::make_shared<arrow::Decimal128Scalar>(arrow::Decimal128(unscaled), type); };
  ColumnStatsValue amounts;
  amounts.min = decimal(-12345);  // -123.45
  amounts.max = decimal(98999);   //  989.99
  amounts.value_count = 4;
  const auto record = Decode(EncodeColumnStatsRecord("key", "f", "amount", amounts));
  // DecimalWrapper bytes: the unscaled value at scale 15, big-endian two's complement, minimal.
  const auto& min_bytes = record["ColumnStatsMetadata"]["minValue"]["value"];
  ASSERT_TRUE(min_bytes.is_binary()) << record.dump();
  const arrow::Decimal128 expected_min = arrow::Decimal128(-12345) * arrow::Decimal128::GetScaleMultiplier(13);
  auto decoded_min = arrow::Decimal128::FromBigEndian(min_bytes.get_binary().data(),
                                                      static_cast<int32_t>(min_bytes.get_binary().size()));
  ASSERT_TRUE(decoded_min.ok());
  EXPECT_EQ(*decoded_min, expected_min);
  EXPECT_LE(min_bytes.get_binary().size(), 9u);  // -1.2345e17 needs 8 bytes: no sign-extension padding
  auto stats = ColumnStatsFromRecord(record, *type);
  ASSERT_TRUE(stats.has_value());
  ASSERT_NE(stats->min, nullptr);
  ASSERT_NE(stats->max, nullptr);
  EXPECT_TRUE(stats->min->Equals(*amounts.min)) << stats->min->ToString();
  EXPECT_TRUE(stats->max->Equals(*amounts.max)) << stats->max->ToString();
  // Read under another scale, a bound is kept only when exact there.
  auto coarser = ColumnStatsFromRecord(record, *arrow::decimal128(10, 0));
  ASSERT_TRUE(coarser.has_value());
  EXPECT_EQ(coarser->min, nullptr);
  auto finer = ColumnStatsFromRecord(record, *arrow::decimal128(20, 4));
  ASSERT_TRUE(finer.has_value() && finer->max != nullptr);
  EXPECT_EQ(finer->max->ToString(), "989.9900");
  // Bounds the wrapper cannot hold (more than 15 decimals, more than 30 digits at scale 15)
  // are stored absent.
  for (const auto& wide : {std::make_shared<arrow::Decimal128Scalar>(arrow::Decimal128(1), arrow::decimal128(20, 18)),
                           std::make_shared<arrow::Decimal128Scalar>(arrow::Decimal128::GetScaleMultiplier(16),
                                                                     arrow::decimal128(38, 0))}) {
    ColumnStatsValue too_wide;
    too_wide.min = too_wide.max = wide;
    auto absent = Decode(EncodeColumnStatsRecord("key", "f", "w", too_wide));
    EXPECT_TRUE(absent["ColumnStatsMetadata"]["minValue"].is_null()) << wide->type->ToString();
    EXPECT_TRUE(absent["ColumnStatsMetadata"]["maxValue"].is_null()) << wide->type->ToString();
  }
}

TEST(MetadataRecord, ColumnStatsVersionsMergeAsHudiMergesThemAndStaySafeForPruning) {
  auto record = [](nlohmann::json min, nlohmann::json max, int64_t values, int64_t nulls, bool tight,
                   bool deleted = false) {
    nlohmann::json stats = {{"fileName", "f"},  {"columnName", "c"},       {"valueCount", values},
                            {"nullCount", nulls}, {"totalSize", 10},       {"totalUncompressedSize", 20},
                            {"isDeleted", deleted}, {"isTightBound", tight}};
    stats["minValue"] = min.is_null() ? nlohmann::json() : nlohmann::json{{"value", min}};
    stats["maxValue"] = max.is_null() ? nlohmann::json() : nlohmann::json{{"value", max}};
    return nlohmann::json{{"key", "k"}, {"type", 3}, {"ColumnStatsMetadata", stats}};
  };
  auto cs = [](const nlohmann::json& r) { return r["ColumnStatsMetadata"]; };
  // A loose newer version widens the older one; counts and sizes add up.
  auto widened = cs(MergeColumnStatsRecords(record(5, 9, 4, 1, true), record(2, 7, 3, 0, false)));
  EXPECT_EQ(widened["minValue"]["value"], 2);
  EXPECT_EQ(widened["maxValue"]["value"], 9);
  EXPECT_EQ(widened["valueCount"], 7);
  EXPECT_EQ(widened["nullCount"], 1);
  EXPECT_EQ(widened["totalSize"], 20);
  EXPECT_EQ(widened["isTightBound"], false);
  auto strings = cs(MergeColumnStatsRecords(record("b", "m", 2, 0, false), record("a", "k", 2, 0, false)));
  EXPECT_EQ(strings["minValue"]["value"], "a");
  EXPECT_EQ(strings["maxValue"]["value"], "m");
  // A tight newer version, or a tombstone on either side, replaces.
  EXPECT_EQ(cs(MergeColumnStatsRecords(record(5, 9, 4, 1, false), record(6, 7, 3, 0, true)))["minValue"]["value"], 6);
  EXPECT_EQ(cs(MergeColumnStatsRecords(record(5, 9, 4, 1, false), record(6, 7, 3, 0, false, true)))["isDeleted"], true);
  EXPECT_EQ(cs(MergeColumnStatsRecords(record(5, 9, 4, 1, false, true), record(6, 7, 3, 0, false)))["maxValue"]["value"],
            7);
  // A side without bounds: the other's bounds only when all its values are null.
  auto all_null = cs(MergeColumnStatsRecords(record(nullptr, nullptr, 3, 3, false), record(2, 4, 2, 0, false)));
  EXPECT_EQ(all_null["minValue"]["value"], 2);
  auto unknown = cs(MergeColumnStatsRecords(record(nullptr, nullptr, 3, 1, false), record(2, 4, 2, 0, false)));
  EXPECT_TRUE(unknown["minValue"].is_null());
  EXPECT_TRUE(unknown["maxValue"].is_null());
  // Bounds that cannot be compared here (bytes: a decimal or a binary) become absent.
  const nlohmann::json bytes = nlohmann::json::binary({0x01, 0x02});
  auto binary = cs(MergeColumnStatsRecords(record(bytes, bytes, 1, 0, false), record(bytes, bytes, 1, 0, false)));
  EXPECT_TRUE(binary["minValue"].is_null());
  auto mixed = cs(MergeColumnStatsRecords(record(1, 2, 1, 0, false), record("a", "b", 1, 0, false)));
  EXPECT_TRUE(mixed["maxValue"].is_null());
  // The merged bounds decode as any record's do.
  auto decoded = ColumnStatsFromRecord(MergeColumnStatsRecords(record(5, 9, 4, 1, true), record(2, 7, 3, 0, false)),
                                       *arrow::int64());
  ASSERT_TRUE(decoded.has_value() && decoded->min && decoded->max);
  EXPECT_EQ(decoded->min->ToString(), "2");
  EXPECT_EQ(decoded->max->ToString(), "9");
}

TEST(MetadataRecord, BoundsFollowTheValueTypeSparksWriterRecords) {
  auto record = [](nlohmann::json min, nlohmann::json max, nlohmann::json value_type) {
    return nlohmann::json{{"ColumnStatsMetadata",
                           {{"minValue", {{"value", min}}},
                            {"maxValue", {{"value", max}}},
                            {"valueCount", 2},
                            {"nullCount", 0},
                            {"valueType", value_type}}}};
  };
  auto type_of = [](int ordinal, nlohmann::json info = nullptr) {
    return nlohmann::json{{"typeOrdinal", ordinal}, {"additionalInfo", info}};
  };
  // V2 decimals: bytes at the scale the value type names ("10,2": 25.00 is 2500), not 15.
  const auto decimal = arrow::decimal128(10, 2);
  auto v2 = ColumnStatsFromRecord(record(nlohmann::json::binary({0x00}), nlohmann::json::binary({0x09, 0xc4}),
                                         type_of(10, "10,2")),
                                  *decimal);
  ASSERT_TRUE(v2.has_value() && v2->min && v2->max);
  EXPECT_EQ(v2->max->ToString(), "25.00");
  // The same bytes without a value type are DecimalWrapper's (scale 15): not exact at scale 2.
  auto v1 = ColumnStatsFromRecord(record(nlohmann::json::binary({0x00}), nlohmann::json::binary({0x09, 0xc4}), nullptr),
                                  *decimal);
  ASSERT_TRUE(v1.has_value());
  EXPECT_EQ(v1->max, nullptr);
  // Timestamps in the unit the ordinal names; nanoseconds rounded outwards.
  const auto micros = arrow::timestamp(arrow::TimeUnit::MICRO);
  auto millis = ColumnStatsFromRecord(record(1500, 2500, type_of(15)), *micros);
  ASSERT_TRUE(millis.has_value() && millis->min && millis->max);
  EXPECT_EQ(static_cast<const arrow::TimestampScalar&>(*millis->min).value, 1500000);
  auto nanos = ColumnStatsFromRecord(record(1999, 2001, type_of(17)), *micros);
  ASSERT_TRUE(nanos.has_value() && nanos->min && nanos->max);
  EXPECT_EQ(static_cast<const arrow::TimestampScalar&>(*nanos->min).value, 1);
  EXPECT_EQ(static_cast<const arrow::TimestampScalar&>(*nanos->max).value, 3);
  auto as_micros = ColumnStatsFromRecord(record(7, 9, type_of(16)), *micros);
  ASSERT_TRUE(as_micros.has_value() && as_micros->max);
  EXPECT_EQ(static_cast<const arrow::TimestampScalar&>(*as_micros->max).value, 9);
  // Without a value type, a millisecond column's integer bound could be in either unit: none.
  auto ambiguous = ColumnStatsFromRecord(record(1500, 2500, nullptr), *arrow::timestamp(arrow::TimeUnit::MILLI));
  ASSERT_TRUE(ambiguous.has_value());
  EXPECT_EQ(ambiguous->min, nullptr);
  // A value type of another kind than the column, or one this reader does not know: no bound.
  auto mismatched = ColumnStatsFromRecord(record(1, 2, type_of(7)), *arrow::int64());
  ASSERT_TRUE(mismatched.has_value());
  EXPECT_EQ(mismatched->min, nullptr);
  auto unknown = ColumnStatsFromRecord(record(1, 2, type_of(42)), *arrow::int64());
  ASSERT_TRUE(unknown.has_value());
  EXPECT_EQ(unknown->max, nullptr);
  auto longs = ColumnStatsFromRecord(record(1, 2, type_of(4)), *arrow::int64());
  ASSERT_TRUE(longs.has_value() && longs->max);
  EXPECT_EQ(longs->max->ToString(), "2");
}

TEST(MetadataRecord, BloomFilterRecordDecodesUnderTheSchema) {
  auto v = Decode(EncodeBloomFilterRecord("key", "DYNAMIC_V0", "20260101000000000", "AAAAAQ=="));
  EXPECT_EQ(v["type"], 4);
  const auto& info = v["BloomFilterMetadata"];
  EXPECT_EQ(info["type"], "DYNAMIC_V0");
  EXPECT_EQ(info["timestamp"], "20260101000000000");
  EXPECT_EQ(info["isDeleted"], false);
  ASSERT_TRUE(info["bloomFilter"].is_binary());
  const auto& bytes = info["bloomFilter"].get_binary();
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "AAAAAQ==");
}

TEST(MetadataRecord, DeletionMarkersAreToldFromTheirBytes) {
  EXPECT_TRUE(IsDeletionMarker(EncodeSecondaryIndexRecord(true)));
  EXPECT_FALSE(IsDeletionMarker(EncodeSecondaryIndexRecord(false)));
  std::string bloom = EncodeBloomFilterRecord("key", "DYNAMIC_V0", "20260101000000000", "AAAAAQ==");
  EXPECT_FALSE(IsDeletionMarker(bloom));
  bloom[bloom.size() - 4] = 1;  // isDeleted, before the three absent unions that end the record
  EXPECT_EQ(Decode(bloom)["BloomFilterMetadata"]["isDeleted"], true);
  EXPECT_TRUE(IsDeletionMarker(bloom));
  EXPECT_FALSE(IsDeletionMarker(EncodeRecordIndexRecord("k", "p", "f-0", 1)));
  EXPECT_FALSE(IsDeletionMarker(EncodeFilesRecord("p", MetadataRecordType::kFiles, {})));
  EXPECT_FALSE(IsDeletionMarker(""));
  EXPECT_FALSE(IsDeletionMarker(std::string(3, '\xff')));
}

}  // namespace
}  // namespace lakeshore::format
