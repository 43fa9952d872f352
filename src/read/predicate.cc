#include "read/predicate.h"

#include <cmath>

#include <arrow/builder.h>
#include <arrow/compute/api.h>

#include "common/arrow_cast.h"
#include "table/partition_path.h"

namespace lakeshore {
namespace {

Result<PredicateOp> ParseOp(const std::string& op, const char* what) {
  static const std::pair<const char*, PredicateOp> kOps[] = {
      {"=", PredicateOp::kEq},  {"==", PredicateOp::kEq}, {"!=", PredicateOp::kNe},
      {"<", PredicateOp::kLt},  {"<=", PredicateOp::kLe}, {">", PredicateOp::kGt},
      {">=", PredicateOp::kGe}, {"in", PredicateOp::kIn}, {"not in", PredicateOp::kNotIn}};
  for (const auto& [name, value] : kOps) {
    if (op == name) return value;
  }
  return Status::Invalid("unknown ", what, " operator '", op, "' (=, !=, <, <=, >, >=, in, not in)");
}

/// The values of an `in` or `not in` over floats that make the set test agree with `=` and
/// `!=` (IEEE equality): a NaN equals nothing, so it leaves the set; 0.0 and -0.0 are equal, so
/// either brings the other (Arrow's set lookup compares bits: `in [0.0]` missed -0.0, and
/// `in [nan]` matched NaN, which `= nan` does not).
template <typename ArrowType>
Result<std::shared_ptr<arrow::Array>> IeeeSetValues(const arrow::Array& values) {
  using CType = typename ArrowType::c_type;
  const auto& typed = static_cast<const arrow::NumericArray<ArrowType>&>(values);
  arrow::NumericBuilder<ArrowType> builder(values.type(), arrow::default_memory_pool());
  bool zero = false;
  for (int64_t i = 0; i < typed.length(); ++i) {
    if (typed.IsNull(i)) {
      ARROW_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    const CType v = typed.Value(i);
    if (std::isnan(v)) continue;
    if (v == CType(0)) {
      zero = true;
      continue;
    }
    ARROW_RETURN_NOT_OK(builder.Append(v));
  }
  if (zero) {
    ARROW_RETURN_NOT_OK(builder.Append(CType(0)));
    ARROW_RETURN_NOT_OK(builder.Append(-CType(0)));
  }
  return builder.Finish();
}

}  // namespace

std::string DescribeValues(const std::shared_ptr<arrow::Array>& values) {
  auto rendered = ValuesAsStrings(std::make_shared<arrow::ChunkedArray>(values));
  if (!rendered.ok()) return values->type()->ToString() + " values";
  std::string out;
  for (size_t i = 0; i < rendered->size() && i < 5; ++i) {
    if (i > 0) out += ", ";
    const auto& v = (*rendered)[i];
    out += v ? "'" + *v + "'" : "null";
  }
  if (rendered->size() > 5) out += ", ...";
  return out;
}

Result<TypedPredicate> TypePredicate(const arrow::Field& field, const PartitionPredicate& p, const char* what) {
  TypedPredicate out;
  out.field = p.field;
  ARROW_ASSIGN_OR_RAISE(out.op, ParseOp(p.op, what));
  if (p.values == nullptr) return Status::Invalid(what, " on '", p.field, "' has no value");
  // A nested column (list, struct, map) has no order and no equality a filter can use; only
  // whether it is null can be asked (= None, != None).
  const bool null_check = (out.op == PredicateOp::kEq || out.op == PredicateOp::kNe) && p.values->length() == 1 &&
                          p.values->null_count() == 1;
  if (arrow::is_nested(field.type()->id()) && !null_check) {
    return Status::Invalid(what, " on '", p.field, "': a column of type ", field.type()->ToString(),
                           " cannot be filtered but by = None or != None (numbers, strings, binaries, booleans, "
                           "decimals, dates, times and timestamps can)");
  }
  std::shared_ptr<arrow::Array> values = p.values;
  if (!values->type()->Equals(*field.type())) {
    // (A time without a zone names the table's UTC instant.)
    auto cast = CastValues(values, field.type());
    if (!cast.ok()) {
      return Status::Invalid(what, " on '", p.field, "': value(s) ", DescribeValues(values),
                             " cannot be read as the field's type ", field.type()->ToString(), ": ",
                             cast.status().message());
    }
    // A value the field's type holds only approximately (2 or 10.0 as a bool, which Arrow's
    // safe cast takes as true; a datetime as the date it falls on) would match other rows than
    // it names: it must read back as given.
    const Status exact = CheckCastKeepsValues(std::make_shared<arrow::ChunkedArray>(values),
                                              std::make_shared<arrow::ChunkedArray>(*cast), /*float_rounding=*/false);
    if (!exact.ok()) {
      return Status::Invalid(what, " on '", p.field, "': value(s) ", DescribeValues(values),
                             " cannot be read exactly as the field's type ", field.type()->ToString(), " (",
                             exact.message(), ")");
    }
    values = *std::move(cast);
  }
  out.values = std::move(values);
  out.has_null = out.values->null_count() > 0;
  const bool set_op = out.op == PredicateOp::kIn || out.op == PredicateOp::kNotIn;
  if (!set_op && out.values->length() != 1) {
    return Status::Invalid(what, " '", p.field, " ", p.op, "' takes exactly one value, got ", out.values->length());
  }
  if (set_op && out.values->type_id() == arrow::Type::DOUBLE) {
    ARROW_ASSIGN_OR_RAISE(out.values, IeeeSetValues<arrow::DoubleType>(*out.values));
  } else if (set_op && out.values->type_id() == arrow::Type::FLOAT) {
    ARROW_ASSIGN_OR_RAISE(out.values, IeeeSetValues<arrow::FloatType>(*out.values));
  }
  const bool equality = set_op || out.op == PredicateOp::kEq || out.op == PredicateOp::kNe;
  if (out.has_null && !equality) {
    return Status::Invalid(what, " '", p.field, " ", p.op, " None': a null can only be compared with =, !=, in and not in");
  }
  return out;
}

}  // namespace lakeshore
