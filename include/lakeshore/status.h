// Error kinds of Lakeshore, carried as an arrow::StatusDetail on an arrow::Status.
#pragma once

#include <memory>
#include <string>

#include <arrow/result.h>
#include <arrow/status.h>

namespace lakeshore {

using arrow::Result;
using arrow::Status;

/// The domain error kinds a caller may want to branch on. Every other failure is a plain
/// arrow::Status (IOError, Invalid, ...).
enum class ErrorKind {
  kCommitConflict,      ///< another writer committed to the same file groups first
  kCorruptMetadata,     ///< a metadata file (hoodie.properties, instant, log block, Delta log) cannot be parsed
  kRetentionViolation,  ///< a retention shorter than the table allows was asked for
  kUnsupportedFeature,  ///< a protocol version or feature this build does not understand
  kPathOutsideTable,    ///< a path escapes the table root
  kSchemaMismatch,      ///< a batch does not match the table schema
  kLockTimeout,         ///< the table lock could not be taken in time
  kCrashInjected,       ///< the fault-injection storage refused the call (tests only)
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

/// Convenience constructors, one per kind.
inline Status CommitConflict(std::string msg) { return MakeError(ErrorKind::kCommitConflict, std::move(msg)); }
inline Status CorruptMetadata(std::string msg) { return MakeError(ErrorKind::kCorruptMetadata, std::move(msg)); }
inline Status RetentionViolation(std::string msg) { return MakeError(ErrorKind::kRetentionViolation, std::move(msg)); }
inline Status UnsupportedFeature(std::string msg) { return MakeError(ErrorKind::kUnsupportedFeature, std::move(msg)); }
inline Status PathOutsideTable(std::string msg) { return MakeError(ErrorKind::kPathOutsideTable, std::move(msg)); }
inline Status SchemaMismatch(std::string msg) { return MakeError(ErrorKind::kSchemaMismatch, std::move(msg)); }

}  // namespace lakeshore
