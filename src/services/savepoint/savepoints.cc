#include "services/savepoint/savepoints.h"

#include <nlohmann/json.hpp>

#include "actions/instant_lifecycle.h"
#include "format/avro_container.h"
#include "format/hoodie_avro_schemas.h"
#include "read/table_view.h"

namespace lakeshore {
namespace {

using json = nlohmann::json;

/// The completed savepoint of `time` on `timeline`, if any (it follows its commit there).
std::optional<Instant> SavepointOf(const Timeline& timeline, const std::string& time) {
  for (const auto& i : timeline.instants()) {
    if (i.time == time && i.action == actions::kSavepoint) return i;
  }
  return std::nullopt;
}

/// HoodieSavepointMetadata of the view as of `commit`: per partition, the data files of its
/// latest slices.
Result<std::string> EncodeSavepoint(TableContext& ctx, const Timeline& timeline, const Instant& commit,
                                    const std::string& user, const std::string& comment, int64_t now_s) {
  ARROW_ASSIGN_OR_RAISE(auto commits, ctx.LoadCommits(timeline));
  ARROW_ASSIGN_OR_RAISE(auto view, TableView(ctx, timeline, commits, commit.completion_time));
  json partitions = json::object();
  for (const FileGroup* g : view.LiveFileGroups()) {
    const FileSlice& slice = g->latest();
    json& files = partitions[g->partition];
    if (files.is_null()) files = {{"partitionPath", g->partition}, {"savepointDataFile", json::array()}};
    if (slice.base_file) files["savepointDataFile"].push_back(std::string(BaseName(slice.base_file->path)));
    for (const auto& log : slice.log_files) files["savepointDataFile"].push_back(std::string(BaseName(log)));
  }
  json record = {{"savepointedBy", user},
                 {"savepointedAt", now_s},
                 {"comments", comment},
                 {"partitionMetadata", partitions},
                 {"version", 1}};
  ARROW_ASSIGN_OR_RAISE(std::string schema, format::HoodieAvroSchema("HoodieSavepointMetadata"));
  return format::WriteAvroContainer(schema, {record});
}

Result<SavepointView> ViewOf(TableContext& ctx, const Instant& savepoint) {
  SavepointView v;
  v.instant_time = savepoint.time;
  v.completion_time = savepoint.completion_time;
  ARROW_ASSIGN_OR_RAISE(auto bytes, timeline_ops::ReadContent(*ctx.storage, ctx.timeline_location, savepoint));
  if (bytes.empty()) return v;
  const std::string source = ctx.timeline_location.PathOf(savepoint);
  ARROW_ASSIGN_OR_RAISE(auto container, format::ReadAvroContainer(bytes, source));
  if (container.records.size() != 1 || !container.records[0].is_object()) {
    return CorruptMetadata("savepoint '" + source + "' does not hold one HoodieSavepointMetadata record");
  }
  const json& r = container.records[0];
  if (r.contains("savepointedBy") && r["savepointedBy"].is_string()) v.user = r["savepointedBy"].get<std::string>();
  if (r.contains("comments") && r["comments"].is_string()) v.comment = r["comments"].get<std::string>();
  if (r.contains("savepointedAt") && r["savepointedAt"].is_number_integer()) {
    v.savepointed_at_s = r["savepointedAt"].get<int64_t>();
  }
  if (r.contains("partitionMetadata") && r["partitionMetadata"].is_object()) {
    for (const auto& [partition, meta] : r["partitionMetadata"].items()) {
      if (meta.is_object() && meta.contains("savepointDataFile") && meta["savepointDataFile"].is_array()) {
        v.files += static_cast<int64_t>(meta["savepointDataFile"].size());
      }
    }
  }
  return v;
}

}  // namespace

Result<SavepointView> CreateSavepoint(TableContext& ctx, const std::string& instant_time, const std::string& user,
                                      const std::string& comment) {
  ARROW_RETURN_NOT_OK(ctx.CheckWritable("savepoint"));
  ARROW_ASSIGN_OR_RAISE(auto guard, ctx.Lock().Acquire("savepoint"));
  ARROW_ASSIGN_OR_RAISE(auto timeline, ctx.LoadTimeline());
  auto commit = timeline.Find(instant_time);
  if (!commit || !actions::WritesData(commit->action) || !commit->is_completed()) {
    return Status::Invalid("cannot savepoint ", instant_time, " of table ", ctx.uri,
                           ": it is not a completed commit on the active timeline");
  }
  if (SavepointOf(timeline, instant_time) && SavepointOf(timeline, instant_time)->is_completed()) {
    return Status::Invalid("instant ", instant_time, " of table ", ctx.uri, " is already savepointed");
  }
  Instant savepoint{instant_time, actions::kSavepoint, InstantState::kInflight, ""};
  std::optional<InstantLifecycle> life;
  if (SavepointOf(timeline, instant_time)) {
    life.emplace(InstantLifecycle::Resume(ctx.storage, ctx.timeline_location, savepoint));  // a crash left it inflight
  } else {
    ARROW_ASSIGN_OR_RAISE(auto started, InstantLifecycle::StartAt(ctx.storage, ctx.timeline_location, savepoint, "", *guard));
    life.emplace(std::move(started));
  }
  ARROW_ASSIGN_OR_RAISE(auto bytes, EncodeSavepoint(ctx, timeline, *commit, user, comment, ctx.clock->NowMs() / 1000));
  ARROW_ASSIGN_OR_RAISE(auto done, life->Complete(LatestTime({&timeline}), bytes, *ctx.clock, *guard));
  ARROW_RETURN_NOT_OK(guard->Release());
  Instant completed = life->instant();
  completed.completion_time = done;
  return ViewOf(ctx, completed);
}

Status DeleteSavepoint(TableContext& ctx, const std::string& instant_time) {
  ARROW_RETURN_NOT_OK(ctx.CheckWritable("delete a savepoint of"));
  ARROW_ASSIGN_OR_RAISE(auto guard, ctx.Lock().Acquire("savepoint"));
  ARROW_ASSIGN_OR_RAISE(auto timeline, ctx.LoadTimeline());
  auto savepoint = SavepointOf(timeline, instant_time);
  if (!savepoint) return Status::Invalid("table ", ctx.uri, " has no savepoint of ", instant_time);
  ARROW_RETURN_NOT_OK(guard->CheckHeld());
  // The completed file first: from then on the savepoint is gone; the inflight file after.
  if (savepoint->is_completed()) {
    ARROW_RETURN_NOT_OK(ctx.storage->DeleteFiles({ctx.timeline_location.PathOf(*savepoint)}).status());
  }
  ARROW_RETURN_NOT_OK(InstantLifecycle::Resume(ctx.storage, ctx.timeline_location, *savepoint).Abandon());
  return guard->Release();
}

Result<std::vector<SavepointView>> ListSavepoints(TableContext& ctx) {
  ARROW_ASSIGN_OR_RAISE(auto timeline, ctx.LoadTimeline());
  std::vector<SavepointView> out;
  for (const auto& i : timeline.instants()) {
    if (i.action != actions::kSavepoint || !i.is_completed()) continue;
    ARROW_ASSIGN_OR_RAISE(auto view, ViewOf(ctx, i));
    out.push_back(std::move(view));
  }
  return out;
}

}  // namespace lakeshore
