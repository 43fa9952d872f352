#include "timeline/timeline.h"

#include <algorithm>
#include <map>

#include "table/layout.h"

namespace lakeshore {

Result<Timeline> Timeline::Load(Storage& storage) {
  ARROW_ASSIGN_OR_RAISE(auto entries, storage.List(layout::kTimelineDir, /*recursive=*/false));
  std::map<std::string, Instant> by_time;
  for (const auto& e : entries) {
    if (e.is_dir) continue;
    ARROW_ASSIGN_OR_RAISE(auto parsed, Instant::FromFileName(std::string(BaseName(e.path))));
    if (!parsed) continue;
    auto [it, inserted] = by_time.emplace(parsed->time, *parsed);
    if (!inserted) {
      if (it->second.action != parsed->action) {
        return CorruptMetadata("timeline has two actions at instant " + parsed->time + ": " +
                               it->second.action + " and " + parsed->action);
      }
      if (static_cast<int>(parsed->state) > static_cast<int>(it->second.state)) it->second = *parsed;
    }
  }
  Timeline t;
  for (auto& [time, instant] : by_time) t.instants_.push_back(std::move(instant));
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
    if (i.time == time) return i;
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

std::string Timeline::PathOf(const Instant& instant) {
  return JoinPath(layout::kTimelineDir, instant.FileName());
}

namespace timeline_ops {
namespace {
Instant InState(Instant instant, InstantState state, const std::string& completion = "") {
  instant.state = state;
  instant.completion_time = completion;
  return instant;
}
}  // namespace

Status CreateRequested(Storage& storage, const Instant& instant, const std::string& content) {
  Instant requested = InState(instant, InstantState::kRequested);
  ARROW_ASSIGN_OR_RAISE(bool created, storage.PutIfAbsentString(Timeline::PathOf(requested), content));
  if (!created) return CommitConflict("instant " + instant.time + " already exists on the timeline");
  return Status::OK();
}

Status TransitionToInflight(Storage& storage, const Instant& instant, const std::string& content) {
  Instant inflight = InState(instant, InstantState::kInflight);
  ARROW_ASSIGN_OR_RAISE(bool created, storage.PutIfAbsentString(Timeline::PathOf(inflight), content));
  if (!created) return CommitConflict("instant " + instant.time + " is already inflight");
  return Status::OK();
}

Result<Instant> Complete(Storage& storage, const Instant& instant, const std::string& completion_time,
                         const std::string& content) {
  Instant done = InState(instant, InstantState::kCompleted, completion_time);
  ARROW_ASSIGN_OR_RAISE(bool created, storage.PutIfAbsentString(Timeline::PathOf(done), content));
  if (!created) return CommitConflict("instant " + instant.time + " is already completed");
  return done;
}

Status DeletePendingFiles(Storage& storage, const Instant& instant) {
  std::vector<std::string> paths = {Timeline::PathOf(InState(instant, InstantState::kInflight)),
                                    Timeline::PathOf(InState(instant, InstantState::kRequested))};
  return storage.DeleteFiles(paths).status();
}

Result<std::string> ReadContent(Storage& storage, const Instant& instant) {
  return storage.ReadString(Timeline::PathOf(instant));
}

}  // namespace timeline_ops
}  // namespace lakeshore
