#include <random>

#include <gtest/gtest.h>

#include "common/utf8.h"
#include "format/java_properties.h"
#include "testing/hudi_tables.h"

namespace lakeshore::format {
namespace {

JavaProperties MustParse(std::string_view text) {
  auto parsed = JavaProperties::Parse(text, "test.properties");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : JavaProperties();
}

TEST(JavaProperties, ParsesTheSyntaxOfPropertiesLoad) {
  auto p = MustParse(
      "# comment\n"
      "  ! another comment\n"
      "a=1\n"
      "b : 2\n"
      "c 3\n"
      "d=\n"
      "e\n"
      "  f = spaced value  \n"
      "g=one \\\n"
      "    two\n"
      "h=tab\\tnew\\nline\\\\back\n"
      "k\\ ey\\:x=v\\=w\r\n"
      "u=\\u00e9\\u4e2d\\uD83D\\uDE00\r"
      "dup=first\n"
      "dup=second\n");
  EXPECT_EQ(p.Get("a"), "1");
  EXPECT_EQ(p.Get("b"), "2");
  EXPECT_EQ(p.Get("c"), "3");
  EXPECT_EQ(p.Get("d"), "");
  EXPECT_EQ(p.Get("e"), "");
  EXPECT_EQ(p.Get("f"), "spaced value  ");
  EXPECT_EQ(p.Get("g"), "one two");
  EXPECT_EQ(p.Get("h"), "tab\tnew\nline\\back");
  EXPECT_EQ(p.Get("k ey:x"), "v=w");
  EXPECT_EQ(p.Get("u"), "\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80");
  EXPECT_EQ(p.Get("dup"), "second");
  EXPECT_FALSE(p.Get("missing").has_value());
  EXPECT_EQ(p.entries().front().first, "a");  // document order
}

TEST(JavaProperties, BytesAboveAsciiAreLatin1AsPropertiesLoadReadsThem) {
  auto p = MustParse("name=caf\xE9\n");
  EXPECT_EQ(p.Get("name"), "caf\xC3\xA9");
}

TEST(JavaProperties, MalformedUnicodeEscapeIsCorruptMetadataNamingTheLine) {
  auto p = JavaProperties::Parse("a=1\nb=\\u12g4\n", "t/.hoodie/hoodie.properties");
  ASSERT_FALSE(p.ok());
  EXPECT_TRUE(IsError(p.status(), ErrorKind::kCorruptMetadata));
  EXPECT_NE(p.status().message().find("t/.hoodie/hoodie.properties' line 2"), std::string::npos) << p.status();
  EXPECT_FALSE(JavaProperties::Parse("a=\\u12", "x").ok());
}

TEST(JavaProperties, RenderRoundTripsEveryCharacter) {
  JavaProperties p;
  p.Set("plain.key", "value");
  p.Set(" lead space key", " lead space value");
  p.Set("sep=:#!\\", "sep=:#!\\ and \t\n\r\f");
  p.Set("unicode", "\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80");
  p.Set("empty", "");
  std::string text = p.Render("Updated at 1");
  EXPECT_EQ(text.rfind("#Updated at 1\n", 0), 0u);
  EXPECT_NE(text.find("unicode=\\u00E9\\u4E2D\\uD83D\\uDE00\n"), std::string::npos) << text;
  auto back = MustParse(text);
  EXPECT_EQ(back.entries(), p.entries());
}

TEST(JavaProperties, SetReplacesInPlaceAndRemoveDeletes) {
  auto p = MustParse("a=1\nb=2\n");
  p.Set("a", "3");
  p.Set("c", "4");
  EXPECT_TRUE(p.Remove("b"));
  EXPECT_FALSE(p.Remove("b"));
  EXPECT_EQ(p.Render(), "a=3\nc=4\n");
}

TEST(JavaProperties, ReadsTheHoodiePropertiesSparkWrote) {
  std::string text = lakeshore::testing::ReadHudiTablesFile("unit/table_props_valid/.hoodie/hoodie.properties");
  if (text.empty()) GTEST_SKIP() << "shared/hudi-tables not found beside the checkout";
  auto p = MustParse(text);
  EXPECT_EQ(p.Get("hoodie.table.name"), "trips");
  EXPECT_EQ(p.Get("hoodie.table.type"), "copy_on_write");
  EXPECT_EQ(p.Get("hoodie.table.version"), "6");
  EXPECT_EQ(p.Get("hoodie.table.keygenerator.class"), "org.apache.hudi.keygen.SimpleKeyGenerator");
  EXPECT_EQ(p.Get("hoodie.table.metadata.partitions.inflight"), "");
  EXPECT_EQ(p.entries().size(), 21u);
  EXPECT_EQ(MustParse(p.Render()).entries(), p.entries());
}

TEST(JavaProperties, RandomBytesNeverCrashAndRandomEntriesRoundTrip) {
  std::mt19937 rng(12345);
  const std::string alphabet = std::string("ab =:#!\\\t\n\r\f u0123456789ABCDEFxyz") + "\xC3\xA9\xE4\xB8\xAD\x80\xFF";
  auto random_string = [&](size_t max_len) {
    std::string s;
    size_t n = rng() % (max_len + 1);
    for (size_t i = 0; i < n; ++i) s.push_back(alphabet[rng() % alphabet.size()]);
    return s;
  };
  for (int round = 0; round < 2000; ++round) {
    (void)JavaProperties::Parse(random_string(64), "fuzz");  // any outcome but a crash
  }
  for (int round = 0; round < 500; ++round) {
    JavaProperties p;
    for (int k = 0, n = static_cast<int>(rng() % 6); k < n; ++k) {
      // Valid UTF-8 only: a document holds text.
      std::string key = "k" + std::to_string(k) + random_string(8), value = random_string(12);
      auto valid = [](const std::string& s) { return IsValidUtf8(s); };
      if (valid(key) && valid(value)) p.Set(key, value);
    }
    auto back = JavaProperties::Parse(p.Render("c"), "roundtrip");
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->entries(), p.entries()) << p.Render();
  }
}

}  // namespace
}  // namespace lakeshore::format

