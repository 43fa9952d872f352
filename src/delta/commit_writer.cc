#include "delta/commit_writer.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "delta/action_reader.h"

namespace lakeshore::delta {
namespace {

std::string Serialize(const OperationRecord& record, int64_t version, int64_t ict) {
  nlohmann::json info;
  if (record.in_commit_timestamps) info["inCommitTimestamp"] = ict;
  info["timestamp"] = record.timestamp_ms;
  info["operation"] = record.operation;
  info["operationParameters"] = record.parameters;
  if (!record.metrics.empty()) info["operationMetrics"] = record.metrics;
  info["readVersion"] = version - 1;
  info["isolationLevel"] = "SnapshotIsolation";
  info["isBlindAppend"] = true;
  info["engineInfo"] = "lakeshore/0.1.0";
  nlohmann::json line;
  line["commitInfo"] = std::move(info);
  return line.dump() + "\n";
}

/// The previous commit's in-commit timestamp (or its commitInfo timestamp), if readable.
int64_t PreviousTimestamp(const DeltaLog& log, int64_t version) {
  if (version < 0) return 0;
  auto prev = ReadActionFile(*log.storage(), DeltaLog::CommitPath(version));
  if (!prev.ok() || !prev->commit_info) return 0;
  return prev->commit_info->in_commit_timestamp.value_or(prev->commit_info->timestamp.value_or(0));
}

}  // namespace

Result<int64_t> AppendOperationRecord(const DeltaLog& log, const OperationRecord& record) {
  int64_t version = record.read_version + 1;
  for (int attempt = 0; attempt < 100; ++attempt, ++version) {
    int64_t ict = record.timestamp_ms;
    if (record.in_commit_timestamps) ict = std::max(ict, PreviousTimestamp(log, version - 1) + 1);
    ARROW_ASSIGN_OR_RAISE(bool created, log.storage()->PutIfAbsentString(
                                            DeltaLog::CommitPath(version), Serialize(record, version, ict)));
    if (created) return version;
    // Someone else committed this version: it must not have changed the protocol to one we
    // do not understand (then our record would claim a vacuum on a table we cannot read).
    ARROW_ASSIGN_OR_RAISE(auto theirs, ReadActionFile(*log.storage(), DeltaLog::CommitPath(version)));
    if (theirs.protocol) ARROW_RETURN_NOT_OK(CheckProtocolSupported(*theirs.protocol, DeltaLog::CommitPath(version)));
  }
  return CommitConflict("could not append '" + record.operation + "' to the Delta log after 100 attempts");
}

}  // namespace lakeshore::delta
