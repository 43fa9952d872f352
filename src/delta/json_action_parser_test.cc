#include "delta/json_action_parser.h"

#include <cstdint>
#include <string>

#include <gtest/gtest.h>

namespace lakeshore::delta {
namespace {

Result<ActionSet> Parse(const std::string& text) { return ParseJsonCommit(text, "_delta_log/00000000000000000007.json"); }

void ExpectCorrupt(const std::string& text, const std::string& says) {
  auto parsed = Parse(text);
  ASSERT_FALSE(parsed.ok()) << text;
  EXPECT_TRUE(IsError(parsed.status(), ErrorKind::kCorruptMetadata)) << parsed.status();
  EXPECT_NE(parsed.status().message().find("00000000000000000007.json"), std::string::npos) << parsed.status();
  EXPECT_NE(parsed.status().message().find(says), std::string::npos) << parsed.status();
}

TEST(JsonActionParser, ReadsEveryActionAndSkipsTheRest) {
  std::string text =
      R"({"commitInfo":{"timestamp":1700000000000,"inCommitTimestamp":1700000000123,"operation":"WRITE","operationParameters":{"mode":"Append","x":[1,2.5e3,true,false,null]}}})"
      "\n"
      R"({"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["deletionVectors"],"writerFeatures":["deletionVectors",null,"inCommitTimestamp"]}})"
      "\n"
      R"({"metaData":{"id":"abc","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\"}","partitionColumns":["p"],"configuration":{"delta.enableDeletionVectors":"true","other.key":{"nested":1},"delta.enableChangeDataFeed":null},"createdTime":1}})"
      "\n\n  \r\n"
      R"({"add":{"path":"p=1/a%20b.parquet","partitionValues":{"p":"1"},"size":123,"modificationTime":456,"dataChange":true,"stats":"{\"numRecords\":3,\"minValues\":{\"s\":\"a\\\"b\"}}","tags":null,"deletionVector":{"storageType":"u","pathOrInlineDv":"ab^-aqEH.-t@S}K{vb[*k^","offset":1,"sizeInBytes":36,"cardinality":2}}})"
      "\r\n"
      R"({"remove":{"path":"p=1\/old.parquet","deletionTimestamp":789,"dataChange":true,"size":9}})"
      "\n"
      R"({"cdc":{"path":"_change_data/c.parquet","partitionValues":{},"size":5,"dataChange":false}})"
      "\n"
      R"({"txn":{"appId":"a","version":3}})"
      "\n"
      R"({"sidecar":{"path":"s.parquet","sizeInBytes":77,"modificationTime":1}})";
  auto parsed = Parse(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const ActionSet& a = *parsed;
  EXPECT_EQ(a.num_actions, 7);  // txn is not an action Lakeshore reads
  ASSERT_TRUE(a.commit_info.has_value());
  EXPECT_EQ(a.commit_info->timestamp, 1700000000000);
  EXPECT_EQ(a.commit_info->in_commit_timestamp, 1700000000123);
  EXPECT_EQ(a.commit_info->operation, "WRITE");
  ASSERT_TRUE(a.protocol.has_value());
  EXPECT_EQ(a.protocol->min_reader_version, 3);
  EXPECT_EQ(a.protocol->min_writer_version, 7);
  EXPECT_EQ(a.protocol->reader_features, std::vector<std::string>{"deletionVectors"});
  EXPECT_EQ(a.protocol->writer_features, (std::vector<std::string>{"deletionVectors", "inCommitTimestamp"}));
  ASSERT_TRUE(a.metadata.has_value());
  EXPECT_EQ(a.metadata->id, "abc");
  EXPECT_EQ(a.metadata->partition_columns, std::vector<std::string>{"p"});
  EXPECT_EQ(a.metadata->configuration, (std::map<std::string, std::string>{{"delta.enableDeletionVectors", "true"}}));
  ASSERT_EQ(a.adds.size(), 1u);
  EXPECT_EQ(a.adds[0].path, "p=1/a b.parquet");
  EXPECT_EQ(a.adds[0].size, 123);
  EXPECT_EQ(a.adds[0].modification_time, 456);
  ASSERT_TRUE(a.adds[0].deletion_vector.has_value());
  EXPECT_EQ(a.adds[0].deletion_vector->storage_type, "u");
  EXPECT_EQ(a.adds[0].deletion_vector->path_or_inline_dv, "ab^-aqEH.-t@S}K{vb[*k^");
  EXPECT_EQ(a.adds[0].deletion_vector->offset, 1);
  EXPECT_EQ(a.adds[0].deletion_vector->size_in_bytes, 36);
  EXPECT_EQ(a.adds[0].deletion_vector->cardinality, 2);
  ASSERT_EQ(a.removes.size(), 1u);
  EXPECT_EQ(a.removes[0].path, "p=1/old.parquet");
  EXPECT_EQ(a.removes[0].deletion_timestamp, 789);
  EXPECT_EQ(a.removes[0].size, 9);
  EXPECT_FALSE(a.removes[0].deletion_vector.has_value());
  ASSERT_EQ(a.cdc.size(), 1u);
  EXPECT_EQ(a.cdc[0].size, 5);
  ASSERT_EQ(a.sidecars.size(), 1u);
  EXPECT_EQ(a.sidecars[0].path, "s.parquet");
  EXPECT_EQ(a.sidecars[0].size_in_bytes, 77);
}

TEST(JsonActionParser, DecodesStringEscapesIncludingSurrogatePairs) {
  auto parsed = Parse(R"({"add":{"path":"\u00e9\ud83d\ude00\t\"\\\/x","size":1}})");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->adds.size(), 1u);
  EXPECT_EQ(parsed->adds[0].path, "\xC3\xA9\xF0\x9F\x98\x80\t\"\\/x");
  // An escaped field name is still recognized.
  auto escaped_key = Parse(R"({"\u0061dd":{"p\u0061th":"k.parquet"}})");
  ASSERT_TRUE(escaped_key.ok()) << escaped_key.status();
  ASSERT_EQ(escaped_key->adds.size(), 1u);
  EXPECT_EQ(escaped_key->adds[0].path, "k.parquet");
}

TEST(JsonActionParser, NullActionsAndFieldsAreAbsent) {
  auto parsed = Parse(R"({"add":null,"remove":{"path":"r","deletionTimestamp":null,"size":null,"deletionVector":null}})");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->adds.empty());
  ASSERT_EQ(parsed->removes.size(), 1u);
  EXPECT_FALSE(parsed->removes[0].deletion_timestamp.has_value());
  EXPECT_FALSE(parsed->removes[0].size.has_value());
  auto unknown_only = Parse("{}\n{\"txn\":{}}\n");
  ASSERT_TRUE(unknown_only.ok()) << unknown_only.status();
  EXPECT_EQ(unknown_only->num_actions, 0);
}

TEST(JsonActionParser, MalformedJsonIsCorruptAndNamesTheLine) {
  ExpectCorrupt("", "is empty");
  ExpectCorrupt("\n \n", "holds no action");
  ExpectCorrupt("{\"add\":{\"path\":\"x\",\"size\":1}}\n{\"remove\":{\"pa", "line 2");
  ExpectCorrupt("not json\n", "line 1");
  ExpectCorrupt("{\"add\":{\"path\":\"x\"}} {}\n", "unexpected text");
  ExpectCorrupt("[1,2]\n", "expected an object");
  ExpectCorrupt("{\"add\":{\"path\":\"x\",}}\n", "field name");
  ExpectCorrupt("{\"add\":{\"path\":\"x\" \"size\":1}}\n", "expected ','");
  ExpectCorrupt("{\"x\":tru}\n", "invalid value");
  ExpectCorrupt("{\"x\":01}\n", "expected ','");
  ExpectCorrupt("{\"x\":-}\n", "invalid value");
  ExpectCorrupt("{\"x\":\"a\\q\"}\n", "invalid escape");
  ExpectCorrupt("{\"x\":\"\\ud800x\"}\n", "unpaired surrogate");
  ExpectCorrupt("{\"x\":\"\\udc00\"}\n", "unpaired surrogate");
  ExpectCorrupt("{\"x\":\"\\u12\"}\n", "escape");
  ExpectCorrupt(std::string("{\"x\":\"a\tb\"}\n"), "control character");
  // An object split over lines is not a Delta commit line.
  ExpectCorrupt("{\"add\":\n{\"path\":\"x\"}}\n", "line 1");
  // Deep nesting is an error, never a stack overflow.
  ExpectCorrupt("{\"x\":" + std::string(100000, '[') + std::string(100000, ']') + "}\n", "nesting deeper");
  std::string objects;
  for (int k = 0; k < 5000; ++k) objects += "{\"a\":";
  ExpectCorrupt("{\"x\":" + objects, "nesting deeper");
}

TEST(JsonActionParser, KnownFieldsOfTheWrongTypeAreCorrupt) {
  ExpectCorrupt(R"({"add":{"path":7}})", "'path' is not a string");
  ExpectCorrupt(R"({"add":{"path":"x","size":"12"}})", "'size' is not a number");
  ExpectCorrupt(R"({"add":{"path":"x","size":1.5}})", "'size' is not an integer");
  ExpectCorrupt(R"({"add":{"path":"x","size":1e3}})", "'size' is not an integer");
  ExpectCorrupt(R"({"add":{"path":"x","size":99999999999999999999}})", "'size' is out of range");
  ExpectCorrupt(R"({"add":{"path":"x","deletionVector":{"storageType":"u","pathOrInlineDv":"z","offset":3000000000}}})",
                "'offset' is out of range");
  ExpectCorrupt(R"({"add":{"path":"x","deletionVector":[]}})", "expected an object");
  ExpectCorrupt(R"({"add":"x"})", "expected an object");
  ExpectCorrupt(R"({"metaData":{"partitionColumns":"p"}})", "'partitionColumns' is not a list");
  ExpectCorrupt(R"({"metaData":{"partitionColumns":[1]}})", "not a string");
  ExpectCorrupt(R"({"metaData":{"configuration":{"delta.enableDeletionVectors":true}}})", "is not a string");
  ExpectCorrupt(R"({"protocol":{"minReaderVersion":"1","minWriterVersion":2}})", "'minReaderVersion' is not a number");
}

TEST(JsonActionParser, ProtocolRulesAreCheckedPerAction) {
  ExpectCorrupt("{\"commitInfo\":{}}\n{\"add\":{\"size\":3}}\n", "action 2: add action without a path");
  ExpectCorrupt(R"({"remove":{"path":""}})", "remove action without a path");
  ExpectCorrupt(R"({"add":{"path":"bad%2"}})", "add path");
  ExpectCorrupt(R"({"add":{"path":"x","deletionVector":{"storageType":"u"}}})", "without storageType or pathOrInlineDv");
  ExpectCorrupt(R"({"add":{"path":"x","deletionVector":{"storageType":"q","pathOrInlineDv":"z"}}})",
                "storage type 'q'");
  ExpectCorrupt(R"({"protocol":{"minReaderVersion":1}})", "without minReaderVersion/minWriterVersion");
  ExpectCorrupt(R"({"sidecar":{"sizeInBytes":1}})", "sidecar action without a path");
}

// A commit of many lines (blank ones, a protocol and metaData in the middle and at the end)
// parsed in pieces side by side gives what a single pass gives, and so does its first error.
std::string ManyLines(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) {
    if (i % 97 == 0) text += "\n";
    if (i == n / 2 || i == n - 1) {
      text += R"({"protocol":{"minReaderVersion":1,"minWriterVersion":)" + std::to_string(2 + i) + "}}\n";
      text += R"({"metaData":{"id":"m)" + std::to_string(i) + R"(","partitionColumns":[]}})" "\n";
    }
    text += (i % 3 == 0 ? R"({"remove":{"path":"p=1/f)" : R"({"add":{"path":"p=1/f)") + std::to_string(i) +
            R"(.parquet","size":)" + std::to_string(i) + R"(,"stats":"{\"numRecords\":1}"}})" "\n";
  }
  return text;
}

TEST(JsonActionParser, ALargeCommitParsedInPiecesEqualsOnePass) {
  const std::string source = "_delta_log/00000000000000000007.json";
  const std::string text = ManyLines(5000);
  auto whole = ParseJsonCommit(text, source, SIZE_MAX);
  ASSERT_TRUE(whole.ok()) << whole.status();
  for (size_t split : {size_t{1}, size_t{1000}, text.size()}) {
    auto pieces = ParseJsonCommit(text, source, split);
    ASSERT_TRUE(pieces.ok()) << pieces.status();
    ASSERT_EQ(pieces->adds.size(), whole->adds.size());
    ASSERT_EQ(pieces->removes.size(), whole->removes.size());
    for (size_t i = 0; i < whole->adds.size(); ++i) EXPECT_EQ(pieces->adds[i].path, whole->adds[i].path);
    for (size_t i = 0; i < whole->removes.size(); ++i) EXPECT_EQ(pieces->removes[i].path, whole->removes[i].path);
    ASSERT_TRUE(pieces->protocol && pieces->metadata);
    EXPECT_EQ(pieces->protocol->min_writer_version, whole->protocol->min_writer_version);
    EXPECT_EQ(pieces->metadata->id, whole->metadata->id);
    EXPECT_EQ(pieces->num_actions, whole->num_actions);
  }
  EXPECT_EQ(whole->metadata->id, "m4999");  // the last one wins
  // A syntax error and a protocol error late in the file: the same message, line and action.
  std::string broken = text + text;
  broken.insert(broken.rfind("\n{", broken.size() - 300) + 1, "#");
  std::string no_path = text + R"({"add":{"size":1}})" "\n" + text;
  for (const std::string* bad : {&broken, &no_path}) {
    auto single = ParseJsonCommit(*bad, source, SIZE_MAX);
    auto split = ParseJsonCommit(*bad, source, 1);
    ASSERT_FALSE(single.ok());
    ASSERT_FALSE(split.ok());
    EXPECT_TRUE(IsError(split.status(), ErrorKind::kCorruptMetadata));
    EXPECT_EQ(split.status().message(), single.status().message());
  }
  // Only blank lines, in pieces: no action.
  auto blank = ParseJsonCommit(std::string(4096, '\n'), source, 1);
  ASSERT_FALSE(blank.ok());
  EXPECT_NE(blank.status().message().find("holds no action"), std::string::npos) << blank.status();
}

}  // namespace
}  // namespace lakeshore::delta
