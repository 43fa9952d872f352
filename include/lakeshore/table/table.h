// The Table: the public entry point for creating, writing and reading an Apache Hudi table.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <arrow/array.h>
#include <arrow/record_batch.h>
#include <arrow/table.h>
#include <arrow/util/cancel.h>

#include "lakeshore/clock.h"
#include "lakeshore/engine/engine.h"
#include "lakeshore/status.h"
#include "lakeshore/storage/storage.h"
#include "lakeshore/table/table_config.h"
#include "lakeshore/table/tagging_metrics.h"

namespace lakeshore {

/// How a Table reaches its storage, its clock and its engine.
struct TableOpenOptions {
  StorageOptions storage;
  /// The clock of heartbeats, lock leases and instant times. Default: the system clock.
  std::shared_ptr<Clock> clock;
  /// The engine for fan-out work. Default: Engine::Default().
  std::shared_ptr<Engine> engine;
  /// If set, used instead of opening the URI (tests wrap storage in fault injection).
  std::shared_ptr<Storage> storage_override;
  /// Writer options for this open (table_options.h keys, such as hoodie.index.type), over the
  /// ones stored in hoodie.properties; an unknown key or bad value → kInvalid naming it.
  std::map<std::string, std::string> properties;
};

/// The kinds of write.
enum class WriteOperation {
  kInsert,      ///< new records, packed into small file groups; no index lookup (keys that
                ///< already exist are stored again, as in Hudi's insert)
  kUpsert,      ///< tag each record's location; update where it lives, insert elsewhere
  kDelete,      ///< delete records by key (the batch needs only the key fields)
  kBulkInsert,  ///< new records, sorted by partition and key into new file groups
  /// A replacecommit: the records replace every file group of the partitions they fall in
  /// (Hudi's insert_overwrite); other partitions are untouched.
  kInsertOverwrite,
  /// A replacecommit: the records replace every file group of the table (insert_overwrite_table).
  kInsertOverwriteTable,
  /// A replacecommit: the partitions named by the batch (its partition fields) lose every file
  /// group; nothing is written (Hudi's delete_partition).
  kDeletePartition,
};

/// True for the operations that complete as a replacecommit.
bool IsReplaceOperation(WriteOperation op);

/// "insert", "upsert", "delete", "bulk_insert", "insert_overwrite", "insert_overwrite_table",
/// "delete_partition".
const char* WriteOperationName(WriteOperation op);
Result<WriteOperation> ParseWriteOperation(const std::string& name);

/// Progress of a long operation: `done` of `total` units (`unit` says which: "files", "rows").
struct Progress {
  std::string phase;
  int64_t done = 0;
  int64_t total = 0;
  std::string unit;
};
using ProgressCallback = std::function<void(const Progress&)>;

struct WriteOptions {
  /// Called as the write advances, possibly from engine threads but never concurrently;
  /// may be empty.
  ProgressCallback progress;
  /// Polled before each step up to the commit point (tagging done, each file group write, the
  /// commit): a stop requested before the commit point fails the write with the stop's status
  /// (kCancelled) and nothing of it is visible, as for any failed write; one requested after
  /// it changes nothing. Default: never stops. The Python front stops a write whose progress
  /// callback raised (Ctrl-C included).
  arrow::StopToken stop;
};

/// What a committed write did.
struct WriteResult {
  std::string instant_time;
  WriteOperation operation = WriteOperation::kUpsert;
  int64_t records_in = 0;         ///< records in the input, before de-duplication
  int64_t records_inserted = 0;
  int64_t records_updated = 0;
  int64_t records_deleted = 0;
  int64_t files_written = 0;
  int64_t bytes_written = 0;
  int64_t file_groups_touched = 0;
  int64_t file_groups_replaced = 0;  ///< replace operations: the file groups that ended
  std::vector<std::string> rolled_back_instants;  ///< failed writes this write rolled back first
  /// The inline compaction this write ran after it committed (hoodie.compact.inline), or "".
  std::string compaction_instant;
  /// Completed write instants (commits, deltacommits, replacecommits) on the active timeline
  /// once this write completed: what hoodie.keep.max.commits is compared with.
  int64_t active_write_instants = 0;
  /// The instants the automatic archival after this write moved to the archived timeline
  /// (hoodie.archive.automatic), oldest first; empty when none was due.
  std::vector<std::string> archived_instants;
  /// How the records were tagged (upserts and deletes).
  TaggingMetrics tagging;
  int64_t duration_ms = 0;
};

/// One predicate of a partition filter: `field op value(s)`, op in "=", "!=", "<", "<=", ">",
/// ">=", "in", "not in". A filter is the AND of its predicates (pyarrow's DNF convention,
/// one conjunction). The values are an Arrow array of any type castable to the field's type
/// (strings are parsed as that type); they are rendered exactly as partition values are
/// written, so they select the partitions they name. A null value means the null partition:
/// "= null" and "in [null, ...]" select it, "!= null" selects every other. Comparisons take
/// one value; "in" and "not in" any number.
struct PartitionPredicate {
  std::string field;
  std::string op;
  std::shared_ptr<arrow::Array> values;

  /// A predicate whose values are given as strings (parsed as the field's type).
  static PartitionPredicate FromStrings(std::string field, std::string op,
                                        const std::vector<std::string>& values);
};

struct ReadOptions {
  /// Columns to return, in this order; empty means all (meta columns first, then the schema).
  std::vector<std::string> columns;
  /// Predicates on partition fields only (a field that is not one is Invalid).
  std::vector<PartitionPredicate> partition_filter;
  /// Predicates on any column, ANDed with partition_filter: those on partition fields select
  /// partitions as partition_filter does; the others keep exactly the rows they hold for (with
  /// the same null rules), and let a snapshot read skip the file groups whose column statistics
  /// (the metadata table's column_stats partition) prove no row matches. A read with such
  /// predicates carries read.file_groups, read.file_groups_pruned and read.pruned_by in its
  /// schema metadata.
  std::vector<PartitionPredicate> filter;
  /// Time travel: the table as of this instant time (the state right after that instant
  /// completed), or as of a wall-clock time "yyyyMMddHHmmssSSS". Empty: the latest.
  std::optional<std::string> as_of;
  /// Read-optimized (merge-on-read tables): the base files of the slices only, without their
  /// log files: faster, but without the updates not yet compacted.
  bool read_optimized = false;
};

/// One instant of the timeline, as users see it.
struct InstantView {
  std::string time;
  std::string action;
  std::string state;            ///< "requested", "inflight", "completed"
  std::string completion_time;  ///< empty unless completed
};

/// One savepoint (Table::Savepoints).
struct SavepointView {
  std::string instant_time;     ///< the commit it savepoints
  std::string completion_time;  ///< when the savepoint completed
  std::string user;
  std::string comment;
  int64_t savepointed_at_s = 0;  ///< Hudi's savepointedAt (seconds since the epoch)
  int64_t files = 0;             ///< data files it names
};

/// What an archival may do (Table::Archive).
struct ArchiveOptions {
  /// Hudi's hoodie.keep.min.commits / hoodie.keep.max.commits; unset: the table's options
  /// (defaults 20 and 30).
  std::optional<int64_t> keep_min_commits;
  std::optional<int64_t> keep_max_commits;
  /// Called once the chosen instants are archived, with their times (oldest first), e.g. for a
  /// service that keeps per-instant state to drop it. Its error is returned from the archival
  /// (the archive itself stays as published).
  std::function<Status(const std::vector<std::string>&)> on_archived;
};

/// What an archival did.
struct ArchiveResult {
  std::vector<std::string> archived_instants;  ///< instant times, oldest first
  /// The metadata table's instants archived with them (Table::Archive), oldest first.
  std::vector<std::string> metadata_archived_instants;
  int64_t data_files_written = 0;              ///< level-0 files and compacted files
  int64_t manifest_version = 0;                ///< the archive's manifest after the run (0: none)
  int64_t duration_ms = 0;
};

/// When and how a compaction runs (Table::Compact). A plan is made when either trigger holds
/// (both zero: whenever a slice has log files).
struct CompactionOptions {
  /// Hudi's NUM_COMMITS trigger: deltacommits completed since the last compaction.
  int64_t min_delta_commits = 0;
  /// Hudi's log-file-size strategy: a file group is compacted when its latest slice's log
  /// files hold at least this many bytes (0: no size trigger).
  int64_t min_log_bytes = 0;
  /// Plan only (compaction.requested); a later Compact executes it.
  bool schedule_only = false;
  ProgressCallback progress;
  /// Polled before each file group and before the complete step (WriteOptions::stop): a stopped
  /// compaction stays planned, and the next Compact resumes it.
  arrow::StopToken stop;
};

/// What a compaction did.
struct CompactionResult {
  std::string instant_time;      ///< the compaction instant ("" when nothing was due)
  bool scheduled = false;        ///< this call planned it
  bool completed = false;        ///< this call executed and completed it
  std::string reason;            ///< why nothing was done, when nothing was
  int64_t file_groups = 0;       ///< slices merged
  int64_t log_files = 0;         ///< log files merged into base files
  int64_t records_written = 0;
  int64_t bytes_written = 0;
  std::vector<std::string> rolled_back_instants;  ///< failed writes rolled back first
  int64_t duration_ms = 0;
};

/// What a clustering rewrites and how (Table::Cluster). Per partition, the latest slices of the
/// file groups whose files (base and logs) hold less than `small_file_limit_bytes` are rewritten
/// together, sorted by `sort_columns`, into new file groups of about `target_file_bytes`.
struct ClusteringOptions {
  /// Columns the rewritten records are sorted by (Hudi's
  /// hoodie.clustering.plan.strategy.sort.columns); empty: records keep their order. Without
  /// sort columns a partition needs two small file groups to be clustered.
  std::vector<std::string> sort_columns;
  /// Slices holding fewer bytes are clustered (Hudi's plan.strategy.small.file.limit: 300 MiB).
  int64_t small_file_limit_bytes = 300LL << 20;
  /// Size of the new files (0: the table's write.max_file_size_bytes).
  int64_t target_file_bytes = 0;
  /// Partitions to cluster (empty: all).
  std::vector<std::string> partitions;
  /// Plan only (clustering.requested); a later Cluster executes it.
  bool schedule_only = false;
  ProgressCallback progress;
  /// Polled before each input group and before the complete step (WriteOptions::stop): a
  /// stopped clustering stays planned, and the next Cluster resumes it.
  arrow::StopToken stop;
};

/// What a clustering did.
struct ClusteringResult {
  std::string instant_time;      ///< the clustering instant ("" when nothing was due)
  bool scheduled = false;
  bool completed = false;
  std::string reason;            ///< why nothing was done, when nothing was
  int64_t file_groups_replaced = 0;
  int64_t file_groups_written = 0;
  int64_t records_written = 0;
  int64_t bytes_written = 0;
  std::vector<std::string> rolled_back_instants;
  int64_t duration_ms = 0;
};

/// An Apache Hudi table. Thread-safe for concurrent reads; writes from one Table object are
/// serialized; writes from different processes coordinate through the table lock.
class Table {
 public:
  ~Table();

  /// Creates a new Hudi table (version 9, copy-on-write) at `uri`: `.hoodie/hoodie.properties`
  /// from `config`, whose schema is stored as Hudi's Avro create schema (types normalized as
  /// format::NormalizeForHudi says). Refused if anything is already there.
  static Result<std::shared_ptr<Table>> Create(const std::string& uri, TableConfig config,
                                               TableOpenOptions options = {});
  /// Opens an existing Apache Hudi table (`.hoodie/hoodie.properties`): versions 6, 8 and 9 are
  /// read; copy-on-write tables of versions 8 and 9 are written (Table::Write says why when a
  /// table cannot be). kCorruptMetadata naming the file if the table's metadata is bad.
  static Result<std::shared_ptr<Table>> Open(const std::string& uri, TableOpenOptions options = {});

  const TableConfig& config() const;
  /// The table schema with the meta columns first.
  std::shared_ptr<arrow::Schema> full_schema() const;
  const std::shared_ptr<Storage>& storage() const;
  std::string uri() const;

  /// Writes `data` with `op` as one instant. The data's schema must match the table schema
  /// (meta columns absent; for kDelete only the key fields are needed). Fails with
  /// kCommitConflict if a concurrent writer committed to the same file groups first (nothing
  /// of this write stays visible), kSchemaMismatch on a bad batch. Cost: reads the key column
  /// of the files in the partitions the batch touches, rewrites the file groups it updates.
  Result<WriteResult> Write(WriteOperation op, std::shared_ptr<arrow::RecordBatchReader> data,
                            const WriteOptions& options = {});

  /// Snapshot read. Cost: reads the latest slice of every file group that passes the filter.
  Result<std::shared_ptr<arrow::Table>> Read(const ReadOptions& options = {});

  /// Where the records with `keys` (the record key field(s); partition fields are not needed)
  /// live now: one row per key, in input order, with columns record_key, partition and
  /// file_id (both null for a key the table does not hold) and, in the schema metadata,
  /// "lookup.method": "record_index" when the metadata table's record index answered (read
  /// from the metadata table, entries of completed instants only), "scan" otherwise (the key,
  /// partition and file columns of the latest snapshot). kInvalid when a key field is missing.
  Result<std::shared_ptr<arrow::Table>> Lookup(const std::shared_ptr<arrow::RecordBatchReader>& keys);

  /// The records whose indexed column holds one of `values` (the stream's first column; cast to
  /// the column's type when it differs), from the built secondary index `index` of the metadata
  /// table (secondary_index_<name>, Spark's CREATE INDEX): a table of (secondary_key,
  /// record_key), one row per match, in the order of the values; secondary_key is the text
  /// Hudi stores (dates as days since the epoch, timestamps as microseconds). Entries of
  /// completed instants only. No such index → kInvalid naming those the table has. Cost: per
  /// distinct value, one file group of the index (its logs and the base-file blocks of the value).
  Result<std::shared_ptr<arrow::Table>> LookupSecondary(const std::string& index,
                                                        const std::shared_ptr<arrow::RecordBatchReader>& values);

  /// The records written by completed instants in (start_exclusive, end_inclusive]; empty end
  /// means the latest. Deleted records are not reported.
  Result<std::shared_ptr<arrow::Table>> ReadIncremental(const std::string& start_exclusive,
                                                        const std::string& end_inclusive,
                                                        const ReadOptions& options = {});

  /// Every instant of the active timeline, oldest first.
  Result<std::vector<InstantView>> Timeline();

  /// The data files (base and log files) of the latest slices as of `as_of`, as other tools
  /// open them (Storage::ExternalPath: absolute local paths, s3:// URIs).
  Result<std::vector<std::string>> Files(const std::optional<std::string>& as_of = std::nullopt);

  /// Rolls back every failed (pending, heartbeat expired) write; returns their instant times.
  Result<std::vector<std::string>> RollbackFailedWrites();

  /// Rolls back the latest completed write `instant_time` (write/rollback.h); returns the
  /// rollback instant's time. The table then reads as before that write.
  Result<std::string> Rollback(const std::string& instant_time);

  /// Changes the table's schema to `schema` (user columns), as Hudi's ALTER TABLE does: an
  /// `alter_schema` commit carrying it (write/schema_evolution.h says which changes are allowed:
  /// add nullable columns, widen int and float types, reorder). Older files are read under it.
  Status EvolveSchema(const std::shared_ptr<arrow::Schema>& schema);

  /// Restores the table to the savepoint of `savepoint_time` (write/rollback.h): every later
  /// write is rolled back, newest first; returns the restore instant's time.
  Result<std::string> Restore(const std::string& savepoint_time);

  /// Savepoints a completed write instant (services/savepoint/savepoints.h): archival keeps it
  /// and everything after it on the active timeline while the savepoint exists.
  Result<SavepointView> CreateSavepoint(const std::string& instant_time, const std::string& user = "",
                                        const std::string& comment = "");
  /// Removes the savepoint of `instant_time`.
  Status DeleteSavepoint(const std::string& instant_time);
  /// The table's savepoints, oldest first.
  Result<std::vector<SavepointView>> Savepoints();

  /// The metadata table's index partitions, as hoodie.properties lists them: those built
  /// (hoodie.table.metadata.partitions) and those being built (….partitions.inflight, which
  /// nothing may use yet). Both empty: the table has no metadata table.
  std::pair<std::vector<std::string>, std::vector<std::string>> MetadataPartitions() const;

  /// Builds an index of Hudi's metadata table: "files" (the file listing), "record_index"
  /// (record key → file group) or "bloom_filters" (each base file's key filter; both build
  /// "files" too), from the completed instants, under the
  /// table lock: listed in `hoodie.table.metadata.partitions.inflight` while it builds, then in
  /// `...partitions`. Every later write keeps it current. An index already built: nothing.
  /// A secondary index is "secondary_index_<name>" on `column` (one top-level column: strings,
  /// integers, booleans, dates, timestamps): its definition goes to Hudi's index definitions
  /// (`.hoodie/.index_defs/index.json`, version V2), then it is built from the latest snapshot
  /// and kept current by every write (a replace operation drops it; the next write rebuilds it).
  /// One already built is not rebuilt on another column: kInvalid, drop it first. Another
  /// name, or a secondary index without a usable column → kInvalid.
  Status CreateIndex(const std::string& name, const std::string& column = "");
  /// Drops an index of the metadata table, any Hudi writes (files drops them all, and the
  /// metadata table with them): unlisted from hoodie.properties first, then deleted.
  Status DropIndex(const std::string& name);

  /// Moves old completed instants into Hudi 1.x's archived timeline (`timeline/history/`), as
  /// Hudi's archiver does; reads keep the whole history (services/archive/timeline_archiver.h).
  Result<ArchiveResult> Archive(const ArchiveOptions& options = {});

  /// Compacts a merge-on-read table (services/compaction/compactor.h): a pending compaction is
  /// finished first; otherwise, when the trigger holds, the latest slice of every file group
  /// with log files is merged into a new base file, in one `compaction` instant that completes
  /// as a commit. Readers see the same rows before and after. kInvalid on a copy-on-write table.
  Result<CompactionResult> Compact(const CompactionOptions& options = {});

  /// Clusters the table (services/clustering/clusterer.h): a pending clustering is finished
  /// first; otherwise small file groups are rewritten, sorted, into new ones, in one
  /// `clustering` instant that completes as a replacecommit. Readers see the same rows.
  Result<ClusteringResult> Cluster(const ClusteringOptions& options = {});

  class Impl;

 private:
  explicit Table(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lakeshore
