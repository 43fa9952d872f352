#include "write/write_client.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <set>

#include <arrow/array/concatenate.h>
#include <arrow/compute/api.h>

#include "common/arrow_cast.h"
#include "index/index.h"
#include "index/bloom_index.h"
#include "index/record_index.h"
#include "index/stored_keys.h"
#include "format/metadata_keys.h"
#include "io/metadata_files.h"
#include "services/metadata/metadata_writer.h"
#include "io/base_file.h"
#include "read/file_slice_reader.h"
#include "read/snapshot_reader.h"
#include "read/stored_key_check.h"
#include "table/index_definitions.h"
#include "table/meta_columns.h"
#include "table/record_key.h"
#include "format/java_properties.h"
#include "timeline/instant_time.h"
#include "timeline/markers.h"
#include "actions/instant_lifecycle.h"
#include "write/file_group_write.h"
#include "write/commit_decision.h"
#include "write/rollback.h"
#include "write/write_input.h"
#include "write/write_planner.h"

namespace lakeshore {
namespace {
using FileGroupKey = std::pair<std::string, std::string>;

class ProgressReporter {
 public:
  ProgressReporter(const ProgressCallback& cb, TableContext& ctx) : cb_(cb), ctx_(ctx) {}
  void Report(const std::string& phase, int64_t done, int64_t total, const std::string& unit) {
    if (!cb_) return;
    std::lock_guard<std::mutex> lock(mu_);
    ctx_.ReportProgress(cb_, Progress{phase, done, total, unit});
  }

 private:
  const ProgressCallback& cb_;
  TableContext& ctx_;
  std::mutex mu_;
};

// State of one write between its begin and its commit.
struct WriteState {
  std::optional<InstantLifecycle> lifecycle;  ///< set once the requested instant exists
  Instant instant;
  std::unique_ptr<Heartbeat> heartbeat;
  std::string base_completion;  // the newest completion this write's view includes
  Timeline timeline;            // the timeline this write's view was built from
  std::vector<CompletedCommit> commits;
  std::vector<std::string> rolled_back;
  std::vector<std::string> planned_files;
  bool commit_attempted = false;
  /// An upsert: its new keys are checked again at the commit (CheckNewKeysStillNew), by the
  /// record index where it tagged them, else in the file groups written meanwhile.
  bool check_new_keys = false;
  bool tagged_by_record_index = false;
  bool global_index = false;  ///< the tagging index keeps a key in one partition
  /// The write can store a key where it was not (upserts, inserts, insert_overwrite): unless it
  /// tagged globally, a record or secondary index built meanwhile makes it conflict at commit.
  bool may_add_keys = false;
  /// Completed write instants on the active timeline once this one completes (set at the commit).
  int64_t active_write_instants = 0;
};

/// The action of a write's instant: replace operations are replacecommits; every other write is a
/// deltacommit on a merge-on-read table and a commit on a copy-on-write one.
const char* WriteAction(const TableContext& ctx, WriteOperation op) {
  if (IsReplaceOperation(op)) return actions::kReplaceCommit;
  return ctx.config.table_type == TableType::kMergeOnRead ? actions::kDeltaCommit : actions::kCommit;
}

/// True for a write to a file group that exists (its latest slice may have no base file).
bool ChangesExistingGroup(const FileGroupWrite& w) { return !w.prev_base_instant.empty(); }

/// kCommitConflict when the table's schema as `commits` leave it is not the one this table
/// object was opened with: a schema change committed since (writing the old schema would undo
/// it), or one this object saw rolled back or restored away elsewhere (writing the new schema
/// would redo it).
Status CheckSchemaUnchanged(const TableContext& ctx, const std::vector<CompletedCommit>& commits) {
  std::string source;
  if (ctx.LatestAvroSchema(commits, &source) == ctx.avro_schema) return Status::OK();
  return CommitConflict("the schema of table " + ctx.uri + " is no longer the one it was opened with (now as of " +
                        source + "): it changed, or a change of it was undone, since; reopen the table and retry");
}

Status Begin(TableContext& ctx, WriteOperation op, WriteState& state, const char* operation = nullptr) {
  ARROW_ASSIGN_OR_RAISE(auto guard, ctx.Lock().Acquire("write"));
  ARROW_ASSIGN_OR_RAISE(auto timeline, ctx.LoadTimeline());
  ARROW_ASSIGN_OR_RAISE(state.rolled_back, RollbackFailedWrites(ctx, timeline, *guard));
  // Recovery may have changed the timeline in ways rolled_back does not list (a write rolled
  // forward, a restore finished): this write's view starts from a fresh listing.
  ARROW_ASSIGN_OR_RAISE(timeline, ctx.LoadTimeline());
  CommitMetadata requested;
  requested.operation = operation != nullptr ? operation : WriteOperationName(op);
  ARROW_ASSIGN_OR_RAISE(
      auto lifecycle,
      InstantLifecycle::Plan(
          ctx.storage, ctx.timeline_location, WriteAction(ctx, op),
          LatestTime({&timeline}),
          [&](const Instant& instant) { return ctx.EncodeInstant(instant, InstantState::kRequested, requested); },
          *ctx.clock, *guard));
  state.instant = lifecycle.instant();
  state.lifecycle.emplace(std::move(lifecycle));
  // The heartbeat starts under the lock, before anyone can judge the new instant by it.
  ARROW_ASSIGN_OR_RAISE(state.heartbeat, Heartbeat::Start(ctx.storage, ctx.clock, state.instant.time, ctx.heartbeat));
  ARROW_RETURN_NOT_OK(guard->Release());
  state.base_completion = timeline.LastCompletionTime();
  ARROW_ASSIGN_OR_RAISE(state.commits, ctx.LoadCommits(timeline));
  ARROW_RETURN_NOT_OK(CheckSchemaUnchanged(ctx, state.commits));
  state.timeline = std::move(timeline);
  return Status::OK();
}

/// kCommitConflict when the write changes a file group a pending clustering will replace: the
/// clustering would drop the change (Hudi's default update strategy refuses these writes too).
Status CheckNotUnderClustering(const std::map<FileGroupKey, std::string>& clustering, const std::string& instant,
                               const std::set<FileGroupKey>& touched) {
  for (const auto& key : touched) {
    auto it = clustering.find(key);
    if (it == clustering.end()) continue;
    return CommitConflict("write " + instant + " would change file group " + key.second + " in partition '" +
                          key.first + "', which pending clustering " + it->second +
                          " will replace; retry once the clustering has completed");
  }
  return Status::OK();
}

/// True for a commit that can conflict with the write of `state`: it wrote data and completed
/// after the write's view was fixed. A compaction never conflicts with a write: it merged slices
/// whose logs completed before it was planned, and logs written since join its new slices
/// (completion-time slicing).
bool CompletedMeanwhile(const CompletedCommit& c, const WriteState& state) {
  return c.instant.completion_time > state.base_completion && actions::WritesData(c.instant.action) &&
         c.metadata.operation != "compact";
}

/// True when hoodie.properties (read now) lists metadata partition `partition` as built.
Result<bool> MetadataPartitionBuilt(TableContext& ctx, const char* partition) {
  ARROW_ASSIGN_OR_RAISE(auto config, HoodieTableConfig::Load(*ctx.storage));
  return config.HasMetadataPartition(partition);
}

/// A rollback or restore completed meanwhile that undid an instant this write's view held, in a
/// file group the write changed: the write merged the undone records and would bring them back.
Status CheckViewNotUndone(const std::vector<CompletedCommit>& commits, const WriteState& state,
                          const std::set<FileGroupKey>& touched) {
  for (const auto& c : commits) {
    if (c.instant.completion_time <= state.base_completion) continue;
    std::vector<std::string> undone;
    if (c.metadata.rollback) undone.push_back(c.metadata.rollback->target.time);
    if (c.metadata.restore) {
      for (const auto& t : c.metadata.restore->targets) undone.push_back(t.time);
    }
    for (const auto& time : undone) {
      for (const auto& seen : state.commits) {
        if (seen.instant.time != time) continue;
        for (const auto& stat : seen.metadata.write_stats) {
          if (touched.count({stat.partition, stat.file_id}) == 0) continue;
          return CommitConflict("write " + state.instant.time + " read file group " + stat.file_id + " in partition '" +
                                stat.partition + "' as " + time + " wrote it, which " + c.instant.action + " " +
                                c.instant.time + " rolled back meanwhile; retry the write");
        }
      }
    }
  }
  return Status::OK();
}

/// `failure`, a storage error of a write before its commit, as the conflict it was when another
/// writer caused it: a rollback of this write (its heartbeat expired: its markers' folder went),
/// or a rollback or restore that removed files its view read. Callers retry conflicts; a bare
/// "No such file" told them nothing. Cost, on this failure path only: a listing and the commits.
Status ExplainStorageFailure(TableContext& ctx, const WriteState& state, const Status& failure) {
  if (!failure.IsIOError() || !state.lifecycle || state.commit_attempted) return failure;
  auto timeline = ctx.LoadTimeline();
  if (!timeline.ok()) return failure;
  auto self = timeline->Find(state.instant.time);
  if (!self || self->is_completed()) {
    return CommitConflict("write " + state.instant.time + " was rolled back by another writer (its heartbeat had " +
                          "expired) while it wrote; nothing of it is visible (" + failure.message() + ")");
  }
  auto commits = ctx.LoadCommits(*timeline);
  if (!commits.ok()) return failure;
  std::set<FileGroupKey> read;  // every file group the view held
  for (const auto& seen : state.commits) {
    for (const auto& stat : seen.metadata.write_stats) read.insert({stat.partition, stat.file_id});
  }
  Status undone = CheckViewNotUndone(*commits, state, read);
  if (!undone.ok()) return undone.WithMessage(undone.message(), " (", failure.message(), ")");
  return failure;
}

Status CheckConflicts(const std::vector<CompletedCommit>& commits, const WriteState& state,
                      const std::set<FileGroupKey>& touched) {
  ARROW_RETURN_NOT_OK(CheckViewNotUndone(commits, state, touched));
  for (const auto& c : commits) {
    if (!CompletedMeanwhile(c, state)) continue;  // a schema change meanwhile: CheckSchemaUnchanged
    for (const auto& stat : c.metadata.write_stats) {
      if (touched.count({stat.partition, stat.file_id}) == 0) continue;
      return CommitConflict("write " + state.instant.time + " conflicts with " + c.instant.action + " " +
                            c.instant.time + ", which committed first and also wrote file group " +
                            stat.file_id + " in partition '" + stat.partition + "'; retry the write");
    }
    // A replacecommit (insert_overwrite, clustering) that ended a group this write changed:
    // the change would land in a group no reader sees any more.
    for (const auto& [partition, ids] : c.metadata.replaced_file_ids) {
      for (const auto& id : ids) {
        if (touched.count({partition, id}) == 0) continue;
        return CommitConflict("write " + state.instant.time + " conflicts with " + c.instant.action + " " +
                              c.instant.time + ", which committed first and replaced file group " + id +
                              " in partition '" + partition + "'; retry the write");
      }
    }
  }
  return Status::OK();
}

/// How the indexes read the keys live in a slice with log files (merge-on-read): the slice
/// merged as a snapshot read of `timeline` and `commits` merges it, projected to the record key
/// (index/stored_keys.h). Slices without log files are read as base files, never through this;
/// a copy-on-write table has none, and gets no reader (its visible-instant set is not built).
MergedSliceKeys MergedKeysOf(TableContext& ctx, const Timeline& timeline, const std::vector<CompletedCommit>& commits) {
  if (ctx.config.table_type != TableType::kMergeOnRead) return nullptr;
  SliceReadSpec spec = SliceSpecFor(ctx, timeline, commits, "");
  spec.columns = {meta_columns::kRecordKey};
  return [storage = ctx.storage, spec](const FileSlice& slice) -> Result<std::shared_ptr<arrow::ChunkedArray>> {
    ARROW_ASSIGN_OR_RAISE(auto table, ReadFileSlice(*storage, slice, spec));
    return table->GetColumnByName(meta_columns::kRecordKey);
  };
}

/// kCommitConflict naming the first of `new_keys` that a file group written by the commits
/// completed meanwhile now stores, in the key's scope (its partition; any, for a global index).
/// Those groups are read as they are now (the keys live in their latest slices, RowsStoredIn),
/// in parallel; a key they held before this write began was tagged as stored, so it is not
/// among `new_keys`. Cost: one key-column read (or merged slice read) per group written
/// meanwhile.
Status CheckNewKeysNotWrittenMeanwhile(TableContext& ctx, const WriteState& state, const Timeline& timeline,
                                       const std::vector<CompletedCommit>& commits,
                                       const std::vector<RecordIndexEntry>& new_keys) {
  std::set<FileGroupKey> written;
  for (const auto& c : commits) {
    if (!CompletedMeanwhile(c, state)) continue;
    for (const auto& stat : c.metadata.write_stats) written.insert({stat.partition, stat.file_id});
  }
  if (written.empty()) return Status::OK();
  std::vector<std::string_view> keys;
  keys.reserve(new_keys.size());
  std::map<std::string, std::vector<int64_t>> rows_by_scope;
  for (size_t i = 0; i < new_keys.size(); ++i) {
    keys.emplace_back(new_keys[i].key);
    rows_by_scope[state.global_index ? std::string() : new_keys[i].partition].push_back(static_cast<int64_t>(i));
  }
  std::map<std::string, KeyLookup> lookups;  // a write's keys are unique in their scope
  for (const auto& [scope, rows] : rows_by_scope) lookups.try_emplace(scope, keys, rows);
  const FileSystemView now = FileSystemView::Build(commits);
  struct Probe {
    const FileGroup* group;
    const KeyLookup* keys;
  };
  std::vector<Probe> probes;
  for (const auto& [partition, file_id] : written) {
    auto lookup = lookups.find(state.global_index ? std::string() : partition);
    const FileGroup* group = now.Find(partition, file_id);
    if (lookup == lookups.end() || group == nullptr || !group->is_live()) continue;
    probes.push_back({group, &lookup->second});
  }
  const MergedSliceKeys merged = MergedKeysOf(ctx, timeline, commits);
  ARROW_ASSIGN_OR_RAISE(auto hits, ctx.engine->Map<std::vector<int64_t>>(
                                       static_cast<int64_t>(probes.size()), [&](int64_t i) {
                                         const Probe& p = probes[static_cast<size_t>(i)];
                                         return RowsStoredIn(*ctx.storage, *p.group, *p.keys, merged);
                                       }));
  for (size_t i = 0; i < probes.size(); ++i) {
    if (hits[i].empty()) continue;
    const RecordIndexEntry& key = new_keys[static_cast<size_t>(hits[i].front())];
    return CommitConflict("write " + state.instant.time + " inserts key '" + key.key + "' into partition '" +
                          key.partition + "', which a concurrent write stored first in file group " +
                          probes[i].group->file_id + " in partition '" + probes[i].group->partition +
                          "'; retry the write");
  }
  return Status::OK();
}

/// Keys new to the table are not locked while a write runs: a writer that committed meanwhile
/// may have inserted one of this upsert's new keys into another file group, and both committing
/// would store the key twice (Hudi's conflict check, by file group, lets that through). So when
/// a write completed since this one began, its new keys (`changes.list_keys`, run here: they are
/// the record index update too) are looked up again, under the lock: in the record index where
/// it tagged them and is still built (one lookup of the new keys), else in the file groups
/// written meanwhile (CheckNewKeysNotWrittenMeanwhile). One found is a conflict. No write
/// completed meanwhile: nothing to look up.
Status CheckNewKeysStillNew(TableContext& ctx, const WriteState& state, const Timeline& timeline,
                            const std::vector<CompletedCommit>& commits, MetadataChanges& changes) {
  std::string concurrent;
  for (const auto& c : commits) {
    if (CompletedMeanwhile(c, state)) concurrent = c.instant.time;
  }
  if (concurrent.empty()) return Status::OK();
  if (changes.list_keys) {
    ARROW_RETURN_NOT_OK(changes.list_keys(&changes));
    changes.list_keys = nullptr;
  }
  if (changes.keys_located.empty()) return Status::OK();
  // A record index dropped or being rebuilt meanwhile answers nothing to trust: the files do.
  bool indexed = false;
  if (state.tagged_by_record_index) {
    ARROW_ASSIGN_OR_RAISE(indexed, MetadataPartitionBuilt(ctx, kMetadataRecordIndex));
  }
  if (!indexed) return CheckNewKeysNotWrittenMeanwhile(ctx, state, timeline, commits, changes.keys_located);
  std::vector<std::string_view> keys;
  keys.reserve(changes.keys_located.size());
  for (const auto& k : changes.keys_located) keys.emplace_back(k.key);
  ARROW_ASSIGN_OR_RAISE(auto found, LookupMetadataRecordIndex(ctx.storage, *ctx.engine, ValidDataInstants(timeline), keys));
  for (size_t i = 0; i < found.size(); ++i) {
    if (!found[i]) continue;
    return CommitConflict("write " + state.instant.time + " inserts key '" + std::string(keys[i]) +
                          "', which a concurrent write (" + concurrent + " or before it) inserted first into file group " +
                          found[i]->file_id() + "; retry the write");
  }
  return Status::OK();
}

/// True when the table keeps one copy of each record key, whatever index a writer names: its
/// metadata table holds a record index (a key → its one place) or this writer wants one built,
/// or it defines a secondary index (a value → keys). A partitioned index would store a moved key
/// a second time, an insert a repeated one, and those indexes would keep one copy.
Result<bool> KeysKeptOnce(TableContext& ctx, const HoodieTableConfig& config) {
  if (config.HasMetadataPartition(kMetadataRecordIndex)) return true;
  if (ctx.index_type == "RECORD_INDEX" || ctx.metadata.record_index) return true;
  return DefinesSecondaryIndex(*ctx.storage, config);
}

/// A write that placed keys without tagging globally, on a table that gained a record index or
/// a secondary index since (KeysKeptOnce): it may repeat a key those keep once. Cost: a read of
/// hoodie.properties (and of the index definitions, where it names them).
Status CheckKeysKeptOnceSinceTagging(TableContext& ctx, const WriteState& state) {
  if (!state.may_add_keys || state.global_index) return Status::OK();
  ARROW_ASSIGN_OR_RAISE(auto config, HoodieTableConfig::Load(*ctx.storage));
  ARROW_ASSIGN_OR_RAISE(bool kept_once, KeysKeptOnce(ctx, config));
  if (!kept_once) return Status::OK();
  return CommitConflict("write " + state.instant.time + " placed its records before " + ctx.uri +
                        " gained a record index or a secondary index, which keep one copy of each key; retry the "
                        "write");
}

Status Commit(TableContext& ctx, WriteState& state, const CommitMetadata& metadata,
              const std::set<FileGroupKey>& touched, MetadataChanges changes = {}) {
  AddWrittenFiles(metadata, &changes);
  changes.written = &metadata;  // a write changes records: secondary indexes diff its file groups
  ARROW_ASSIGN_OR_RAISE(auto guard, ctx.Lock().Acquire("commit"));
  guard->KeepAlive();  // the metadata table update (a first build included) grows with the table
  ARROW_ASSIGN_OR_RAISE(auto timeline, ctx.LoadTimeline());
  auto self = timeline.Find(state.instant.time);
  if (!self || self->is_completed()) {
    return CommitConflict("write " + state.instant.time +
                          " was rolled back by another writer (its heartbeat had expired)");
  }
  ARROW_ASSIGN_OR_RAISE(auto commits, ctx.LoadCommits(timeline));
  ARROW_ASSIGN_OR_RAISE(bool doomed, IsNamedByRollback(ctx, timeline, commits, state.instant.time));
  if (doomed) {
    return CommitConflict("write " + state.instant.time +
                          " is being rolled back by another writer (its heartbeat had expired)");
  }
  ARROW_RETURN_NOT_OK(CheckConflicts(commits, state, touched));
  ARROW_RETURN_NOT_OK(CheckSchemaUnchanged(ctx, commits));
  state.active_write_instants = 1 + std::count_if(timeline.instants().begin(), timeline.instants().end(), [](const Instant& i) {
                                      return i.is_completed() && actions::WritesData(i.action);
                                    });
  if (state.check_new_keys) ARROW_RETURN_NOT_OK(CheckNewKeysStillNew(ctx, state, timeline, commits, changes));
  ARROW_RETURN_NOT_OK(CheckKeysKeptOnceSinceTagging(ctx, state));
  // A clustering scheduled while this write ran.
  ARROW_ASSIGN_OR_RAISE(auto clustering, FileGroupsUnderClustering(ctx, timeline));
  ARROW_RETURN_NOT_OK(CheckNotUnderClustering(clustering, state.instant.time, touched));
  ARROW_RETURN_NOT_OK(guard->CheckHeld());
  // The metadata table first, at this instant's time: its entries count only once this instant
  // completes, and a crash from here on leaves them for the rollback to remove.
  ARROW_ASSIGN_OR_RAISE(std::string metadata_latest, UpdateMetadataTable(ctx, state.instant.time, changes, timeline, *guard));
  // Anything failing before the decision undoes the metadata deltacommit while the lock is held.
  auto undo = [&](Status st) {
    if (!metadata_latest.empty()) (void)RollbackMetadataInstant(ctx, state.instant.time, *guard);
    return st;
  };
  auto completion = NextInstantTime(ctx.clock->NowMs(), std::max(LatestTime({&timeline}), metadata_latest));
  if (!completion.ok()) return undo(completion.status());
  auto bytes = ctx.EncodeInstant(state.instant, InstantState::kCompleted, metadata);
  if (!bytes.ok()) return undo(bytes.status());
  // The fence (write/commit_decision.h): decide "commit" with everything needed to complete, so
  // a rollback that comes now completes this instant instead of deleting it.
  state.commit_attempted = true;
  // A failed decision may still have been stored (a lost response): the write is then left as
  // it is, for a roll forward or a rollback (which removes the metadata deltacommit too).
  ARROW_ASSIGN_OR_RAISE(auto decision, Decide(*ctx.storage, state.instant.time,
                                              CommitDecision{CommitDecision::Kind::kCommit, *completion, *bytes}));
  if (decision.kind == CommitDecision::Kind::kRollback) {
    return CommitConflict("write " + state.instant.time +
                          " was rolled back by another writer (its heartbeat had expired); nothing of it is visible");
  }
  Instant inflight = state.instant;
  inflight.state = InstantState::kInflight;
  ARROW_ASSIGN_OR_RAISE(bool pending, ctx.storage->Exists(ctx.timeline_location.PathOf(inflight)));
  Instant done = state.instant;
  done.state = InstantState::kCompleted;
  done.completion_time = decision.completion_time;
  ARROW_ASSIGN_OR_RAISE(bool completed, ctx.storage->Exists(ctx.timeline_location.PathOf(done)));
  if (!pending && !completed) {
    (void)ForgetDecision(*ctx.storage, state.instant.time);
    return CommitConflict("write " + state.instant.time + " was rolled back by another writer before it could commit");
  }
  if (!completed) {
    // The complete step, at the decided time (a roll forward would use the same).
    auto st = state.lifecycle->CompleteAt(decision.completion_time, decision.completed_bytes);
    // Completed meanwhile by a rollback that found this decision (a roll forward): committed.
    if (!st.ok() && !IsError(st, ErrorKind::kCommitConflict)) return st;
  }
  // Committed. A failed release only delays the next writer until the lease runs out; the
  // markers are only needed while the instant is pending (Hudi deletes them the same way).
  (void)ForgetDecision(*ctx.storage, state.instant.time);
  (void)guard->Release();
  (void)DeleteMarkers(*ctx.storage, state.instant.time);
  return Status::OK();
}

/// Hudi's `.hoodie_partition_metadata` in every partition folder the write touches: the
/// instant that made the partition and its depth. Written once (put-if-absent), in parallel.
Status WritePartitionMetadata(TableContext& ctx, const std::vector<FileGroupWrite>& plan, const std::string& instant) {
  std::set<std::string> partitions;
  for (const auto& w : plan) partitions.insert(w.partition);
  std::vector<std::string> list(partitions.begin(), partitions.end());
  return ctx.engine
      ->Map<bool>(static_cast<int64_t>(list.size()),
                  [&](int64_t i) -> Result<bool> {
                    const std::string& partition = list[static_cast<size_t>(i)];
                    int64_t depth = partition.empty() ? 0 : 1;
                    for (char c : partition) depth += c == '/';
                    format::JavaProperties p;
                    p.Set("commitTime", instant);
                    p.Set("partitionDepth", std::to_string(depth));
                    return ctx.storage->PutIfAbsentString(JoinPath(partition, HoodiePaths::kPartitionMetadataFile),
                                                          p.Render("partition metadata"));
                  })
      .status();
}

/// The metadata table's bloom_filters partition as a bloom index's filter source: one batched
/// read of the filters of the files asked for.
std::shared_ptr<BloomFilterSource> MetadataBloomFilterSource(TableContext& ctx,
                                                             std::function<bool(const std::string&)> valid) {
  auto source = std::make_shared<BloomFilterSource>();
  source->lookup = [&ctx, valid = std::move(valid)](const std::vector<std::pair<std::string, std::string>>& files)
      -> Result<std::map<std::pair<std::string, std::string>, std::pair<std::string, std::string>>> {
    std::vector<std::string> keys;
    std::map<std::string, std::pair<std::string, std::string>> file_of;
    for (const auto& f : files) {
      keys.push_back(format::BloomFilterIndexKey(f.first, f.second));
      file_of[keys.back()] = f;
    }
    ARROW_ASSIGN_OR_RAISE(auto filters, ReadMetadataBloomFilters(ctx.storage, *ctx.engine, valid, &keys));
    std::map<std::pair<std::string, std::string>, std::pair<std::string, std::string>> out;
    for (auto& [key, f] : filters) out[file_of[key]] = {std::move(f.serialized), std::move(f.type_code)};
    return out;
  };
  return source;
}

/// The index a write tags with: the one `hoodie.index.type` names, the record index once it is
/// built. Where KeysKeptOnce, SIMPLE and BLOOM tag in their global form, and the global simple
/// index tags until a wanted record index is built (at the first commit that wants it). The
/// metadata state is read from hoodie.properties now, not as the table was opened.
Result<std::unique_ptr<Index>> ChooseIndex(TableContext& ctx, const HoodieTableConfig& config,
                                           const Timeline& timeline) {
  if (ctx.index_type == "RECORD_INDEX" && config.HasMetadataPartition(kMetadataRecordIndex)) {
    return std::unique_ptr<Index>(std::make_unique<RecordIndex>(ctx.storage));
  }
  bool global = ctx.index_type.rfind("GLOBAL_", 0) == 0;
  if (!global) {
    ARROW_ASSIGN_OR_RAISE(global, KeysKeptOnce(ctx, config));
  }
  if (ctx.index_type == "BLOOM" || ctx.index_type == "GLOBAL_BLOOM") {
    BloomIndexSettings settings;
    settings.filter_memory_bytes = ctx.bloom_filter_memory_bytes;
    if (ctx.bloom_use_metadata && config.HasMetadataPartition(kMetadataBloomFilters)) {
      settings.metadata = MetadataBloomFilterSource(ctx, ValidDataInstants(timeline));
    }
    return std::unique_ptr<Index>(std::make_unique<BloomIndex>(std::move(settings), global));
  }
  return MakeIndex(global ? "GLOBAL_SIMPLE" : "SIMPLE");
}

/// An insert's refusal of the keys its tagging found stored (an insert does not update), on a
/// table that keeps one copy of each key.
Status RefuseStoredKeys(const WriteInput& input, const std::vector<std::optional<std::string>>& tags,
                        const TableContext& ctx) {
  for (int64_t r : input.rows) {
    const auto row = static_cast<size_t>(r);
    if (row >= tags.size() || !tags[row]) continue;
    return Status::Invalid("record key '", input.record_keys[row], "' is stored already (file group ", *tags[row],
                           " of partition '", input.partitions.PathOf(r), "') in ", ctx.uri,
                           ", which keeps one copy of each key (it has a record index or a secondary index): an "
                           "insert does not update a record; write it with upsert");
  }
  return Status::OK();
}

/// What the write changes in the record index: the keys it put in a group they were not in
/// (every insert), the keys it deleted; replace operations end groups whose keys it does not
/// list. The keys are listed only if the record index is updated (MetadataChanges::list_keys):
/// `input`, `tags`, `plan` and `stats` must outlive the commit.
MetadataChanges RecordIndexChanges(WriteOperation op, const WriteInput& input,
                                   const std::vector<std::optional<std::string>>& tags,
                                   const std::vector<FileGroupWrite>& plan,
                                   const std::vector<std::optional<WriteStat>>& stats) {
  MetadataChanges changes;
  if (IsReplaceOperation(op)) {
    changes.keys_unknown = true;
    return changes;
  }
  changes.list_keys = [op, &input, &tags, &plan, &stats](MetadataChanges* out) {
    const bool tagged = op == WriteOperation::kUpsert || op == WriteOperation::kDelete;
    size_t upserts = 0;
    for (const FileGroupWrite& w : plan) upserts += w.upserts.size();
    out->keys_located.reserve(out->keys_located.size() + upserts);
    for (size_t i = 0; i < plan.size(); ++i) {
      const FileGroupWrite& w = plan[i];
      if (i < stats.size() && !stats[i]) continue;  // nothing changed in this group
      for (int64_t r : w.upserts) {
        const auto row = static_cast<size_t>(r);
        if (tagged && row < tags.size() && tags[row]) continue;  // an update stays where it is
        out->keys_located.push_back({std::string(input.record_keys[row]), w.partition, w.file_id});
      }
      for (int64_t r : w.deletes) out->keys_removed.emplace_back(input.record_keys[static_cast<size_t>(r)]);
    }
    return Status::OK();
  };
  return changes;
}

Result<WriteResult> Run(TableContext& ctx, WriteOperation op, const WriteInput& input, WriteState& state,
                        ProgressReporter& progress, const arrow::StopToken& stop) {
  FileSystemView view = FileSystemView::Build(state.commits);
  std::vector<std::optional<std::string>> tags;
  std::vector<std::pair<int64_t, std::string>> more_copies;
  TaggingMetrics tagging;
  const bool insert = op == WriteOperation::kInsert || op == WriteOperation::kBulkInsert;
  const bool overwrite = op == WriteOperation::kInsertOverwrite;  // replaces only its partitions
  bool tag = op == WriteOperation::kUpsert || op == WriteOperation::kDelete;
  state.may_add_keys = op == WriteOperation::kUpsert || insert || overwrite;
  // Where the table keeps one copy of each key, an insert is tagged to refuse repeating one, an
  // insert_overwrite to refuse one stored in a partition it does not replace (the global
  // index refuses a key found in another partition).
  if (insert || overwrite) {
    ARROW_ASSIGN_OR_RAISE(auto config, HoodieTableConfig::Load(*ctx.storage));
    ARROW_ASSIGN_OR_RAISE(tag, KeysKeptOnce(ctx, config));
  }
  if (tag) {
    progress.Report("tagging", 0, 1, "batches");
    // The metadata table's state as it is now, after the report (a concurrent build or drop).
    ARROW_ASSIGN_OR_RAISE(auto config, HoodieTableConfig::Load(*ctx.storage));
    ARROW_ASSIGN_OR_RAISE(auto index, ChooseIndex(ctx, config, state.timeline));
    KeysToTag keys{&input.partitions, &input.record_keys, input.rows, ValidDataInstants(state.timeline),
                   MergedKeysOf(ctx, state.timeline, state.commits), op == WriteOperation::kDelete};
    auto tagged = index->TagLocations(keys, view, *ctx.storage, *ctx.engine);
    if (!tagged.ok() && dynamic_cast<RecordIndex*>(index.get()) != nullptr) {
      // A replace operation (or drop_index) that dropped the record index while it was read is
      // a concurrent change, not damage.
      ARROW_ASSIGN_OR_RAISE(bool still_built, MetadataPartitionBuilt(ctx, kMetadataRecordIndex));
      if (!still_built) {
        return CommitConflict("write " + state.instant.time + " tagged its records with the record index of " +
                              ctx.uri + ", which another writer dropped meanwhile; retry the write");
      }
    }
    ARROW_ASSIGN_OR_RAISE(auto found, std::move(tagged));
    tags = std::move(found.file_ids);
    more_copies = std::move(found.more_copies);
    if (insert) ARROW_RETURN_NOT_OK(RefuseStoredKeys(input, tags, ctx));
    state.check_new_keys = op != WriteOperation::kDelete && !overwrite;
    state.tagged_by_record_index = dynamic_cast<RecordIndex*>(index.get()) != nullptr;
    state.global_index = index->global();
    tagging = index->metrics();
    progress.Report("tagging", 1, 1, "batches");
  }
  ARROW_RETURN_NOT_OK(stop.Poll());
  // File groups a pending clustering will replace take no inserts, and no updates or deletes.
  ARROW_ASSIGN_OR_RAISE(auto clustering, FileGroupsUnderClustering(ctx, state.timeline));
  std::set<FileGroupKey> frozen;
  for (const auto& [key, time] : clustering) frozen.insert(key);
  // A replace operation ends file groups: every live one of the partitions its records fall in
  // (insert_overwrite, delete_partition) or of the table (insert_overwrite_table); its records
  // go to new file groups, as a bulk insert writes them.
  std::set<FileGroupKey> replaced;
  if (op == WriteOperation::kDeletePartition) {
    ARROW_RETURN_NOT_OK(view.CheckKnownPartitions(input.partitions.paths, "cannot drop partitions of " + ctx.uri));
  }
  if (IsReplaceOperation(op)) {
    const std::set<std::string> partitions(input.partitions.paths.begin(), input.partitions.paths.end());
    for (const FileGroup* g : view.LiveFileGroups()) {
      if (op == WriteOperation::kInsertOverwriteTable || partitions.count(g->partition)) {
        replaced.insert({g->partition, g->file_id});
      }
    }
  }
  std::vector<FileGroupWrite> plan;
  if (op != WriteOperation::kDeletePartition) {
    plan = PlanFileGroupWrites(IsReplaceOperation(op) ? WriteOperation::kBulkInsert : op, input, tags, view, ctx.plan,
                               state.instant.time, frozen, more_copies);
  }
  std::set<FileGroupKey> changed = replaced;
  for (const auto& w : plan) {
    if (ChangesExistingGroup(w)) changed.insert({w.partition, w.file_id});
  }
  ARROW_RETURN_NOT_OK(CheckNotUnderClustering(clustering, state.instant.time, changed));
  for (size_t i = 0; i < plan.size(); ++i) plan[i].task = static_cast<int64_t>(i);

  CommitMetadata metadata;
  metadata.operation = WriteOperationName(op);
  if (!ctx.avro_schema.empty()) metadata.extra["schema"] = ctx.avro_schema;
  std::set<FileGroupKey> touched = replaced;  // a concurrent change to a replaced group conflicts
  for (const auto& [partition, file_id] : replaced) metadata.replaced_file_ids[partition].push_back(file_id);
  for (const auto& w : plan) {
    metadata.planned_files.push_back(w.new_path);
    if (ChangesExistingGroup(w)) touched.insert({w.partition, w.file_id});
  }
  state.planned_files = metadata.planned_files;
  // Markers first (Hudi's rollback reads them), then the partition metadata files, then the
  // inflight instant: a crash at any point leaves a pending instant whose files are named.
  std::vector<Marker> markers;
  for (const auto& w : plan) {
    markers.push_back({w.new_path, w.append_log ? MarkerType::kAppend
                                                : (w.old_base ? MarkerType::kMerge : MarkerType::kCreate)});
  }
  ARROW_RETURN_NOT_OK(WriteMarkers(*ctx.storage, state.instant.time, markers));
  ARROW_RETURN_NOT_OK(WritePartitionMetadata(ctx, plan, state.instant.time));
  ARROW_ASSIGN_OR_RAISE(auto inflight_bytes, ctx.EncodeInstant(state.instant, InstantState::kInflight, metadata));
  ARROW_RETURN_NOT_OK(state.lifecycle->StartInflight(inflight_bytes));

  // Each file group write is a self-contained task; an engine whose workers do not share this
  // process's memory gets it as bytes and answers in bytes.
  const FileGroupTaskSource source{&input, state.instant.time, ctx.config.ordering_field, ctx.full_schema,
                                   ForFilesAtOnce(ctx.parquet, static_cast<int64_t>(plan.size()),
                                                  ctx.engine->parallelism())};
  const bool serialize = ctx.engine->SerializesTasks();
  std::atomic<int64_t> done{0};
  int64_t total = static_cast<int64_t>(plan.size());
  progress.Report("writing", 0, total, "files");
  ARROW_ASSIGN_OR_RAISE(
      auto stats, ctx.engine->Map<std::optional<WriteStat>>(total, [&](int64_t i) -> Result<std::optional<WriteStat>> {
        ARROW_RETURN_NOT_OK(stop.Poll());
        ARROW_ASSIGN_OR_RAISE(auto task, MakeFileGroupTask(source, plan[static_cast<size_t>(i)]));
        Result<std::optional<WriteStat>> stat;
        if (serialize) {
          ARROW_ASSIGN_OR_RAISE(auto bytes, SerializeFileGroupTask(task));
          task = FileGroupTask{};  // nothing of the driver's goes along
          ARROW_ASSIGN_OR_RAISE(auto answer, ExecuteSerializedFileGroupWrite(*ctx.storage, bytes));
          stat = ParseTaskResult(answer);
        } else {
          stat = ExecuteFileGroupWrite(*ctx.storage, task);
        }
        progress.Report("writing", ++done, total, "files");
        return stat;
      }));

  WriteResult result;
  result.tagging = std::move(tagging);
  result.file_groups_replaced = static_cast<int64_t>(replaced.size());
  result.instant_time = state.instant.time;
  result.operation = op;
  result.records_in = input.records_in;
  for (auto& stat : stats) {
    if (!stat) continue;
    result.records_inserted += stat->num_inserts;
    result.records_updated += stat->num_updates;
    result.records_deleted += stat->num_deletes;
    result.files_written += stat->path.empty() ? 0 : 1;
    result.bytes_written += stat->file_size;
    ++result.file_groups_touched;
    metadata.write_stats.push_back(std::move(*stat));
  }
  progress.Report("committing", 0, 1, "instants");
  // The last moment a stop takes effect: from the commit on, the write completes.
  ARROW_RETURN_NOT_OK(stop.Poll());
  ARROW_RETURN_NOT_OK(Commit(ctx, state, metadata, touched, RecordIndexChanges(op, input, tags, plan, stats)));
  result.active_write_instants = state.active_write_instants;
  progress.Report("committing", 1, 1, "instants");
  return result;
}
}  // namespace

Result<std::map<FileGroupKey, std::string>> FileGroupsUnderClustering(TableContext& ctx, const Timeline& timeline) {
  std::map<FileGroupKey, std::string> out;
  for (const Instant& pending : timeline.Pending()) {
    if (pending.action != actions::kReplaceCommit && pending.action != actions::kClustering) continue;
    ARROW_ASSIGN_OR_RAISE(auto plan, ctx.LoadRequestedPlan(pending));
    if (!plan) continue;
    for (const auto& [partition, ids] : plan->clustering_file_ids) {
      for (const auto& id : ids) out.emplace(FileGroupKey{partition, id}, pending.time);
    }
  }
  return out;
}

/// Deletes name keys; on a partitioned table a key lives in a partition. When `keys` lacks the
/// partition fields, the stored records of those keys give them (one delete per partition the
/// key is stored in; a key stored nowhere is dropped): the key, partition and
/// `_hoodie_record_key` columns of the latest snapshot are read, nothing else, from the file
/// groups whose record key range may hold a wanted key. `keys_given` is
/// then set to the number of keys the caller gave (the located rows count only stored keys, once
/// per partition holding one).
Result<std::shared_ptr<arrow::RecordBatchReader>> LocateKeysToDelete(TableContext& ctx,
                                                                     const std::shared_ptr<arrow::RecordBatchReader>& keys,
                                                                     std::optional<int64_t>* keys_given) {
  const auto& config = ctx.config;
  for (const auto& f : keys->schema()->fields()) {
    if (config.schema->GetFieldIndex(f->name()) < 0) {  // as PrepareWriteInput refuses it
      return SchemaMismatch("the keys to delete have column '" + f->name() + "', which the table does not have");
    }
  }
  bool has_partitions = true;
  for (const auto& p : config.partition_fields) has_partitions = has_partitions && keys->schema()->GetFieldIndex(p) >= 0;
  if (config.partition_fields.empty() || has_partitions) return keys;
  for (const auto& k : config.record_key_fields) {
    if (keys->schema()->GetFieldIndex(k) < 0) return keys;  // PrepareWriteInput names what is missing
  }
  ARROW_ASSIGN_OR_RAISE(auto wanted, ReadValidated(keys, "the keys to delete"));
  *keys_given = wanted->num_rows();
  std::vector<std::string> columns = config.record_key_fields;
  for (const auto& p : config.partition_fields) {
    if (std::find(columns.begin(), columns.end(), p) == columns.end()) columns.push_back(p);
  }
  // The stored records' own keys (_hoodie_record_key) are matched, as Hudi matches them: a
  // record stored before a keying rule changed is still found by the key it was written with.
  ARROW_ASSIGN_OR_RAISE(const bool complex, config.ComplexRecordKeys());
  std::vector<std::shared_ptr<arrow::Field>> key_fields;
  for (const auto& k : config.record_key_fields) key_fields.push_back(config.schema->GetFieldByName(k));
  ARROW_ASSIGN_OR_RAISE(auto wanted_keys_table, ConformToSchema(wanted, arrow::schema(key_fields), "the keys to delete"));
  ARROW_ASSIGN_OR_RAISE(auto wanted_keys, ComputeRecordKeys(*wanted_keys_table, config.record_key_fields, complex));
  ARROW_ASSIGN_OR_RAISE(auto value_set, CombineChunks(*wanted_keys));
  ReadOptions read;
  read.columns = columns;
  read.columns.push_back(meta_columns::kRecordKey);
  // Filtered by key: only the file groups whose key range may hold one are opened.
  read.filter.push_back({meta_columns::kRecordKey, "in", value_set});
  ARROW_ASSIGN_OR_RAISE(auto stored, ReadSnapshot(ctx, read));
  ARROW_ASSIGN_OR_RAISE(auto mask, arrow::compute::IsIn(stored->GetColumnByName(meta_columns::kRecordKey),
                                                        arrow::compute::SetLookupOptions(value_set)));
  ARROW_ASSIGN_OR_RAISE(auto located, arrow::compute::Filter(stored, mask));
  ARROW_ASSIGN_OR_RAISE(auto table, located.table()->RemoveColumn(static_cast<int>(columns.size())));
  return std::make_shared<arrow::TableBatchReader>(table);
}

Result<std::string> CommitSchemaChange(TableContext& ctx, const std::string& avro_schema) {
  ARROW_ASSIGN_OR_RAISE(auto serial, ctx.SerializeWrites("change the schema of"));
  WriteState state;
  Status st = Begin(ctx, WriteOperation::kUpsert, state, "alter_schema");
  if (st.ok()) {
    CommitMetadata metadata;
    metadata.operation = "alter_schema";
    metadata.extra["schema"] = avro_schema;
    auto inflight = ctx.EncodeInstant(state.instant, InstantState::kInflight, metadata);
    st = inflight.ok() ? state.lifecycle->StartInflight(*inflight) : inflight.status();
    if (st.ok()) st = Commit(ctx, state, metadata, {});
  }
  if (!st.ok() && state.lifecycle && !state.commit_attempted) (void)AbortWrite(ctx, *state.lifecycle, {});
  if (state.heartbeat) (void)state.heartbeat->Stop();
  ARROW_RETURN_NOT_OK(st);
  return state.instant.time;
}

Result<WriteResult> ExecuteWrite(TableContext& ctx, WriteOperation op,
                                 const std::shared_ptr<arrow::RecordBatchReader>& data,
                                 const WriteOptions& options) {
  ARROW_ASSIGN_OR_RAISE(auto serial, ctx.SerializeWrites("write to"));
  ARROW_RETURN_NOT_OK(CheckStoredKeysMatchOurs(ctx));
  auto start = std::chrono::steady_clock::now();
  ProgressReporter progress(options.progress, ctx);
  std::shared_ptr<arrow::RecordBatchReader> rows = data;
  std::optional<int64_t> keys_given;
  if (op == WriteOperation::kDelete) {
    ARROW_ASSIGN_OR_RAISE(rows, LocateKeysToDelete(ctx, data, &keys_given));
  }
  ARROW_ASSIGN_OR_RAISE(WriteInput input, PrepareWriteInput(ctx.config, op, rows, ctx.uri));
  if (keys_given) input.records_in = *keys_given;  // what the caller gave, not what was found
  WriteState state;
  Status st = Begin(ctx, op, state);
  Result<WriteResult> result = st.ok() ? Run(ctx, op, input, state, progress, options.stop) : Result<WriteResult>(st);
  if (!result.ok()) result = ExplainStorageFailure(ctx, state, result.status());
  if (!result.ok() && state.lifecycle && !state.commit_attempted) {
    // Nothing of this write is visible; remove its files now rather than waiting for a rollback.
    (void)AbortWrite(ctx, *state.lifecycle, state.planned_files);
  }
  // A heartbeat file left behind by a failed Stop is harmless: the instant is completed, or
  // pending and then judged by its (aging) heartbeat.
  if (state.heartbeat) (void)state.heartbeat->Stop();
  if (!result.ok()) return result.status();
  result->rolled_back_instants = state.rolled_back;
  result->duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace lakeshore
