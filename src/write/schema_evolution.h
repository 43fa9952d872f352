// Schema evolution: a table's schema changes by a commit that carries the new schema, as
// Hudi's ALTER TABLE does (an `alter_schema` commit with no files, its Avro schema in
// extraMetadata.schema). Readers take the latest commit's schema, and read older files under it.
#pragma once

#include <memory>
#include <string>

#include <arrow/type.h>

#include "actions/table_context.h"

namespace lakeshore {

/// Whether `next` may follow `current` (user columns, meta columns excluded): every current
/// column stays, under the same name, with its type or a wider one (int8/int16 → int32 →
/// int64, float → double); new columns are nullable and may go anywhere; the order may change.
/// Anything else — a dropped or renamed column, a narrowed or changed type, a new non-nullable
/// column, a changed key, partition or ordering field's type — is kSchemaMismatch naming the
/// column and what changed.
Status CheckSchemaEvolution(const arrow::Schema& current, const arrow::Schema& next);

/// `from`'s type can be read as `to` (the same type, or a widening CheckSchemaEvolution allows).
bool IsWidening(const arrow::DataType& from, const arrow::DataType& to);

/// Commits `next` as the table's schema (an `alter_schema` commit through the write lifecycle)
/// after CheckSchemaEvolution. Returns the instant time.
Result<std::string> CommitSchemaEvolution(TableContext& ctx, const std::shared_ptr<arrow::Schema>& next);

}  // namespace lakeshore
