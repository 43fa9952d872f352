#include <gtest/gtest.h>

#include "format/java_properties.h"
#include "format/table_checksum.h"
#include "testing/hudi_tables.h"

namespace lakeshore::format {
namespace {

Result<JavaProperties> SharedProperties(const std::string& fixture) {
  std::string text = lakeshore::testing::ReadHudiTablesFile("unit/" + fixture + "/.hoodie/hoodie.properties");
  if (text.empty()) return Status::IOError("fixture ", fixture, " not found");
  return JavaProperties::Parse(text, fixture);
}

TEST(TableChecksum, IsTheCrc32OfDatabaseDotTableName) {
  JavaProperties p;
  p.Set("hoodie.table.name", "trips");
  EXPECT_EQ(*TableChecksum(p), "3761586722");  // ".trips": no database
  p.Set("hoodie.database.name", "default");
  p.Set("hoodie.table.name", "v6_empty");
  EXPECT_EQ(*TableChecksum(p), "1980710965");
  EXPECT_FALSE(TableChecksum(JavaProperties()).ok());
}

TEST(TableChecksum, ValidatesTheFilesSparkWrote) {
  if (lakeshore::testing::HudiTablesPath("").empty()) GTEST_SKIP() << "shared/hudi-tables not found";
  for (const char* ok : {"table_props_valid_minimum", "table_props_partial", "table_props_no_create_schema"}) {
    auto p = SharedProperties(ok);
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_TRUE(ValidateTableChecksum(*p, ok).ok()) << ok;
  }
  // Its database name was added after the checksum was computed (the stored value is the
  // checksum of ".trips"): Hudi's reader refuses it; so do we, naming both values.
  auto edited = SharedProperties("table_props_valid");
  ASSERT_TRUE(edited.ok());
  auto st = ValidateTableChecksum(*edited, "table_props_valid");
  EXPECT_TRUE(IsError(st, ErrorKind::kCorruptMetadata));
  EXPECT_NE(st.message().find("3761586722 but the table and database names give 2086522725"), std::string::npos) << st;
  // A checksum that is not a number.
  auto invalid = SharedProperties("table_props_invalid");
  ASSERT_TRUE(invalid.ok());
  EXPECT_TRUE(IsError(ValidateTableChecksum(*invalid, "table_props_invalid"), ErrorKind::kCorruptMetadata));
}

TEST(TableChecksum, ADocumentWithoutChecksumIsAcceptedAsHudiDoes) {
  auto p = JavaProperties::Parse("hoodie.table.name=t\n", "x");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(ValidateTableChecksum(*p, "x").ok());
}

}  // namespace
}  // namespace lakeshore::format
