// One unit of write work: produce the next slice of one file group.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lakeshore/storage/storage.h"
#include "write/file_group_task.h"

namespace lakeshore {

/// Merges the plan into the old base file (updates win when their ordering value is >= the
/// stored one) and writes the new base file, with Hudi's five meta columns on the new rows
/// (the kept rows keep theirs). Returns nullopt when nothing changes (every update lost on
/// ordering and no key to delete was found). When no record is left the new base file is
/// empty, as Hudi writes it. Cost: reads the old base file once, writes one file.
/// Runs on any thread or process that reaches the table's `storage`: it needs nothing but the task.
Result<std::optional<WriteStat>> ExecuteFileGroupWrite(Storage& storage, const FileGroupTask& task);

/// Runs a serialized task (SerializeFileGroupTask) and returns its serialized result
/// (SerializeTaskResult): the whole of what a remote worker does.
Result<std::string> ExecuteSerializedFileGroupWrite(Storage& storage, const std::shared_ptr<arrow::Buffer>& task);

}  // namespace lakeshore
