// Internal: partition filters — predicates over the partition values of a path, with filter
// values rendered exactly as partition values are rendered when they are written.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "lakeshore/status.h"
#include "lakeshore/table/table.h"
#include "lakeshore/table/table_config.h"

namespace lakeshore {

/// True for the partition paths (`field=value/...`) a filter keeps.
using PartitionPathFilter = std::function<bool(const std::string&)>;

/// A compiled partition filter: the partition paths it keeps, and the predicates the rows read
/// from them must also pass, where a kept folder holds more than one value (Hudi's default
/// folder holds null and "" alike, so `= ''` keeps it and then drops its null rows).
struct PartitionFilter {
  PartitionPathFilter paths;  ///< empty function: every path
  std::vector<PartitionPredicate> on_rows;
};

/// Compiles `predicates` (ANDed) against the table's partition fields. Each predicate's values
/// are cast to the field's Arrow type (a string is parsed as that type) and rendered by
/// ValuesAsStrings, the one rendering partition paths are written with, so a datetime, a date,
/// a number or a string all select the partition they name. A null value selects the null
/// partition with "=" and "in", and the non-null ones with "!="; other comparisons never keep
/// the null partition. When `empty_in_null_folder` (a SIMPLE or COMPLEX key generator, whose
/// folders hold the column's own values), the null folder of a string or binary field also
/// holds "" and the text "__HIVE_DEFAULT_PARTITION__" (whose folder that is): it is kept when
/// any of the three may match, and a predicate that tells them apart goes to `on_rows`. Errors
/// (Invalid, naming the field): not a partition field, an unknown operator, a value that cannot
/// be read as the field's type, a null with an ordering operator, or not exactly one value for
/// a comparison. Cost: O(values) to compile, O(path length + values) per
/// path. An empty `predicates` gives an empty filter.
Result<PartitionFilter> MakePartitionFilter(const TableConfig& config, const std::vector<PartitionPredicate>& predicates,
                                            bool empty_in_null_folder);

}  // namespace lakeshore
