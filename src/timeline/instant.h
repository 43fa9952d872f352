// An instant: one action on the timeline, in one of three states.
#pragma once

#include <optional>
#include <string>

#include "lakeshore/status.h"

namespace lakeshore {

enum class InstantState { kRequested, kInflight, kCompleted };

/// "requested", "inflight", "completed".
const char* InstantStateName(InstantState state);

/// Timeline actions (DESIGN.md): the names used in instant file names.
namespace actions {
inline constexpr const char* kCommit = "commit";
inline constexpr const char* kDeltaCommit = "deltacommit";
inline constexpr const char* kReplaceCommit = "replacecommit";
inline constexpr const char* kCompaction = "compaction";
inline constexpr const char* kClean = "clean";
inline constexpr const char* kRollback = "rollback";
inline constexpr const char* kRestore = "restore";
inline constexpr const char* kSavepoint = "savepoint";
inline constexpr const char* kVacuum = "vacuum";
inline constexpr const char* kIndexing = "indexing";
/// True for an action name this build knows.
bool IsKnown(const std::string& action);
/// True for actions whose completed metadata carries data-file write stats.
bool WritesData(const std::string& action);
}  // namespace actions

/// One instant. Ordering is by `time`; `completion_time` is set once completed.
struct Instant {
  std::string time;
  std::string action;
  InstantState state = InstantState::kRequested;
  std::string completion_time;

  bool is_completed() const { return state == InstantState::kCompleted; }

  /// The file name of this instant in this state:
  /// `<time>.<action>.requested`, `<time>.<action>.inflight`, `<time>_<done>.<action>`.
  std::string FileName() const;

  /// Parses a timeline file name; nullopt for names that are not instant files at all
  /// (hidden temp files), kCorruptMetadata for names that look like instants but are malformed
  /// or name an unknown action.
  static Result<std::optional<Instant>> FromFileName(const std::string& name);
};

}  // namespace lakeshore
