#include "timeline/instant.h"

#include "timeline/instant_time.h"

namespace lakeshore {

const char* InstantStateName(InstantState state) {
  switch (state) {
    case InstantState::kRequested: return "requested";
    case InstantState::kInflight: return "inflight";
    case InstantState::kCompleted: return "completed";
  }
  return "?";
}

namespace actions {
bool IsKnown(const std::string& a) {
  for (const char* k : {kCommit, kDeltaCommit, kReplaceCommit, kCompaction, kLogCompaction,
                        kClustering, kClean, kRollback, kRestore, kSavepoint, kVacuum, kIndexing})
    if (a == k) return true;
  return false;
}
bool WritesData(const std::string& a) {
  return a == kCommit || a == kDeltaCommit || a == kReplaceCommit || a == kCompaction ||
         a == kLogCompaction || a == kClustering;
}
std::string CompletedAction(const std::string& a) {
  if (a == kCompaction) return kCommit;
  if (a == kLogCompaction) return kDeltaCommit;
  if (a == kClustering) return kReplaceCommit;
  return a;
}
std::vector<std::string> ActionsCompletingAs(const std::string& completed) {
  std::vector<std::string> out = {completed};
  for (const char* pending : {kCompaction, kLogCompaction, kClustering}) {
    if (CompletedAction(pending) == completed && completed != pending) out.emplace_back(pending);
  }
  return out;
}
}  // namespace actions

std::string Instant::FileName(TimelineLayout layout) const {
  switch (state) {
    case InstantState::kRequested: return time + "." + action + ".requested";
    case InstantState::kInflight:
      return action == actions::kCommit ? time + ".inflight" : time + "." + action + ".inflight";
    case InstantState::kCompleted:
      return layout == TimelineLayout::kV1 ? time + "." + action
                                           : time + "_" + completion_time + "." + action;
  }
  return "";
}

std::optional<Instant> Instant::FromFileName(std::string_view name) {
  // <time>[_<completion>].<action>[.<state>] or <time>.inflight (a commit's inflight file).
  const size_t first_dot = name.find('.');
  if (first_dot == std::string_view::npos) return std::nullopt;
  std::string_view times = name.substr(0, first_dot);
  std::string_view rest = name.substr(first_dot + 1);
  Instant instant;
  const size_t underscore = times.find('_');
  if (underscore != std::string_view::npos) {
    instant.completion_time = std::string(times.substr(underscore + 1));
    times = times.substr(0, underscore);
    if (!IsInstantTimeToken(instant.completion_time)) return std::nullopt;
  }
  if (!IsInstantTimeToken(times)) return std::nullopt;
  instant.time = std::string(times);
  const size_t dot = rest.find('.');
  if (dot == std::string_view::npos) {
    if (rest == "inflight" && instant.completion_time.empty()) {
      instant.action = actions::kCommit;
      instant.state = InstantState::kInflight;
      return instant;
    }
    instant.action = std::string(rest);
    instant.state = InstantState::kCompleted;
  } else {
    if (!instant.completion_time.empty()) return std::nullopt;
    instant.action = std::string(rest.substr(0, dot));
    const std::string_view state = rest.substr(dot + 1);
    if (state == "requested") {
      instant.state = InstantState::kRequested;
    } else if (state == "inflight") {
      instant.state = InstantState::kInflight;
    } else {
      return std::nullopt;
    }
  }
  if (!actions::IsKnown(instant.action)) return std::nullopt;
  return instant;
}

}  // namespace lakeshore
