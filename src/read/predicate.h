// Internal: one predicate of a read's filter — `field op values` — checked and typed once, for
// both its uses: partition pruning (read/partition_filter.h) and row filtering with file
// pruning by column statistics (read/row_filter.h).
#pragma once

#include <memory>
#include <string>

#include <arrow/api.h>

#include "lakeshore/status.h"
#include "lakeshore/table/table.h"

namespace lakeshore {

/// A filter operator.
enum class PredicateOp { kEq, kNe, kLt, kLe, kGt, kGe, kIn, kNotIn };

/// A predicate whose values are of its field's type.
struct TypedPredicate {
  std::string field;
  PredicateOp op = PredicateOp::kEq;
  std::shared_ptr<arrow::Array> values;  ///< cast to the field's type; nulls included
  bool has_null = false;                 ///< a null is among the values

  /// The non-null values.
  int64_t non_null_count() const { return values->length() - values->null_count(); }
};

/// Checks `p` against `field` and casts its values to the field's type (a string is parsed as
/// that type; a zone-less time string names the UTC instant for a timestamp with a zone).
/// `what` names the filter in messages ("partition filter", "filter"). Errors (Invalid, naming
/// the field): an unknown operator (=, ==, !=, <, <=, >, >=, in, not in), no values, values that
/// cannot be read as the field's type, not exactly one value for a comparison, or a null with an
/// ordering operator (a null is only compared with =, !=, in and not in). The values of an
/// `in` or `not in` over floats compare as `=` does (IEEE): a NaN among them is dropped (it
/// equals nothing), and a zero of either sign stands for both.
Result<TypedPredicate> TypePredicate(const arrow::Field& field, const PartitionPredicate& p, const char* what);

/// The values for a message, on one line: 'a', 'b' (at most five).
std::string DescribeValues(const std::shared_ptr<arrow::Array>& values);

}  // namespace lakeshore
