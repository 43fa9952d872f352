// Keeping Hudi's metadata table (`.hoodie/metadata`) current: its `files`, `record_index`,
// `bloom_filters` and `column_stats` partitions, built on an existing table, updated by every data instant before it completes
// (an MDT deltacommit at the data instant's own time), compacted, cleaned, rolled back with
// the data instant, and dropped when asked or when they cannot be kept exact.
//
// Layout, as Hudi 1.x writes it: the metadata table is a merge-on-read table with HFile base
// files and log files of HFile data blocks, its own timeline at `.hoodie/metadata/.hoodie/
// timeline`, one file group `files-0000-0` in `files/`, `record-index-<NNNN>-0` groups in
// `record_index/` and `bloom-filters-<NNNN>-0` in `bloom_filters/` (a key's group is Hudi's hash
// of it over the group count), `col-stats-<NNNN>-0` in `column_stats/`. A base file's bloom filter
// and column statistics come from one read of its footer, which the write has just written. A partition is
// built at an instant "00000000000000<NNN>" (Hudi's index-init times), which readers take as
// valid; every other metadata instant is valid only once the data instant of the same time
// completed (read side: io/metadata_files.h). hoodie.properties lists the built partitions in
// `hoodie.table.metadata.partitions` and those being built in `...partitions.inflight`.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "lakeshore/status.h"
#include "timeline/commit_metadata.h"
#include "timeline/timeline.h"

namespace lakeshore {

struct TableContext;
class LockGuard;

/// Hudi's metadata-table writer configs (table options, under Hudi's names).
struct MetadataTableSettings {
  bool enable = false;          ///< hoodie.metadata.enable: build the `files` partition
  bool record_index = false;    ///< hoodie.metadata.record.index.enable
  int64_t record_index_min_groups = 10;     ///< hoodie.metadata.record.index.min.filegroup.count
  int64_t record_index_max_groups = 10000;  ///< hoodie.metadata.record.index.max.filegroup.count
  int64_t compact_max_delta_commits = 10;   ///< hoodie.metadata.compact.max.delta.commits
  bool bloom_filters = false;               ///< hoodie.metadata.index.bloom.filter.enable
  int64_t bloom_filter_groups = 4;          ///< hoodie.metadata.index.bloom.filter.file.group.count
  int64_t secondary_index_groups = 10;      ///< hoodie.metadata.index.secondary.file.group.count
  bool column_stats = false;                ///< hoodie.metadata.index.column.stats.enable
  /// hoodie.metadata.index.column.stats.column.list (empty: the first 32 user columns).
  std::vector<std::string> column_stats_columns;
  int64_t column_stats_groups = 2;          ///< hoodie.metadata.index.column.stats.file.group.count
  /// hoodie.metadata.index.partition.stats.enable (implies column_stats, which it is computed from)
  bool partition_stats = false;
  int64_t partition_stats_groups = 1;       ///< hoodie.metadata.index.partition.stats.file.group.count
};

/// The partitions Lakeshore maintains.
inline constexpr const char* kMetadataFiles = "files";
inline constexpr const char* kMetadataRecordIndex = "record_index";
inline constexpr const char* kMetadataBloomFilters = "bloom_filters";
inline constexpr const char* kMetadataColumnStats = "column_stats";
inline constexpr const char* kMetadataPartitionStats = "partition_stats";

/// Where a record lives, for the record index.
struct RecordIndexEntry {
  std::string key;
  std::string partition;  ///< "" for a non-partitioned table
  std::string file_id;
};

/// What one data instant changes in what the metadata table indexes.
struct MetadataChanges {
  /// Partition → file name → size: files the instant wrote.
  std::map<std::string, std::map<std::string, int64_t>> files_added;
  /// Relative path → statistics of the records of the new log files whose write produced them
  /// (WriteStat::column_stats); the other log files' are read from the files.
  std::map<std::string, std::vector<format::FileColumnStats>> log_column_stats;
  /// Records the instant put in a file group they were not in before (inserts, moves).
  std::vector<RecordIndexEntry> keys_located;
  /// Keys the instant deleted.
  std::vector<std::string> keys_removed;
  /// When set, fills `keys_located` and `keys_removed` instead: UpdateMetadataTable calls it
  /// only when it updates the record index, so a table without one never pays for listing every
  /// key an instant wrote (a copy of each key, or a read of each new file's key column).
  std::function<Status(MetadataChanges*)> list_keys;
  /// The instant moved or removed records it cannot list (the record index is then dropped, to
  /// be rebuilt by the next write that wants it: never left stale).
  bool keys_unknown = false;
  /// A write's commit metadata (null for table services, which move records without changing
  /// them): secondary indexes diff the file groups it touched before and after.
  const CommitMetadata* written = nullptr;
};

/// Adds the files `metadata`'s write stats name to `changes`, and the log files' statistics
/// the write stats carry.
void AddWrittenFiles(const CommitMetadata& metadata, MetadataChanges* changes);

/// Adds to `changes` the keys of every base file `metadata` wrote, at their new file groups (a
/// clustering moves records wholesale). Cost: the key column of those files.
Status AddRelocatedKeys(TableContext& ctx, const CommitMetadata& metadata, MetadataChanges* changes);

/// Applies the changes of data instant `instant_time` to the metadata table, under `guard`,
/// before the data instant completes. First, as needed: partitions Lakeshore does not maintain
/// are dropped (a write would make them stale), builds of its own partitions that a crash left
/// in flight are dropped (and their pending `indexing` instants abandoned), and the partitions
/// the settings enable are built (from the completed instants: this one is applied after).
/// Then a metadata compaction when due, and the deltacommit at `instant_time`. `data_timeline`
/// is the data timeline the caller listed under `guard`. Returns the latest time written on the
/// metadata timeline, or by a build's `indexing` instant on the data timeline ("" when none):
/// the data instant's completion must follow it. A table without a metadata
/// table and without it enabled: nothing (one read of hoodie.properties).
Result<std::string> UpdateMetadataTable(TableContext& ctx, const std::string& instant_time,
                                        MetadataChanges& changes, const Timeline& data_timeline,
                                        const LockGuard& guard);

/// Builds `partitions` of the metadata table from the table's completed instants, under
/// `guard`, in one `indexing` instant of the data timeline (services/metadata/indexing_instant.h;
/// requested and inflight before the first partition, completed after the last): each listed
/// in flight in hoodie.properties first, then written (base HFiles at an index-init instant),
/// then listed as built. A partition already built is left as it is; nothing to build writes
/// nothing. What a partition rests on is built first when missing: files under every other,
/// column_stats under partition_stats. Cost: the commits' metadata (files), a read of the key,
/// partition and file-name meta columns of the latest snapshot (record_index), the column_stats
/// entries of the latest slices' files (partition_stats). `refuse_twins` (an index build asked
/// for by name): a key stored in two places makes the build of the record index or a secondary
/// index kInvalid naming it (they keep one place per key); else (a write building what it
/// wants) the last one read is kept, and a write can still delete the twin.
Status BuildMetadataPartitions(TableContext& ctx, const std::vector<std::string>& partitions, const LockGuard& guard,
                               bool refuse_twins = false);

/// Whether Lakeshore keeps the metadata partition `partition` current itself at every write
/// (files, record_index, bloom_filters, column_stats, partition_stats). Listed in flight, such a
/// partition is a build of its own, which the next writer settles; any other (a secondary
/// index) is its own only while a pending Lakeshore indexing instant claims it.
bool KeptCurrentByLakeshore(const std::string& partition);

/// Drops `partitions` of the metadata table (any, Hudi's too), under `guard`: removed from
/// hoodie.properties first (no reader trusts them from then on), then their folders deleted;
/// what rests on a dropped partition goes with it (everything on files, partition_stats on
/// column_stats); the whole metadata table goes when no partition is left.
Status DropMetadataPartitions(TableContext& ctx, const std::vector<std::string>& partitions, const LockGuard& guard);

/// Removes the metadata deltacommit of data instant `instant_time` (rolled back): its completed
/// file first (readers stop seeing it), then its log files, then its pending files. A partition
/// whose base files were written by a metadata instant that completed after it (a compaction
/// that folded its logs in, or an index build that read the table with it) cannot have it taken
/// out and is dropped instead (the next write that wants it builds it again; dropping `files`
/// drops them all). `data_completed`: the data instant had completed (a rollback of a completed
/// write, or a restore), so a partition built after it holds its effects even when it wrote no
/// metadata deltacommit (the metadata table came later). Idempotent; nothing when there is no
/// metadata table.
Status RollbackMetadataInstant(TableContext& ctx, const std::string& instant_time, const LockGuard& guard,
                               bool data_completed = false);

}  // namespace lakeshore
