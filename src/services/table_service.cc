#include "services/table_service.h"

#include "services/metadata/metadata_writer.h"

#include "read/snapshot_reader.h"
#include "table/meta_columns.h"
#include "timeline/markers.h"
#include "write/heartbeat.h"
#include "write/rollback.h"

namespace lakeshore {

Result<std::optional<PendingService>> FindPendingService(TableContext& ctx, const Timeline& timeline,
                                                         const std::string& action, std::string* running) {
  for (const Instant& pending : timeline.Pending()) {
    if (pending.action != action) continue;
    ARROW_ASSIGN_OR_RAISE(bool expired, IsHeartbeatExpired(*ctx.storage, *ctx.clock, pending.time, ctx.heartbeat));
    if (!expired) {
      *running = pending.time;
      return std::nullopt;
    }
    ARROW_ASSIGN_OR_RAISE(auto plan, ctx.LoadRequestedPlan(pending));
    if (!plan) continue;  // completed between the listing and the read
    return std::optional<PendingService>(
        PendingService{InstantLifecycle::Resume(ctx.storage, ctx.timeline_location, pending), std::move(*plan)});
  }
  return std::nullopt;
}

Status RunTableService(TableContext& ctx, const std::string& action, bool schedule_only,
                       const std::function<Result<CommitMetadata>(const Timeline&, std::string* reason)>& make_plan,
                       const std::function<bool(const CommitMetadata&)>& has_work,
                       const std::function<Status(InstantLifecycle&, const CommitMetadata&)>& execute, ServiceRun* run) {
  ARROW_ASSIGN_OR_RAISE(auto guard, ctx.Lock().Acquire(action));
  ARROW_ASSIGN_OR_RAISE(auto timeline, ctx.LoadTimeline());
  ARROW_ASSIGN_OR_RAISE(run->rolled_back_instants, RollbackFailedWrites(ctx, timeline, *guard));
  ARROW_ASSIGN_OR_RAISE(timeline, ctx.LoadTimeline());
  std::string running;
  ARROW_ASSIGN_OR_RAISE(auto pending, FindPendingService(ctx, timeline, action, &running));
  if (!running.empty()) {
    run->instant_time = running;
    run->reason = action + " " + running + " is running in another process";
    return Status::OK();
  }
  std::optional<InstantLifecycle> lifecycle;
  CommitMetadata plan;
  if (pending) {
    lifecycle.emplace(std::move(pending->lifecycle));
    plan = std::move(pending->plan);
  } else {
    ARROW_ASSIGN_OR_RAISE(plan, make_plan(timeline, &run->reason));
    if (!has_work(plan)) return Status::OK();
    ARROW_ASSIGN_OR_RAISE(
        auto planned,
        InstantLifecycle::Plan(
            ctx.storage, ctx.timeline_location, action, LatestTime({&timeline}),
            [&](const Instant& i) { return ctx.EncodeInstant(i, InstantState::kRequested, plan); }, *ctx.clock,
            *guard));
    lifecycle.emplace(std::move(planned));
    run->scheduled = true;
  }
  run->instant_time = lifecycle->instant().time;
  if (schedule_only && run->scheduled) return Status::OK();
  // The heartbeat starts under the lock: another process sees this run as alive.
  ARROW_ASSIGN_OR_RAISE(auto heartbeat, Heartbeat::Start(ctx.storage, ctx.clock, run->instant_time, ctx.heartbeat));
  ARROW_RETURN_NOT_OK(guard->Release());
  Status st = execute(*lifecycle, plan);
  (void)heartbeat->Stop();
  return st;
}

Result<SliceReadSpec> StartServiceExecution(TableContext& ctx, InstantLifecycle& lifecycle, const CommitMetadata& plan,
                                            const std::vector<std::string>& new_files) {
  const std::string time = lifecycle.instant().time;
  ARROW_RETURN_NOT_OK(ClearPreviousAttempt(*ctx.storage, time));
  std::vector<Marker> markers;
  for (const auto& path : new_files) markers.push_back({path, MarkerType::kCreate});
  ARROW_RETURN_NOT_OK(WriteMarkers(*ctx.storage, time, markers));
  ARROW_ASSIGN_OR_RAISE(auto inflight, ctx.EncodeInstant(lifecycle.instant(), InstantState::kInflight, plan));
  ARROW_RETURN_NOT_OK(lifecycle.StartInflight(inflight));
  ARROW_ASSIGN_OR_RAISE(auto timeline, ctx.LoadTimeline());
  ARROW_ASSIGN_OR_RAISE(auto commits, ctx.LoadCommits(timeline));
  return SliceSpecFor(ctx, timeline, commits, "");
}

Result<std::shared_ptr<arrow::Table>> ReadPlannedSlice(TableContext& ctx, const SliceReadSpec& spec,
                                                       const PlannedSlice& planned) {
  FileSlice slice;
  slice.base_instant = planned.base_instant;
  if (!planned.base_file.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto info, ctx.storage->GetFileInfo(planned.base_file));
    if (!info) return CorruptMetadata("a table service plan names base file '" + planned.base_file + "', which is missing");
    slice.base_file = BaseFile{planned.base_file, info->size, 0, "", ""};
  }
  slice.log_files = planned.log_files;
  return ReadFileSlice(*ctx.storage, slice, spec);
}

Result<BaseFileWriteResult> WriteRewrittenBaseFile(TableContext& ctx, std::shared_ptr<arrow::Table> rows,
                                                   const std::string& path, const ParquetWriteSettings& settings) {
  const int column = rows->schema()->GetFieldIndex(meta_columns::kFileName);
  if (column >= 0) {
    ARROW_ASSIGN_OR_RAISE(auto name, meta_columns::MakeConstantColumn(std::string(BaseName(path)), rows->num_rows()));
    ARROW_ASSIGN_OR_RAISE(rows, rows->SetColumn(column, arrow::field(meta_columns::kFileName, name->type()),
                                                std::make_shared<arrow::ChunkedArray>(name)));
  }
  return WriteBaseFile(*ctx.storage, path, *rows, settings);
}

Status ClearPreviousAttempt(Storage& storage, const std::string& time) {
  ARROW_ASSIGN_OR_RAISE(auto markers, ReadMarkers(storage, time));
  if (markers.empty()) return Status::OK();
  std::vector<std::string> paths;
  for (const auto& m : markers) paths.push_back(m.path);
  ARROW_RETURN_NOT_OK(storage.DeleteFiles(paths).status());
  return DeleteMarkers(storage, time);
}

Status CompleteService(TableContext& ctx, InstantLifecycle& lifecycle, const CommitMetadata& completed) {
  const std::string time = lifecycle.instant().time;
  ARROW_ASSIGN_OR_RAISE(auto guard, ctx.Lock().Acquire(lifecycle.instant().action + " commit"));
  guard->KeepAlive();  // the metadata table update (a first build included) grows with the table
  ARROW_ASSIGN_OR_RAISE(auto timeline, ctx.LoadTimeline());
  auto self = timeline.Find(time);
  if (!self || self->is_completed()) {
    return CommitConflict(lifecycle.instant().action + " " + time +
                          " was completed or rolled back by another process meanwhile");
  }
  // The metadata table first, at this instant's time (write_client.cc's Commit does the same):
  // the new files, and for a clustering the keys it moved to new file groups.
  MetadataChanges changes;
  AddWrittenFiles(completed, &changes);
  if (!completed.replaced_file_ids.empty()) {
    changes.list_keys = [&ctx, &completed](MetadataChanges* c) { return AddRelocatedKeys(ctx, completed, c); };
  }
  // A resumed service whose earlier attempt died between its metadata deltacommit and its own
  // completion: that deltacommit (never counted, its instant pending) goes before this one is
  // written at the same time. Nothing when there is none.
  ARROW_RETURN_NOT_OK(RollbackMetadataInstant(ctx, time, *guard));
  ARROW_ASSIGN_OR_RAISE(std::string metadata_latest, UpdateMetadataTable(ctx, time, changes, timeline, *guard));
  auto bytes = ctx.EncodeInstant(lifecycle.instant(), InstantState::kCompleted, completed);
  Status done = bytes.ok() ? lifecycle.Complete(std::max(LatestTime({&timeline}), metadata_latest), *bytes, *ctx.clock,
                                                *guard)
                                 .status()
                           : bytes.status();
  if (!done.ok()) {
    (void)RollbackMetadataInstant(ctx, time, *guard);
    return done;
  }
  // Committed: a failed release only delays the next writer until the lease runs out.
  (void)guard->Release();
  (void)DeleteMarkers(*ctx.storage, time);
  return Status::OK();
}

PlannedSlice PlanLatestSlice(const FileGroup& group) {
  const FileSlice& slice = group.latest();
  PlannedSlice planned;
  planned.partition = group.partition;
  planned.file_id = group.file_id;
  planned.base_instant = slice.base_instant;
  if (slice.base_file) planned.base_file = slice.base_file->path;
  planned.log_files = slice.log_files;
  return planned;
}

std::map<std::string, int64_t> FileSizesByPath(const std::vector<CompletedCommit>& commits) {
  std::map<std::string, int64_t> sizes;
  for (const auto& c : commits) {
    for (const auto& stat : c.metadata.write_stats) {
      if (!stat.path.empty()) sizes[stat.path] = stat.file_size;
    }
  }
  return sizes;
}

int64_t SliceBytes(const FileSlice& slice, const std::map<std::string, int64_t>& sizes) {
  int64_t bytes = slice.base_file ? slice.base_file->size : 0;
  for (const auto& log : slice.log_files) {
    auto it = sizes.find(log);
    if (it != sizes.end()) bytes += it->second;
  }
  return bytes;
}

void ServiceProgress::Report(int64_t done) {
  if (!callback_) return;
  std::lock_guard<std::mutex> lock(mu_);
  done_ = done < 0 ? done_ + 1 : done;
  ctx_.ReportProgress(callback_, Progress{phase_, done_, total_, unit_});
}

}  // namespace lakeshore
