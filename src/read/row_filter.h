// Internal: a read's predicates on data columns — the rows they keep, exactly, and the files
// whose column statistics (the metadata table's column_stats partition) prove that none of
// their rows can match, so a read skips them without opening them.
//
// Semantics, as the partition filter's: the predicates are ANDed; "= null" keeps the rows whose
// value is null, "!= null" the others, "in [..., null]" the nulls too, "not in" never a null;
// a comparison with a value never keeps a null.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <arrow/api.h>

#include "format/metadata_record.h"
#include "lakeshore/status.h"
#include "lakeshore/table/table.h"
#include "read/predicate.h"

namespace lakeshore {

/// Compiled predicates over the columns of one schema.
class RowFilter {
 public:
  RowFilter() = default;

  /// Compiles `predicates` against `schema` (TypePredicate's errors; a field not in the schema
  /// is Invalid, naming the columns).
  static Result<RowFilter> Make(const arrow::Schema& schema, const std::vector<PartitionPredicate>& predicates);

  bool empty() const { return predicates_.empty(); }
  /// The columns the predicates read, each once.
  const std::vector<std::string>& columns() const { return columns_; }

  /// The rows of `table` (which holds columns()) every predicate keeps, in their order.
  Result<std::shared_ptr<arrow::Table>> Apply(const std::shared_ptr<arrow::Table>& table) const;

  /// False only when `stats` (column → that column's statistics in one file; a column may be
  /// absent) prove that no row of the file matches. A statistic that cannot be compared with a
  /// predicate's values (another type, a NaN) proves nothing. Floating-point columns are never
  /// pruned by != or not in (NaN is not in the bounds). Cost per predicate: a few comparisons;
  /// an `in` list (sorted once, by Make) takes a binary search, not one comparison per value.
  bool MayMatch(const std::map<std::string, format::ColumnStatsValue>& stats) const;

 private:
  std::vector<TypedPredicate> predicates_;
  /// Per predicate: its non-null values sorted ascending, for `=` and `in` without a NaN
  /// (null: compare value by value).
  std::vector<std::shared_ptr<arrow::Array>> sorted_values_;
  std::vector<std::string> columns_;
};

}  // namespace lakeshore
