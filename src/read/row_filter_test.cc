// The row filter: each operator keeps exactly the rows the partition filter's rules say (nulls
// included), and its pruning by column statistics is sound — a file whose rows some predicate
// keeps is never ruled out by that file's bounds — across random files and predicates.
#include "read/row_filter.h"

#include <random>

#include <arrow/compute/api.h>
#include <gtest/gtest.h>

namespace lakeshore {
namespace {

std::shared_ptr<arrow::Schema> Schema() {
  return arrow::schema({arrow::field("n", arrow::int64()), arrow::field("s", arrow::utf8()),
                        arrow::field("d", arrow::float64())});
}

std::shared_ptr<arrow::Array> Ints(const std::vector<std::optional<int64_t>>& values) {
  arrow::Int64Builder b;
  for (const auto& v : values) (void)(v ? b.Append(*v) : b.AppendNull());
  return *b.Finish();
}

std::shared_ptr<arrow::Array> Strings(const std::vector<std::optional<std::string>>& values) {
  arrow::StringBuilder b;
  for (const auto& v : values) (void)(v ? b.Append(*v) : b.AppendNull());
  return *b.Finish();
}

std::shared_ptr<arrow::Array> Doubles(const std::vector<std::optional<double>>& values) {
  arrow::DoubleBuilder b;
  for (const auto& v : values) (void)(v ? b.Append(*v) : b.AppendNull());
  return *b.Finish();
}

std::shared_ptr<arrow::Table> Rows(const std::vector<std::optional<int64_t>>& n) {
  std::vector<std::optional<std::string>> s;
  std::vector<std::optional<double>> d;
  for (const auto& v : n) {
    s.push_back(v ? std::optional<std::string>("s" + std::to_string(*v)) : std::nullopt);
    d.push_back(v ? std::optional<double>(static_cast<double>(*v) / 2) : std::nullopt);
  }
  return arrow::Table::Make(Schema(), {Ints(n), Strings(s), Doubles(d)});
}

std::vector<std::optional<int64_t>> Kept(const std::vector<PartitionPredicate>& predicates,
                                         const std::vector<std::optional<int64_t>>& n) {
  auto filter = RowFilter::Make(*Schema(), predicates);
  EXPECT_TRUE(filter.ok()) << filter.status();
  if (!filter.ok()) return {};
  auto kept = filter->Apply(Rows(n));
  EXPECT_TRUE(kept.ok()) << kept.status();
  if (!kept.ok()) return {};
  std::vector<std::optional<int64_t>> out;
  auto column = *arrow::Concatenate((*kept)->GetColumnByName("n")->chunks());
  const auto& ints = static_cast<const arrow::Int64Array&>(*column);
  for (int64_t i = 0; i < ints.length(); ++i) out.push_back(ints.IsNull(i) ? std::nullopt : std::optional<int64_t>(ints.Value(i)));
  return out;
}

PartitionPredicate P(std::string field, std::string op, std::shared_ptr<arrow::Array> values) {
  return {std::move(field), std::move(op), std::move(values)};
}

using N = std::vector<std::optional<int64_t>>;

TEST(RowFilter, EachOperatorKeepsTheRowsThePartitionRulesSay) {
  const N rows = {1, 2, std::nullopt, 3};
  EXPECT_EQ(Kept({P("n", "=", Ints({2}))}, rows), (N{2}));
  EXPECT_EQ(Kept({P("n", "==", Ints({2}))}, rows), (N{2}));
  EXPECT_EQ(Kept({P("n", "!=", Ints({2}))}, rows), (N{1, 3}));  // a comparison never keeps a null
  EXPECT_EQ(Kept({P("n", "<", Ints({2}))}, rows), (N{1}));
  EXPECT_EQ(Kept({P("n", "<=", Ints({2}))}, rows), (N{1, 2}));
  EXPECT_EQ(Kept({P("n", ">", Ints({2}))}, rows), (N{3}));
  EXPECT_EQ(Kept({P("n", ">=", Ints({2}))}, rows), (N{2, 3}));
  EXPECT_EQ(Kept({P("n", "in", Ints({1, 3}))}, rows), (N{1, 3}));
  EXPECT_EQ(Kept({P("n", "not in", Ints({1, 3}))}, rows), (N{2}));
  // Nulls: "= null" keeps the nulls, "!= null" the others, "in [.., null]" the nulls too,
  // "not in" never a null.
  EXPECT_EQ(Kept({P("n", "=", Ints({std::nullopt}))}, rows), (N{std::nullopt}));
  EXPECT_EQ(Kept({P("n", "!=", Ints({std::nullopt}))}, rows), (N{1, 2, 3}));
  EXPECT_EQ(Kept({P("n", "in", Ints({std::nullopt, 3}))}, rows), (N{std::nullopt, 3}));
  EXPECT_EQ(Kept({P("n", "not in", Ints({std::nullopt, 3}))}, rows), (N{1, 2}));
  // ANDed, on another column, with values given as strings of the column's type.
  EXPECT_EQ(Kept({P("n", ">", Ints({1})), P("s", "!=", Strings({"s3"}))}, rows), (N{2}));
  EXPECT_EQ(Kept({P("n", "=", Strings({"3"}))}, rows), (N{3}));
}

TEST(RowFilter, BadPredicatesAreClearErrors) {
  auto unknown = RowFilter::Make(*Schema(), {P("x", "=", Ints({1}))});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("'x' is not a column of the table"), std::string::npos) << unknown.status();
  auto wrong = RowFilter::Make(*Schema(), {P("n", "=", Strings({"seven"}))});
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("cannot be read as the field's type int64"), std::string::npos) << wrong.status();
  auto two = RowFilter::Make(*Schema(), {P("n", "<", Ints({1, 2}))});
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.status().message().find("takes exactly one value"), std::string::npos) << two.status();
  auto op = RowFilter::Make(*Schema(), {P("n", "~", Ints({1}))});
  ASSERT_FALSE(op.ok());
  EXPECT_NE(op.status().message().find("unknown filter operator '~'"), std::string::npos) << op.status();
  auto null_order = RowFilter::Make(*Schema(), {P("n", ">", Ints({std::nullopt}))});
  ASSERT_FALSE(null_order.ok());
  EXPECT_NE(null_order.status().message().find("a null can only be compared"), std::string::npos);
  // A nested column (list, struct, map) has no order and no equality the filter can use: the
  // predicate is refused when the filter is made, not by a compute kernel when rows are read.
  auto nested = arrow::schema({arrow::field("l", arrow::list(arrow::int64())),
                               arrow::field("st", arrow::struct_({arrow::field("x", arrow::int64())}))});
  arrow::ListBuilder lists(arrow::default_memory_pool(), std::make_shared<arrow::Int64Builder>());
  ASSERT_TRUE(lists.Append().ok());
  ASSERT_TRUE(static_cast<arrow::Int64Builder*>(lists.value_builder())->Append(1).ok());
  auto one_list = lists.Finish();
  ASSERT_TRUE(one_list.ok());
  for (const char* o : {"=", "<", "in", "!="}) {
    auto list_filter = RowFilter::Make(*nested, {P("l", o, *one_list)});
    ASSERT_FALSE(list_filter.ok()) << o;
    EXPECT_NE(list_filter.status().message().find("filter on 'l': a column of type list<item: int64> cannot be filtered"),
              std::string::npos)
        << list_filter.status();
  }
  // Whether it is null can be asked.
  arrow::StructBuilder structs(nested->field(1)->type(), arrow::default_memory_pool(),
                               {std::make_shared<arrow::Int64Builder>()});
  ASSERT_TRUE(structs.Append().ok());
  ASSERT_TRUE(static_cast<arrow::Int64Builder*>(structs.field_builder(0))->Append(7).ok());
  ASSERT_TRUE(structs.AppendNull().ok());
  ASSERT_TRUE(lists.Append().ok());
  ASSERT_TRUE(lists.AppendNull().ok());
  auto list_column = lists.Finish();
  auto struct_column = structs.Finish();
  ASSERT_TRUE(list_column.ok() && struct_column.ok());
  auto rows = arrow::Table::Make(nested, {*list_column, *struct_column});
  auto null_value = arrow::MakeArrayOfNull(arrow::null(), 1);
  ASSERT_TRUE(null_value.ok());
  for (const auto& [field, op, kept] : std::vector<std::tuple<std::string, std::string, int64_t>>{
           {"st", "=", 1}, {"st", "!=", 1}, {"l", "=", 1}, {"l", "!=", 1}}) {
    auto null_filter = RowFilter::Make(*nested, {P(field, op, *null_value)});
    ASSERT_TRUE(null_filter.ok()) << null_filter.status();
    auto applied = null_filter->Apply(rows);
    ASSERT_TRUE(applied.ok()) << applied.status();
    EXPECT_EQ((*applied)->num_rows(), kept) << field << " " << op;
  }
  auto struct_value = RowFilter::Make(*nested, {P("st", "=", arrow::MakeArrayOfNull(arrow::null(), 2).ValueOr(nullptr))});
  ASSERT_FALSE(struct_value.ok());  // = takes one value
  auto in_null = RowFilter::Make(*nested, {P("st", "in", *null_value)});
  ASSERT_FALSE(in_null.ok());
  EXPECT_NE(in_null.status().message().find("a column of type struct<x: int64> cannot be filtered but by = None"),
            std::string::npos)
      << in_null.status();
}

/// The statistics a file of `rows` has (as its footer would give them), column by column.
std::map<std::string, format::ColumnStatsValue> StatsOf(const std::shared_ptr<arrow::Table>& rows) {
  std::map<std::string, format::ColumnStatsValue> out;
  for (int c = 0; c < rows->num_columns(); ++c) {
    format::ColumnStatsValue v;
    auto column = rows->column(c);
    v.null_count = column->null_count();
    v.value_count = column->length();
    if (v.null_count < v.value_count) {
      auto minmax = arrow::compute::MinMax(column);
      EXPECT_TRUE(minmax.ok());
      const auto& pair = static_cast<const arrow::StructScalar&>(*minmax->scalar());
      v.min = pair.value[0];
      v.max = pair.value[1];
    }
    out[rows->schema()->field(c)->name()] = v;
  }
  return out;
}

TEST(RowFilter, PruningBySoundStatisticsNeverDropsAFileWithAMatch) {
  std::mt19937_64 rng(7);
  const char* ops[] = {"=", "!=", "<", "<=", ">", ">=", "in", "not in"};
  int pruned = 0;
  for (int round = 0; round < 3000; ++round) {
    // A small file of values around a random center, sometimes with nulls, sometimes one value.
    const int64_t center = static_cast<int64_t>(rng() % 40);
    const int spread = static_cast<int>(rng() % 4);
    N n;
    for (int i = 0, rows = 1 + static_cast<int>(rng() % 5); i < rows; ++i) {
      if (rng() % 6 == 0) {
        n.push_back(std::nullopt);
      } else {
        n.push_back(center + (spread ? static_cast<int64_t>(rng() % (spread + 1)) : 0));
      }
    }
    std::vector<PartitionPredicate> predicates;
    for (int k = 0, count = 1 + static_cast<int>(rng() % 2); k < count; ++k) {
      const std::string op = ops[rng() % 8];
      const bool set = op == "in" || op == "not in";
      const bool equality = set || op == "=" || op == "!=";
      std::vector<std::optional<int64_t>> values;
      for (int v = 0, m = set ? 1 + static_cast<int>(rng() % 3) : 1; v < m; ++v) {
        if (equality && rng() % 5 == 0) {
          values.push_back(std::nullopt);
        } else {
          values.push_back(static_cast<int64_t>(rng() % 48) - 4);
        }
      }
      // On the integers, their strings or their halves (floating point).
      const int column = static_cast<int>(rng() % 3);
      if (column == 0) {
        predicates.push_back(P("n", op, Ints(values)));
      } else if (column == 1) {
        std::vector<std::optional<std::string>> s;
        for (const auto& v : values) s.push_back(v ? std::optional<std::string>("s" + std::to_string(*v)) : std::nullopt);
        predicates.push_back(P("s", op, Strings(s)));
      } else {
        std::vector<std::optional<double>> d;
        for (const auto& v : values) d.push_back(v ? std::optional<double>(static_cast<double>(*v) / 2) : std::nullopt);
        predicates.push_back(P("d", op, Doubles(d)));
      }
    }
    auto filter = RowFilter::Make(*Schema(), predicates);
    ASSERT_TRUE(filter.ok()) << filter.status();
    auto rows = Rows(n);
    auto kept = filter->Apply(rows);
    ASSERT_TRUE(kept.ok()) << kept.status();
    const bool may = filter->MayMatch(StatsOf(rows));
    if ((*kept)->num_rows() > 0) ASSERT_TRUE(may) << "round " << round << ": a file with a match was pruned";
    pruned += !may;
    // Without statistics, nothing is pruned.
    ASSERT_TRUE(filter->MayMatch({}));
  }
  EXPECT_GT(pruned, 500);  // and the statistics do prune
}

TEST(RowFilter, StatisticsThatCannotBeComparedProveNothing) {
  auto filter = *RowFilter::Make(*Schema(), {P("n", "=", Ints({5})), P("d", "!=", Doubles({1.0}))});
  format::ColumnStatsValue strings;  // bounds of another type than the column's
  strings.min = std::make_shared<arrow::StringScalar>("x");
  strings.max = std::make_shared<arrow::StringScalar>("y");
  EXPECT_TRUE(filter.MayMatch({{"n", strings}}));
  format::ColumnStatsValue unknown_nulls;  // no bounds, null count unknown
  unknown_nulls.null_count = -1;
  auto is_null = *RowFilter::Make(*Schema(), {P("n", "=", Ints({std::nullopt}))});
  EXPECT_TRUE(is_null.MayMatch({{"n", unknown_nulls}}));
  // A floating-point column whose bounds are one value may still hold a NaN, which != keeps.
  format::ColumnStatsValue ones;
  ones.min = arrow::MakeScalar(1.0);
  ones.max = arrow::MakeScalar(1.0);
  EXPECT_TRUE(filter.MayMatch({{"d", ones}}));
}

}  // namespace
}  // namespace lakeshore
