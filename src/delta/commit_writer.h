// Internal: appending an operation record (a commit holding only `commitInfo`) to a Delta log.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "lakeshore/delta/delta_log.h"

namespace lakeshore::delta {

/// A `commitInfo` to record, the way Spark records VACUUM START / VACUUM END: parameter and
/// metric values are strings holding JSON values ("true", "604800000").
struct OperationRecord {
  std::string operation;
  std::map<std::string, std::string> parameters;
  std::map<std::string, std::string> metrics;
  int64_t timestamp_ms = 0;
  int64_t read_version = -1;
  bool in_commit_timestamps = false;  ///< table has in-commit timestamps enabled
};

/// Writes `record` as the commit at read_version + 1 with put-if-absent; when another writer
/// took that version, checks that commit's protocol (CheckProtocolSupported) and tries the
/// next one, up to 100 times. With in-commit timestamps, `inCommitTimestamp` is made greater
/// than the previous commit's. Returns the version written. Mutating: one PutIfAbsent per try.
Result<int64_t> AppendOperationRecord(const DeltaLog& log, const OperationRecord& record);

}  // namespace lakeshore::delta
