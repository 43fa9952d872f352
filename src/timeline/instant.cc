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
  for (const char* k : {kCommit, kDeltaCommit, kReplaceCommit, kCompaction, kClean, kRollback,
                        kRestore, kSavepoint, kVacuum, kIndexing})
    if (a == k) return true;
  return false;
}
bool WritesData(const std::string& a) {
  return a == kCommit || a == kDeltaCommit || a == kReplaceCommit || a == kCompaction;
}
}  // namespace actions

std::string Instant::FileName() const {
  switch (state) {
    case InstantState::kRequested: return time + "." + action + ".requested";
    case InstantState::kInflight: return time + "." + action + ".inflight";
    case InstantState::kCompleted: return time + "_" + completion_time + "." + action;
  }
  return "";
}

Result<std::optional<Instant>> Instant::FromFileName(const std::string& name) {
  if (name.empty() || name[0] == '.' || name == "archive") return std::optional<Instant>();
  auto bad = [&](const char* why) {
    return CorruptMetadata("timeline file '" + name + "' is malformed: " + why);
  };
  if (name.size() < kInstantTimeLength + 2) return bad("name too short");
  Instant instant;
  instant.time = name.substr(0, kInstantTimeLength);
  if (!LooksLikeInstantTime(instant.time)) return bad("does not start with an instant time");
  std::string rest = name.substr(kInstantTimeLength);
  if (rest[0] == '_') {
    size_t dot = rest.find('.');
    if (dot == std::string::npos) return bad("no action");
    instant.completion_time = rest.substr(1, dot - 1);
    if (!LooksLikeInstantTime(instant.completion_time)) return bad("bad completion time");
    instant.action = rest.substr(dot + 1);
    instant.state = InstantState::kCompleted;
  } else if (rest[0] == '.') {
    size_t dot = rest.rfind('.');
    if (dot == 0) return bad("no state");
    instant.action = rest.substr(1, dot - 1);
    std::string state = rest.substr(dot + 1);
    if (state == "requested") instant.state = InstantState::kRequested;
    else if (state == "inflight") instant.state = InstantState::kInflight;
    else return bad("unknown state");
  } else {
    return bad("unexpected character after the instant time");
  }
  if (!actions::IsKnown(instant.action)) {
    return UnsupportedFeature("timeline file '" + name + "' names action '" + instant.action +
                              "', which this build does not know");
  }
  return std::optional<Instant>(std::move(instant));
}

}  // namespace lakeshore
