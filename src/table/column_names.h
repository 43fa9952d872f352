// Internal: the rules a table's column names follow, at creation and at every schema change.
#pragma once

#include <arrow/type_fwd.h>

#include "lakeshore/status.h"

namespace lakeshore {

/// OK when every column name of `schema` (struct fields included, at any depth) is valid UTF-8,
/// no top-level column takes Hudi's reserved meta-column prefix `_hoodie_`, and no two names
/// among the columns, or among one struct's fields, are equal or differ only in case (Spark
/// and Trino match names case-insensitively: a table with both 'v' and 'V' is one they cannot
/// read). Else kInvalid naming the column(s).
Status CheckColumnNames(const arrow::Schema& schema);

}  // namespace lakeshore
