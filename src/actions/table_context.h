// The shared state of an open table: storage, clock, engine, config and typed settings.
#pragma once

#include <map>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "io/archived_timeline.h"
#include "io/base_file.h"
#include "lakeshore/clock.h"
#include "lakeshore/engine/engine.h"
#include "lakeshore/storage/storage.h"
#include "lakeshore/table/table_config.h"
#include "table/hoodie_table_config.h"
#include "table/layout.h"
#include "timeline/commit_metadata_cache.h"
#include "timeline/instant_codec.h"
#include "timeline/timeline.h"
#include "services/metadata/metadata_writer.h"
#include "write/heartbeat.h"
#include "write/table_lock.h"
#include "write/write_planner.h"

namespace lakeshore {

struct Progress;  // lakeshore/table/table.h

/// What every layer above the timeline needs to act on one table. Built once per open.
struct TableContext {
  std::string uri;
  std::shared_ptr<Storage> storage;
  std::shared_ptr<Clock> clock;
  std::shared_ptr<Engine> engine;
  TableConfig config;
  std::shared_ptr<arrow::Schema> full_schema;  ///< meta columns + user columns
  /// The table's Avro schema without meta fields (commits carry it as extraMetadata.schema).
  std::string avro_schema;
  /// hoodie.properties, parsed.
  std::optional<HoodieTableConfig> hoodie;
  /// The timeline has archived instants this build does not read (layout 1's `archived/` log
  /// files): views then come from a listing (read/table_view.h), and time travel stops at the
  /// active timeline.
  bool has_unread_archive = false;
  /// Layout 2's archived timeline (`timeline/history/`, the LSM timeline), read with the active
  /// one by LoadCommits; "" when the table has none (layout 1).
  std::string archive_folder;
  /// Why this build does not write the table (unset when it does).
  std::optional<std::string> read_only_reason;
  /// Set when read_only_reason may pass (a metadata partition in flight that no pending
  /// Lakeshore build owns: another writer's build, or a crashed build whose recovery was under
  /// way while the table opened): asks again what read_only_reason is, from storage.
  std::function<Result<std::optional<std::string>>(TableContext&)> recheck_read_only;
  /// Where the active timeline is and how its instants are encoded.
  TimelineLocation timeline_location{layout::kTimelineDir, TimelineLayout::kV2};

  LockSettings lock;
  HeartbeatSettings heartbeat;
  WritePlanSettings plan;
  ParquetWriteSettings parquet;
  std::string index_type;  ///< hoodie.index.type, upper case
  MetadataTableSettings metadata;
  /// The writer schema of metadata-table base files (path → schema text), read from each file's
  /// tail once per open table (metadata_writer.cc).
  std::map<std::string, std::string> metadata_base_schemas;
  bool bloom_use_metadata = false;              ///< hoodie.bloom.index.use.metadata
  int64_t bloom_filter_memory_bytes = 256LL << 20;
  /// Merge-on-read inline compaction: compact after a write once this many deltacommits
  /// completed since the last compaction; 0: off (table_options kCompactInline*).
  int64_t inline_compaction_delta_commits = 0;
  /// hoodie.archive.automatic: Table::Write archives when more than hoodie.keep.max.commits
  /// completed writes are active after it (layout-2 timelines only).
  bool automatic_archival = true;

  CommitMetadataCache commits;
  ArchivedCommits archived_commits;
  std::mutex write_mu;  ///< serializes writes through one Table object
  /// Whether stored records are keyed as this build keys them (read/stored_key_check), once
  /// known; guarded by stored_keys_mu.
  std::optional<Status> stored_keys_check;
  std::mutex stored_keys_mu;
  /// write_mu, locked, for an operation that changes the table (`what`: "compact", "write
  /// to", ...). Invalid, at once, when called from inside a progress callback of this table's
  /// own running operation, on any thread that runs inside it (an engine task of another
  /// table's operation started there included): that operation holds write_mu until the
  /// callback returns, so waiting for it would deadlock (it did for compact, cluster,
  /// savepoint, archive and index builds started there).
  Result<std::unique_lock<std::mutex>> SerializeWrites(const char* what);

  /// Calls `callback` (if any) with `progress`, this thread marked as inside a progress
  /// callback of this table while it runs (engine/callback_scope: engine tasks started from
  /// there are too; see SerializeWrites).
  void ReportProgress(const std::function<void(const Progress&)>& callback, const Progress& progress);

  /// Reads the typed settings out of config.properties.
  Status LoadSettings();
  /// The active timeline (one listing). An empty one is checked to still be a table's
  /// (CheckTableExists): a deleted table's folder lists nothing, and must not read as empty.
  Result<Timeline> LoadTimeline();
  /// kIOError "no table at …" when the table's properties (and their backup) are gone: its
  /// folder was deleted since it was opened. One existence check.
  Status CheckTableExists() const;
  /// CheckTableExists, then kCommitConflict when the table's identity in hoodie.properties
  /// (name, type, key, partition and ordering fields, create schema) is not the one opened:
  /// the table was deleted and another created at its path. One read of the properties.
  Status CheckSameTable() const;
  /// The encoding of this table's instant files.
  InstantCodec codec() const { return InstantCodec{timeline_location.layout, storage->ExternalPath("")}; }
  /// The bytes of `instant`'s file in `state`, carrying `metadata`.
  Result<std::string> EncodeInstant(Instant instant, InstantState state, const CommitMetadata& metadata) const {
    instant.state = state;
    return codec().Encode(instant, metadata);
  }
  /// UnsupportedFeature for a change (`what`) to a table this build only reads, saying why. A
  /// reason that may pass (recheck_read_only) is asked again first, so a table opened in a
  /// passing state does not stay read-only. First CheckSameTable, before anything is written.
  Status CheckWritable(const char* what);
  /// Completed commits of `timeline` with their metadata, in completion order, and before
  /// them the archived ones (layout 2). List the active timeline first, then call this: an
  /// instant archived in between is then found in the archive.
  Result<std::vector<CompletedCommit>> LoadCommits(const Timeline& timeline);
  /// The table's Avro schema as `commits` leave it: the newest commit's schema, else
  /// hoodie.table.create.schema; "" when neither exists. `source`, when given, says which.
  /// What `avro_schema` was set from at open; a write finding another one now knows the schema
  /// changed (or a change was undone) since.
  std::string LatestAvroSchema(const std::vector<CompletedCommit>& commits, std::string* source = nullptr) const;
  /// kSchemaMismatch when the columns `commits` leave differ from those this object was opened
  /// with (another writer changed the schema, or undid a change, since): a read under the old
  /// columns would narrow widened values or miss added ones. Schemas of other text with the
  /// same columns (another engine's record names) pass.
  Status CheckSchemaAsOpened(const std::vector<CompletedCommit>& commits) const;
  /// The plan in the requested file of the pending instant `pending`, decoded (a rollback's,
  /// a restore's, a clustering's request); nullopt when the file vanished since the listing (the
  /// instant completed or was removed meanwhile: normal, re-listed next time).
  Result<std::optional<CommitMetadata>> LoadRequestedPlan(const Instant& pending);
  /// A lock on this table.
  TableLock Lock() { return TableLock(storage, clock, lock); }
};

}  // namespace lakeshore
