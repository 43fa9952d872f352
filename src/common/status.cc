#include "lakeshore/status.h"

namespace lakeshore {

const char* ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kCommitConflict: return "commit_conflict";
    case ErrorKind::kCorruptMetadata: return "corrupt_metadata";
    case ErrorKind::kRetentionViolation: return "retention_violation";
    case ErrorKind::kUnsupportedFeature: return "unsupported_feature";
    case ErrorKind::kPathOutsideTable: return "path_outside_table";
    case ErrorKind::kSchemaMismatch: return "schema_mismatch";
    case ErrorKind::kLockTimeout: return "lock_timeout";
    case ErrorKind::kCrashInjected: return "crash_injected";
  }
  return "unknown";
}

const char* LakeshoreErrorDetail::type_id() const { return "lakeshore::LakeshoreErrorDetail"; }

std::string LakeshoreErrorDetail::ToString() const { return ErrorKindName(kind_); }

Status MakeError(ErrorKind kind, std::string msg) {
  arrow::StatusCode code = arrow::StatusCode::Invalid;
  switch (kind) {
    case ErrorKind::kCommitConflict:
    case ErrorKind::kLockTimeout:
    case ErrorKind::kCrashInjected:
      code = arrow::StatusCode::IOError;
      break;
    case ErrorKind::kUnsupportedFeature:
      code = arrow::StatusCode::NotImplemented;
      break;
    default:
      break;
  }
  return Status(code, std::move(msg), std::make_shared<LakeshoreErrorDetail>(kind));
}

bool IsError(const Status& st, ErrorKind kind) {
  if (st.ok() || st.detail() == nullptr) return false;
  auto* detail = dynamic_cast<const LakeshoreErrorDetail*>(st.detail().get());
  return detail != nullptr && detail->kind() == kind;
}

}  // namespace lakeshore
