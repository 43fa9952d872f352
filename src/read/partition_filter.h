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

/// Compiles `predicates` (ANDed) against the table's partition fields. Each predicate's values
/// are cast to the field's Arrow type (a string is parsed as that type) and rendered by
/// ValuesAsStrings, the one rendering partition paths are written with, so a datetime, a date,
/// a number or a string all select the partition they name. A null value selects the null
/// partition with "=" and "in", and the non-null ones with "!="; other comparisons never keep
/// the null partition. Errors (Invalid, naming the field): not a partition field, an unknown
/// operator, a value that cannot be read as the field's type, a null with an ordering
/// operator, or not exactly one value for a comparison. Cost: O(values) to compile,
/// O(path length + values) per path. An empty `predicates` gives an empty function.
Result<PartitionPathFilter> MakePartitionFilter(const TableConfig& config,
                                                const std::vector<PartitionPredicate>& predicates);

}  // namespace lakeshore
