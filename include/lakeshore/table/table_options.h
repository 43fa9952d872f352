// The typed settings of a table (kept in hoodie.properties beside Hudi's keys).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "lakeshore/config.h"

namespace lakeshore::table_options {

/// Target upper bound of a base file (Hudi: hoodie.parquet.max.file.size).
extern const ConfigOption<int64_t> kMaxFileSizeBytes;
/// Base files below this size take new inserts (Hudi: hoodie.parquet.small.file.limit); 0
/// turns small-file packing off.
extern const ConfigOption<int64_t> kSmallFileLimitBytes;
/// Rows per Parquet row group.
extern const ConfigOption<int64_t> kParquetRowGroupRows;
/// Parquet compression codec: snappy, zstd, gzip, lz4, none.
extern const ConfigOption<std::string> kParquetCompression;
/// Bytes per record assumed before the table has statistics.
extern const ConfigOption<int64_t> kRecordSizeEstimateBytes;
/// How often a writer renews its heartbeat.
extern const ConfigOption<int64_t> kHeartbeatIntervalMs;
/// Missed heartbeats after which a pending write counts as failed.
extern const ConfigOption<int64_t> kHeartbeatTolerableMisses;
/// Lease of the table lock: a holder that has not released it by then loses it.
extern const ConfigOption<int64_t> kLockLeaseMs;
/// How long a writer waits for the table lock before failing with kLockTimeout.
extern const ConfigOption<int64_t> kLockWaitTimeoutMs;
/// Files a bulk insert of one partition splits into, to encode them on every core (0: the
/// machine's core count); each holds at least 250,000 rows.
extern const ConfigOption<int64_t> kBulkInsertParallelism;
/// The record-location index used by upserts and deletes: "simple".
extern const ConfigOption<std::string> kIndexType;

/// Vacuum: how long untracked files are kept (hours). The default retention of `vacuum` on
/// this table, and the shortest one allowed while enforce_retention is on (Delta's
/// delta.deletedFileRetentionDuration).
extern const ConfigOption<double> kVacuumRetainHours;

/// Archival (Hudi's names): completed write instants kept on the active timeline. An archival
/// runs when more than hoodie.keep.max.commits are active and keeps hoodie.keep.min.commits.
extern const ConfigOption<int64_t> kArchiveKeepMinCommits;
extern const ConfigOption<int64_t> kArchiveKeepMaxCommits;
/// hoodie.archive.automatic: after each write, archive when more than hoodie.keep.max.commits
/// completed writes are active (Hudi's default, true).
extern const ConfigOption<bool> kArchiveAutomatic;

/// The archival's counts together: 1 <= keep_min < keep_max, else Invalid naming both keys and
/// values (each is valid alone, but an archival needs room between them).
Status CheckKeepCommits(int64_t keep_min, int64_t keep_max);

/// The rules that tie options to each other (CheckKeepCommits; the record index's fewest file
/// groups at most its most), over `properties` with the defaults filled in. Table creation
/// checks them after each option's own rule.
Status ValidateOptionRelations(const std::map<std::string, std::string>& properties);

/// The columns `hoodie.metadata.index.column.stats.column.list` names, trimmed, in order
/// (empty: the default set).
Result<std::vector<std::string>> ColumnStatsColumns(const std::map<std::string, std::string>& properties);

/// kInvalid naming the option and the column when an option names a column that `columns` (the
/// table's user columns) lacks: a nested field counts by its top-level column, and the meta
/// columns `_hoodie_*` are always there. A misspelt column was accepted and never indexed.
Status CheckOptionColumns(const std::map<std::string, std::string>& properties, const std::vector<std::string>& columns);

/// Hudi's inline compaction (merge-on-read): after a write, compact when at least
/// hoodie.compact.inline.max.delta.commits deltacommits completed since the last compaction.
extern const ConfigOption<bool> kCompactInline;
extern const ConfigOption<int64_t> kCompactInlineMaxDeltaCommits;

/// Hudi's hoodie.parquet.bloom.filter.enabled: the record-key bloom filter in base file footers.
extern const ConfigOption<bool> kParquetBloomFilterEnabled;

/// Hudi's metadata table (`.hoodie/metadata`), under Hudi's config names.
extern const ConfigOption<bool> kMetadataEnable;
extern const ConfigOption<bool> kMetadataRecordIndexEnable;
extern const ConfigOption<int64_t> kMetadataRecordIndexMinGroups;
extern const ConfigOption<int64_t> kMetadataRecordIndexMaxGroups;
extern const ConfigOption<int64_t> kMetadataCompactMaxDeltaCommits;
extern const ConfigOption<bool> kMetadataBloomFilterEnable;
extern const ConfigOption<int64_t> kMetadataBloomFilterGroups;
extern const ConfigOption<int64_t> kMetadataSecondaryIndexGroups;
extern const ConfigOption<bool> kMetadataColumnStatsEnable;
extern const ConfigOption<std::string> kMetadataColumnStatsColumns;
extern const ConfigOption<int64_t> kMetadataColumnStatsGroups;
extern const ConfigOption<bool> kMetadataPartitionStatsEnable;
extern const ConfigOption<int64_t> kMetadataPartitionStatsGroups;
/// The BLOOM index.
extern const ConfigOption<bool> kBloomIndexUseMetadata;
extern const ConfigOption<int64_t> kBloomIndexFilterMemoryBytes;

/// Every table option, for validation and docs.
const std::vector<const ConfigOptionBase*>& All();

}  // namespace lakeshore::table_options
