// An instant: one action on the timeline, in one of three states.
#pragma once

#include <optional>
#include <string>
#include <vector>
#include <string_view>

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
inline constexpr const char* kCompaction = "compaction";          ///< completes as a commit
inline constexpr const char* kLogCompaction = "logcompaction";    ///< completes as a deltacommit
inline constexpr const char* kClustering = "clustering";          ///< completes as a replacecommit
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
/// The action a pending `action` completes as (compaction → commit, logcompaction →
/// deltacommit, clustering → replacecommit); `action` itself for every other.
std::string CompletedAction(const std::string& action);
/// The actions whose pending instants complete as `completed`: itself, and compaction for a
/// commit, logcompaction for a deltacommit, clustering for a replacecommit.
std::vector<std::string> ActionsCompletingAs(const std::string& completed);
}  // namespace actions

/// Hudi's two timeline layouts: 1 (table version 6: `.hoodie/`, completed files
/// `<time>.<action>`) and 2 (versions 8+: `.hoodie/timeline/`, `<time>_<completion>.<action>`).
enum class TimelineLayout { kV1 = 1, kV2 = 2 };

/// One instant. Ordering is by `time`; `completion_time` is set once completed (for layout 1,
/// whose names carry none, it is the instant time).
struct Instant {
  std::string time;
  std::string action;
  InstantState state = InstantState::kRequested;
  std::string completion_time;

  bool is_completed() const { return state == InstantState::kCompleted; }

  /// The file name of this instant in this state, as Hudi names it: `<time>.<action>.requested`;
  /// `<time>.<action>.inflight` (a commit's is `<time>.inflight`); completed,
  /// `<time>_<completion>.<action>` in layout 2 and `<time>.<action>` in layout 1.
  std::string FileName(TimelineLayout layout = TimelineLayout::kV2) const;

  /// Parses a timeline file name of either layout; nullopt for any name that is not an instant
  /// file of a known action (hidden files, hoodie.properties, a stray `notes.txt`): Hudi
  /// ignores those, and so do we. Instant times are as
  /// IsInstantTimeToken (instant_time.h) takes them.
  static std::optional<Instant> FromFileName(std::string_view name);
};

}  // namespace lakeshore
