// The write client: one write operation from input batch to completed instant.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>

#include <arrow/record_batch.h>

#include "lakeshore/table/table.h"
#include "actions/table_context.h"

namespace lakeshore {

/// Runs one write as an instant (the commit protocol):
/// 1. under the table lock: roll back failed writes, pick the next instant time, start the
///    heartbeat, create the requested instant;
/// 2. without the lock: tag record locations through the index, plan file group writes, record
///    the planned files (markers) in the inflight instant, write the files in parallel;
/// 3. under the lock: check for conflicts (a write that completed since this one read the
///    table and touched one of its existing file groups → kCommitConflict), check the lease,
///    create the completed instant — the commit point.
/// A failure before the commit point deletes this write's files and pending instant files; if
/// that fails too (a crash), the next writer rolls the instant back once its heartbeat expires.
/// Commits `avro_schema` as the table's schema: an `alter_schema` commit with no files, through
/// the same protocol (write/schema_evolution.h checks the change first). Returns its instant.
Result<std::string> CommitSchemaChange(TableContext& ctx, const std::string& avro_schema);

/// The file groups (partition, file id) pending clusterings on `timeline` will replace, each
/// with the clustering's instant time: no write or compaction changes them meanwhile. A plan
/// that vanished since the listing (the clustering completed) is skipped: its replacecommit
/// then ends the groups, and conflict checks see it.
Result<std::map<std::pair<std::string, std::string>, std::string>> FileGroupsUnderClustering(TableContext& ctx,
                                                                                           const Timeline& timeline);

Result<WriteResult> ExecuteWrite(TableContext& ctx, WriteOperation op,
                                 const std::shared_ptr<arrow::RecordBatchReader>& data,
                                 const WriteOptions& options);

}  // namespace lakeshore
