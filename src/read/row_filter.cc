#include "read/row_filter.h"

#include <algorithm>
#include <cmath>

#include <arrow/compute/api.h>

#include "common/arrow_cast.h"

namespace lakeshore {
namespace {

namespace cp = arrow::compute;

/// The mask of one predicate over `column` (true, false or null; null drops the row).
Result<arrow::Datum> Mask(const TypedPredicate& p, const arrow::Datum& column) {
  ARROW_ASSIGN_OR_RAISE(auto non_null, cp::DropNull(p.values));
  auto single = [&]() -> Result<std::shared_ptr<arrow::Scalar>> { return p.values->GetScalar(0); };
  switch (p.op) {
    case PredicateOp::kEq:
      if (p.has_null) return cp::IsNull(column);
      return cp::CallFunction("equal", {column, arrow::Datum(*single())});
    case PredicateOp::kNe:
      if (p.has_null) return cp::IsValid(column);
      return cp::CallFunction("not_equal", {column, arrow::Datum(*single())});
    case PredicateOp::kLt: return cp::CallFunction("less", {column, arrow::Datum(*single())});
    case PredicateOp::kLe: return cp::CallFunction("less_equal", {column, arrow::Datum(*single())});
    case PredicateOp::kGt: return cp::CallFunction("greater", {column, arrow::Datum(*single())});
    case PredicateOp::kGe: return cp::CallFunction("greater_equal", {column, arrow::Datum(*single())});
    case PredicateOp::kIn: {
      // A null matches only when a null is asked for (MATCH); then every value is true or false.
      cp::SetLookupOptions options(p.values, cp::SetLookupOptions::MATCH);
      return cp::IsIn(column, options);
    }
    case PredicateOp::kNotIn: {
      cp::SetLookupOptions options(non_null.make_array(), cp::SetLookupOptions::MATCH);
      ARROW_ASSIGN_OR_RAISE(auto in, cp::IsIn(column, options));
      ARROW_ASSIGN_OR_RAISE(auto out, cp::Invert(in));
      ARROW_ASSIGN_OR_RAISE(auto valid, cp::IsValid(column));
      return cp::And(out, valid);
    }
  }
  return Status::Invalid("unknown filter operator");
}

/// a `function` b, for two scalars; nullopt when they cannot be compared.
std::optional<bool> Holds(const char* function, const std::shared_ptr<arrow::Scalar>& a,
                          const std::shared_ptr<arrow::Scalar>& b) {
  if (!a || !b || !a->is_valid || !b->is_valid) return std::nullopt;
  auto r = cp::CallFunction(function, {arrow::Datum(a), arrow::Datum(b)});
  if (!r.ok() || !r->is_scalar()) return std::nullopt;
  const auto& s = *r->scalar();
  if (!s.is_valid || s.type->id() != arrow::Type::BOOL) return std::nullopt;
  return static_cast<const arrow::BooleanScalar&>(s).value;
}

bool IsNaN(const arrow::Scalar& s) {
  if (!s.is_valid) return false;
  if (s.type->id() == arrow::Type::DOUBLE) return std::isnan(static_cast<const arrow::DoubleScalar&>(s).value);
  if (s.type->id() == arrow::Type::FLOAT) return std::isnan(static_cast<const arrow::FloatScalar&>(s).value);
  return false;
}

/// True unless `stats` prove no value of the file satisfies `p`; `sorted` (may be null) holds
/// p's non-null values in ascending order.
bool PredicateMayMatch(const TypedPredicate& p, const std::shared_ptr<arrow::Array>& sorted,
                       const format::ColumnStatsValue& stats) {
  const bool floating = arrow::is_floating(p.values->type()->id());
  // The null side of the predicate.
  if (p.has_null && (p.op == PredicateOp::kEq || p.op == PredicateOp::kIn)) {
    if (stats.null_count != 0) return true;  // nulls, or a count not known
    if (p.op == PredicateOp::kEq) return false;  // is null, and the file has no null
  }
  if (p.has_null && p.op == PredicateOp::kNe) return true;  // is not null: the count of values is not trusted
  if (!stats.min || !stats.max || !stats.min->is_valid || !stats.max->is_valid) return true;
  // A file written before its float column widened to double states float bounds: they widen
  // as its values read (FloatAsDouble, which keeps order), not by Arrow's exact cast.
  auto widened = [&](const std::shared_ptr<arrow::Scalar>& bound) -> std::shared_ptr<arrow::Scalar> {
    if (bound->type->id() != arrow::Type::FLOAT || p.values->type_id() != arrow::Type::DOUBLE) return bound;
    return std::make_shared<arrow::DoubleScalar>(FloatAsDouble(static_cast<const arrow::FloatScalar&>(*bound).value));
  };
  const std::shared_ptr<arrow::Scalar> min = widened(stats.min);
  const std::shared_ptr<arrow::Scalar> max = widened(stats.max);
  if (sorted && (p.op == PredicateOp::kEq || p.op == PredicateOp::kIn)) {
    // The first value not below min, by binary search; some value lies in [min, max] iff it
    // does. A comparison that cannot be made proves nothing.
    int64_t lo = 0, hi = sorted->length();
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      auto v = sorted->GetScalar(mid);
      if (!v.ok()) return true;
      auto below = Holds("less", *v, min);
      if (!below) return true;
      if (*below) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo == sorted->length()) return false;
    auto v = sorted->GetScalar(lo);
    if (!v.ok()) return true;
    auto within = Holds("less_equal", *v, max);
    return !within || *within;
  }
  std::vector<std::shared_ptr<arrow::Scalar>> values;
  for (int64_t i = 0; i < p.values->length(); ++i) {
    if (p.values->IsNull(i)) continue;
    auto v = p.values->GetScalar(i);
    if (!v.ok() || IsNaN(**v)) return true;
    values.push_back(*v);
  }
  auto within = [&](const std::shared_ptr<arrow::Scalar>& v) {
    auto lo = Holds("less_equal", min, v), hi = Holds("less_equal", v, max);
    return !lo || !hi || (*lo && *hi);
  };
  auto only = [&](const std::shared_ptr<arrow::Scalar>& v) {  // every value of the file is v
    auto a = Holds("equal", min, v), b = Holds("equal", max, v);
    return a && b && *a && *b;
  };
  switch (p.op) {
    case PredicateOp::kEq:
    case PredicateOp::kIn:
      return std::any_of(values.begin(), values.end(), within);
    case PredicateOp::kNe:
    case PredicateOp::kNotIn:
      if (floating) return true;
      return !std::any_of(values.begin(), values.end(), only);
    case PredicateOp::kLt:
    case PredicateOp::kLe:
    case PredicateOp::kGt:
    case PredicateOp::kGe: {
      // Some value of the file satisfies it iff the bound on its side does.
      const bool below = p.op == PredicateOp::kLt || p.op == PredicateOp::kLe;
      const char* function = p.op == PredicateOp::kLt   ? "less"
                             : p.op == PredicateOp::kLe ? "less_equal"
                             : p.op == PredicateOp::kGt ? "greater"
                                                        : "greater_equal";
      auto r = Holds(function, below ? min : max, values[0]);
      return !r || *r;
    }
  }
  return true;
}

/// `p`'s non-null values in ascending order, for `=` and `in`; null when it holds a NaN (which
/// orders nowhere) or the values do not sort.
std::shared_ptr<arrow::Array> SortedValues(const TypedPredicate& p) {
  if (p.op != PredicateOp::kEq && p.op != PredicateOp::kIn) return nullptr;
  auto non_null = cp::DropNull(p.values);
  if (!non_null.ok()) return nullptr;
  const std::shared_ptr<arrow::Array> values = non_null->make_array();
  for (int64_t i = 0; i < values->length(); ++i) {
    auto v = values->GetScalar(i);
    if (!v.ok() || IsNaN(**v)) return nullptr;
  }
  auto order = cp::SortIndices(*values);
  if (!order.ok()) return nullptr;
  auto taken = cp::Take(values, *order);
  if (!taken.ok()) return nullptr;
  return taken->make_array();
}

}  // namespace

Result<RowFilter> RowFilter::Make(const arrow::Schema& schema, const std::vector<PartitionPredicate>& predicates) {
  RowFilter out;
  for (const auto& p : predicates) {
    auto field = schema.GetFieldByName(p.field);
    if (field == nullptr) {
      return Status::Invalid("filter field '", p.field, "' is not a column of the table (columns: ",
                             schema.ToString(false), ")");
    }
    ARROW_ASSIGN_OR_RAISE(auto typed, TypePredicate(*field, p, "filter"));
    if (std::find(out.columns_.begin(), out.columns_.end(), p.field) == out.columns_.end()) {
      out.columns_.push_back(p.field);
    }
    out.sorted_values_.push_back(SortedValues(typed));
    out.predicates_.push_back(std::move(typed));
  }
  return out;
}

Result<std::shared_ptr<arrow::Table>> RowFilter::Apply(const std::shared_ptr<arrow::Table>& table) const {
  if (predicates_.empty()) return table;
  arrow::Datum mask;
  for (const auto& p : predicates_) {
    auto column = table->GetColumnByName(p.field);
    if (column == nullptr) return Status::Invalid("filter column '", p.field, "' was not read");
    ARROW_ASSIGN_OR_RAISE(auto m, Mask(p, arrow::Datum(column)));
    if (mask.kind() == arrow::Datum::NONE) {
      mask = std::move(m);
    } else {
      ARROW_ASSIGN_OR_RAISE(mask, cp::And(mask, m));
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto filtered, cp::Filter(table, mask, cp::FilterOptions(cp::FilterOptions::DROP)));
  return filtered.table();
}

bool RowFilter::MayMatch(const std::map<std::string, format::ColumnStatsValue>& stats) const {
  for (size_t i = 0; i < predicates_.size(); ++i) {
    auto it = stats.find(predicates_[i].field);
    if (it != stats.end() && !PredicateMayMatch(predicates_[i], sorted_values_[i], it->second)) return false;
  }
  return true;
}

}  // namespace lakeshore
