// One unit of write work: produce the next slice of one file group.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "io/base_file.h"
#include "lakeshore/table/table_config.h"
#include "table/file_system_view.h"
#include "timeline/commit_metadata.h"
#include "write/write_input.h"

namespace lakeshore {

/// The plan for one file group: which input rows go in, which keys go out. Serializable in
/// spirit (paths and row lists), so an engine task can carry it.
struct FileGroupWrite {
  std::string partition;
  std::string file_id;
  std::optional<BaseFile> old_base;   ///< the latest base file, absent for a new group
  std::string prev_base_instant;
  std::vector<int64_t> upserts;       ///< input rows to insert or update in this group
  std::vector<int64_t> deletes;       ///< input rows whose keys leave this group
  std::string new_path;               ///< where the new base file goes
  int64_t task = 0;                   ///< this write's index in its instant (commit seqnos)
};

/// Everything a file group write needs besides its plan.
struct FileGroupWriteContext {
  const TableConfig* config = nullptr;
  std::shared_ptr<arrow::Schema> full_schema;  ///< meta columns + user columns
  const WriteInput* input = nullptr;
  std::string instant_time;
  ParquetWriteSettings parquet;
};

/// Merges the plan into the old base file (updates win when their ordering value is >= the
/// stored one) and writes the new base file, with Hudi's five meta columns on the new rows
/// (the kept rows keep theirs). Returns nullopt when nothing changes (every update lost on
/// ordering and no key to delete was found). When no record is left the new base file is
/// empty, as Hudi writes it. Cost: reads the old base file once, writes one file.
Result<std::optional<WriteStat>> ExecuteFileGroupWrite(Storage& storage, const FileGroupWriteContext& ctx,
                                                       const FileGroupWrite& plan);

}  // namespace lakeshore
