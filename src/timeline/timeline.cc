#include "timeline/timeline.h"

#include <algorithm>
#include <map>

#include "table/layout.h"
#include "timeline/instant_time.h"

namespace lakeshore {

std::string TimelineLocation::PathOf(const Instant& instant) const {
  return JoinPath(folder, instant.FileName(layout));
}

Result<Timeline> Timeline::Load(Storage& storage) {
  return Load(storage, TimelineLocation{layout::kTimelineDir, TimelineLayout::kV2});
}

Result<Timeline> Timeline::Load(Storage& storage, const TimelineLocation& location) {
  ARROW_ASSIGN_OR_RAISE(auto entries, storage.List(location.folder, /*recursive=*/false));
  // A savepoint takes the instant time of the commit it savepoints (Hudi's rule): it is an
  // instant of its own beside that commit, ordered after it.
  std::map<std::pair<std::string, bool>, Instant> by_time;
  for (const auto& e : entries) {
    if (e.is_dir) continue;
    std::optional<Instant> parsed = Instant::FromFileName(BaseName(e.path));
    if (!parsed) continue;
    if (parsed->is_completed() && parsed->completion_time.empty()) {
      // Layout 1: as Hudi 0.x and hudi-rs, the instant time stands for the completion time.
      parsed->completion_time = parsed->time;
    }
    auto [it, inserted] = by_time.emplace(std::make_pair(parsed->time, parsed->action == actions::kSavepoint), *parsed);
    if (inserted) continue;
    Instant& known = it->second;
    const bool same_action = known.action == parsed->action ||
                             actions::CompletedAction(known.action) == parsed->action ||
                             actions::CompletedAction(parsed->action) == known.action;
    if (!same_action) {
      return CorruptMetadata("timeline " + storage.root_uri() + "/" + location.folder +
                             " has two actions at instant " + parsed->time + ": " + known.action +
                             " and " + parsed->action);
    }
    if (static_cast<int>(parsed->state) > static_cast<int>(known.state)) known = *parsed;
  }
  Timeline t;
  t.location_ = location;
  for (auto& [key, instant] : by_time) t.instants_.push_back(std::move(instant));
  return t;
}

std::vector<Instant> Timeline::CompletedByCompletionTime() const {
  std::vector<Instant> out;
  for (const auto& i : instants_)
    if (i.is_completed()) out.push_back(i);
  std::stable_sort(out.begin(), out.end(), [](const Instant& a, const Instant& b) {
    return a.completion_time < b.completion_time;
  });
  return out;
}

std::vector<Instant> Timeline::Pending() const {
  std::vector<Instant> out;
  for (const auto& i : instants_)
    if (!i.is_completed()) out.push_back(i);
  return out;
}

std::optional<Instant> Timeline::Find(const std::string& time) const {
  for (const auto& i : instants_)
    if (i.time == time) return i;  // a commit before the savepoint of the same time
  return std::nullopt;
}

std::string Timeline::LastTime() const {
  std::string last;
  for (const auto& i : instants_) last = std::max({last, i.time, i.completion_time});
  return last;
}

std::string Timeline::LastCompletionTime() const {
  std::string last;
  for (const auto& i : instants_) last = std::max(last, i.completion_time);
  return last;
}

namespace timeline_ops {
namespace {
/// `instant` in `state`. A completed compaction or clustering is named by the action it
/// completes as (commit, replacecommit), as Hudi names it.
Instant InState(Instant instant, InstantState state, const std::string& completion = "") {
  instant.state = state;
  if (state == InstantState::kCompleted) instant.action = actions::CompletedAction(instant.action);
  instant.completion_time = completion;
  return instant;
}
}  // namespace

Status CreateRequested(Storage& storage, const TimelineLocation& at, const Instant& instant, const std::string& content) {
  Instant requested = InState(instant, InstantState::kRequested);
  ARROW_ASSIGN_OR_RAISE(bool created, storage.PutIfAbsentString(at.PathOf(requested), content));
  if (!created) return CommitConflict("instant " + instant.time + " already exists on the timeline");
  return Status::OK();
}

Status TransitionToInflight(Storage& storage, const TimelineLocation& at, const Instant& instant,
                           const std::string& content) {
  Instant inflight = InState(instant, InstantState::kInflight);
  ARROW_ASSIGN_OR_RAISE(bool created, storage.PutIfAbsentString(at.PathOf(inflight), content));
  if (!created) return CommitConflict("instant " + instant.time + " is already inflight");
  return Status::OK();
}

Result<Instant> Complete(Storage& storage, const TimelineLocation& at, const Instant& instant,
                         const std::string& completion_time, const std::string& content) {
  Instant done = InState(instant, InstantState::kCompleted, completion_time);
  ARROW_ASSIGN_OR_RAISE(bool created, storage.PutIfAbsentString(at.PathOf(done), content));
  if (!created) return CommitConflict("instant " + instant.time + " is already completed");
  return done;
}

Status DeletePendingFiles(Storage& storage, const TimelineLocation& at, const Instant& instant) {
  // A completed compaction or clustering named by its completed action (commit, replacecommit)
  // has its pending files under its own action's name: both go, inflight files first.
  std::vector<std::string> paths;
  const auto names = actions::ActionsCompletingAs(actions::CompletedAction(instant.action));
  for (InstantState state : {InstantState::kInflight, InstantState::kRequested}) {
    for (const auto& action : names) {
      Instant named = instant;
      named.action = action;
      paths.push_back(at.PathOf(InState(named, state)));
    }
  }
  return storage.DeleteFiles(paths).status();
}

Result<std::string> ReadContent(Storage& storage, const TimelineLocation& at, const Instant& instant) {
  return storage.ReadString(at.PathOf(instant));
}

Result<std::optional<std::string>> ReadContentIfPresent(Storage& storage, const TimelineLocation& at,
                                                        const Instant& instant) {
  auto text = ReadContent(storage, at, instant);
  if (text.ok()) return std::optional<std::string>(std::move(*text));
  ARROW_ASSIGN_OR_RAISE(bool exists, storage.Exists(at.PathOf(instant)));
  if (exists) return text.status();
  return std::optional<std::string>();
}

}  // namespace timeline_ops
}  // namespace lakeshore
