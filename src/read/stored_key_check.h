// Whether this build keys records as the records already stored in a table are keyed.
#pragma once

#include "actions/table_context.h"
#include "lakeshore/status.h"
#include "lakeshore/table/table_config.h"

namespace lakeshore {

/// Checks, once per open table (the answer is kept in `ctx`; an I/O error is not), that the
/// record keys and partition paths this build computes equal `_hoodie_record_key` and
/// `_hoodie_partition_path` on up to 1,000 rows of one base file of the latest snapshot: into a
/// table another writer keyed differently, an upsert would write twins of its records instead of
/// updating them, and a lookup would find nothing. Writes and lookups by key call it. Only
/// fields whose text differs between Hudi's writers are checked: anything but strings and
/// integers (a timestamp is epoch microseconds on Hudi's Avro path and a java.sql.Timestamp in
/// the writer JVM's time zone on Spark's row path, where Lakeshore writes ISO text in UTC), and
/// partition fields only where folders hold the columns' text (FoldersHoldColumnValues). A
/// table without base files, or without meta fields, passes. kUnsupportedFeature naming the
/// file, the row and one stored and one computed value. Cost: one base file's key, partition
/// and two meta columns, once.
Status CheckStoredKeysMatchOurs(TableContext& ctx);

}  // namespace lakeshore
