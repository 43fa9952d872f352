// A file group write as a self-contained, serializable task: the plan, the input rows the group
// receives and the settings it writes with, and nothing that points into the driver's memory.
// An engine runs it wherever the table's storage is reachable (today a thread of this process;
// a distributed engine would ship the bytes); its result is one WriteStat, or none.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <arrow/buffer.h>
#include <arrow/table.h>

#include "io/base_file.h"
#include "table/file_system_view.h"
#include "timeline/commit_metadata.h"
#include "write/write_input.h"

namespace lakeshore {

/// The plan for one file group: which rows go in, which keys go out, where the new base file goes.
struct FileGroupWrite {
  std::string partition;
  std::string file_id;
  std::optional<BaseFile> old_base;   ///< the latest base file, absent for a new group
  std::string prev_base_instant;
  std::vector<int64_t> upserts;       ///< rows to insert or update in this group
  std::vector<int64_t> deletes;       ///< rows whose keys leave this group
  std::string new_path;               ///< where the new base file (or the new log file) goes
  /// Merge-on-read: write the upserts and deletes as a new log file on the latest slice
  /// (new_path) instead of merging them into a new base file.
  bool append_log = false;
  /// The upserts are inserts packed into a small file: the stored records stay and the rows are
  /// added beside them, a stored key too (Hudi's hoodie.merge.allow.duplicate.on.inserts,
  /// default true); no key is matched and no ordering compared.
  bool concat = false;
  int64_t task = 0;                   ///< this write's index in its instant (commit seqnos)
};

/// One file group write, self-contained.
struct FileGroupTask {
  std::string instant_time;
  /// The plan; its `upserts` and `deletes` index `rows` (not the write's whole input).
  FileGroupWrite plan;
  /// The rows this group receives: the user columns in table-schema order (for deletes only the
  /// key and partition fields).
  std::shared_ptr<arrow::Table> rows;
  /// The record key of each row of `rows` (utf8).
  std::shared_ptr<arrow::ChunkedArray> keys;
  /// The ordering (precombine) field: an update wins when its value is >= the stored one; ""
  /// when the table has none (the update always wins).
  std::string ordering_field;
  /// The base file's schema: the five meta columns, then the user columns.
  std::shared_ptr<arrow::Schema> full_schema;
  ParquetWriteSettings parquet;
};

/// Everything the tasks of one write share, from the driver.
struct FileGroupTaskSource {
  const WriteInput* input = nullptr;
  std::string instant_time;
  std::string ordering_field;
  std::shared_ptr<arrow::Schema> full_schema;
  ParquetWriteSettings parquet;
};

/// The task of `plan` within the write `source` describes: its rows taken out of the input
/// (a contiguous run of rows is a zero-copy slice) and its plan renumbered to them.
Result<FileGroupTask> MakeFileGroupTask(const FileGroupTaskSource& source, const FileGroupWrite& plan);

/// The rows of `table` at `indices`, in that order. Contract: every index is a row of `table`.
/// Ascending indices never copy the table's chunks together: long runs of consecutive rows are
/// zero-copy slices, short ones are gathered chunk by chunk (the result has one chunk per part).
/// Cost: O(indices) plus the gathered rows' bytes.
Result<std::shared_ptr<arrow::Table>> TakeRows(const std::shared_ptr<arrow::Table>& table,
                                               const std::vector<int64_t>& indices);

/// The task as bytes: one Arrow IPC stream whose schema metadata holds the plan and settings as
/// JSON (with the full schema, itself IPC-encoded) and whose batches hold the rows and keys.
Result<std::shared_ptr<arrow::Buffer>> SerializeFileGroupTask(const FileGroupTask& task);
/// Parses SerializeFileGroupTask's bytes; anything damaged → kCorruptMetadata.
Result<FileGroupTask> ParseFileGroupTask(const std::shared_ptr<arrow::Buffer>& bytes);

/// A task's result as bytes (JSON; "null" when the task changed nothing), and back.
std::string SerializeTaskResult(const std::optional<WriteStat>& stat);
Result<std::optional<WriteStat>> ParseTaskResult(std::string_view bytes);

}  // namespace lakeshore
