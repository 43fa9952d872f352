// Error kinds of Lakeshore, carried as an arrow::StatusDetail on an arrow::Status.
#pragma once

#include <memory>
#include <string>

#include <arrow/result.h>
#include <arrow/status.h>

namespace lakeshore {

using arrow::Result;
using arrow::Status;

/// The one list of Lakeshore's error kinds: X(enumerator, stable name, constructor, Arrow status
/// code, Python class, doc). The enum, ErrorKindName, the constructors below, MakeError's codes
/// and the Python exception classes (python/bindings/errors.cc) are all generated from it.
#define LAKESHORE_ERROR_KINDS(X)                                                                              \
  X(kCommitConflict, "commit_conflict", CommitConflict, IOError, "CommitConflictError",                       \
    "Another writer committed to the same file groups first; nothing of this write is visible. Retry the write.") \
  X(kCorruptMetadata, "corrupt_metadata", CorruptMetadata, Invalid, "CorruptMetadataError",                   \
    "A metadata file (hoodie.properties, an instant, a log block, a Delta log entry) cannot be parsed. Nothing "  \
    "was changed or deleted.")                                                                                 \
  X(kRetentionViolation, "retention_violation", RetentionViolation, Invalid, "RetentionViolationError",       \
    "A retention shorter than the table allows was asked for.")                                               \
  X(kUnsupportedFeature, "unsupported_feature", UnsupportedFeature, NotImplemented, "UnsupportedFeatureError", \
    "A protocol version or feature this build of Lakeshore does not understand.")                             \
  X(kPathOutsideTable, "path_outside_table", PathOutsideTable, Invalid, "PathOutsideTableError",              \
    "A path escapes the table root.")                                                                          \
  X(kSchemaMismatch, "schema_mismatch", SchemaMismatch, Invalid, "SchemaMismatchError",                       \
    "A batch does not match the table schema (or lacks the record key fields).")                              \
  X(kLockTimeout, "lock_timeout", LockTimeout, IOError, "LockTimeoutError",                                   \
    "The table lock could not be taken in time.")                                                             \
  X(kCrashInjected, "crash_injected", CrashInjected, IOError, "CrashInjectedError",                          \
    "The fault-injection storage refused the call (tests only).")                                             \
  X(kTransientStorage, "transient_storage", TransientStorage, IOError, "TransientStorageError",              \
    "A storage request failed in a way a later retry can fix (throttling, a server error, a dropped "         \
    "connection), after the storage's own retries.")

/// The domain error kinds a caller may want to branch on. Every other failure is a plain
/// arrow::Status (IOError, Invalid, ...).
enum class ErrorKind {
#define LAKESHORE_ERROR_ENUMERATOR(kind, name, ctor, code, py, doc) kind,
  LAKESHORE_ERROR_KINDS(LAKESHORE_ERROR_ENUMERATOR)
#undef LAKESHORE_ERROR_ENUMERATOR
};

/// Returns the stable lower-case name of `kind` ("commit_conflict", ...).
const char* ErrorKindName(ErrorKind kind);

/// A StatusDetail tagging a Status with an ErrorKind.
class LakeshoreErrorDetail : public arrow::StatusDetail {
 public:
  explicit LakeshoreErrorDetail(ErrorKind kind) : kind_(kind) {}
  const char* type_id() const override;
  std::string ToString() const override;
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

/// Builds an error Status of `kind` with message `msg`. The arrow StatusCode is chosen to fit
/// the kind (IOError for conflicts and crashes, Invalid for bad input).
Status MakeError(ErrorKind kind, std::string msg);

/// True when `st` carries a LakeshoreErrorDetail of `kind`.
bool IsError(const Status& st, ErrorKind kind);

/// Constructors, one per kind: CommitConflict(msg), CorruptMetadata(msg), ...
#define LAKESHORE_ERROR_CONSTRUCTOR(kind, name, ctor, code, py, doc) \
  inline Status ctor(std::string msg) { return MakeError(ErrorKind::kind, std::move(msg)); }
LAKESHORE_ERROR_KINDS(LAKESHORE_ERROR_CONSTRUCTOR)
#undef LAKESHORE_ERROR_CONSTRUCTOR

}  // namespace lakeshore
