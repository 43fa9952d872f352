// Reads: snapshot (with time travel and a partition filter) and incremental.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <arrow/table.h>

#include "lakeshore/table/table.h"
#include "actions/table_context.h"
#include "read/file_slice_reader.h"

namespace lakeshore {

/// The completion-time bound of `as_of`: for an instant time (yyyyMMddHHmmssSSS), the
/// completion time of the completed instant with that time (on the active timeline, else among
/// `commits`, which hold the archived ones), or that time itself when no instant has it; for an
/// ISO time in UTC ("yyyy-MM-dd HH:mm:ss[.SSS][Z]", 'T' allowed), that moment, never an
/// instant's own time (a time a write started at would show the write before it completed).
/// Invalid for a malformed time or a pending instant, naming the time as `what` ("as_of", "the
/// incremental start").
Result<std::string> ResolveAsOf(const Timeline& timeline, const std::vector<CompletedCommit>& commits,
                                const std::string& as_of, const char* what = "as_of");

/// How this table's file slices are read as of the completion-time `bound` ("" for the latest):
/// its full schema, merge mode and ordering field, and which log blocks' instants are visible
/// (completed on `timeline` or among `commits` by the bound).
SliceReadSpec SliceSpecFor(const TableContext& ctx, const Timeline& timeline,
                           const std::vector<CompletedCommit>& commits, const std::string& bound);

/// The view of the table as of `options.as_of` (or the latest).
Result<FileSystemView> ViewAsOf(TableContext& ctx, const std::optional<std::string>& as_of);

/// Reads the latest slice of every live file group that passes the filter, in parallel.
Result<std::shared_ptr<arrow::Table>> ReadSnapshot(TableContext& ctx, const ReadOptions& options);

/// The latest values of the records written by instants completed in
/// (start_exclusive, end_inclusive].
Result<std::shared_ptr<arrow::Table>> ReadIncremental(TableContext& ctx, const std::string& start_exclusive,
                                                      const std::string& end_inclusive,
                                                      const ReadOptions& options);

}  // namespace lakeshore
