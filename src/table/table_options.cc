#include <algorithm>
#include <cctype>

#include "common/duration.h"
#include "lakeshore/table/table_options.h"

namespace lakeshore::table_options {
namespace {
Status KnownCompression(const std::string& v) {
  for (const char* c : {"snappy", "zstd", "gzip", "lz4", "none"})
    if (v == c) return Status::OK();
  return Status::Invalid("unknown compression '", v, "' (snappy, zstd, gzip, lz4, none)");
}
Status KnownIndex(const std::string& v) {
  std::string upper = v;
  for (auto& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  for (const char* c : {"SIMPLE", "GLOBAL_SIMPLE", "BLOOM", "GLOBAL_BLOOM", "RECORD_INDEX"})
    if (upper == c) return Status::OK();
  return Status::Invalid("unknown index type '", v, "' (SIMPLE, GLOBAL_SIMPLE, BLOOM, GLOBAL_BLOOM, RECORD_INDEX)");
}
/// A duration in milliseconds: positive and at most kMaxHours (100 years), as every duration
/// users give is, so adding it to a clock or multiplying it by a small count cannot overflow.
Status IsADurationMs(const int64_t& v) {
  if (v <= 0 || v > kMaxMs) return Status::Invalid("must be from 1 ms to 100 years (", kMaxMs, " ms), got ", v);
  return Status::OK();
}
/// A lock lease: a commit checks that at least a second of it is left (LockGuard::CheckHeld), so
/// a shorter lease could never commit.
Status IsALeaseMs(const int64_t& v) {
  constexpr int64_t kMinLeaseMs = 5000;
  if (v < kMinLeaseMs || v > kMaxMs) {
    return Status::Invalid("must be from ", kMinLeaseMs, " ms (a commit keeps a second of the lease in hand) to 100 "
                           "years (", kMaxMs, " ms), got ", v);
  }
  return Status::OK();
}
/// A count of missed heartbeats: 0 to 1000 (the interval times it stays within int64).
Status IsAMissCount(const int64_t& v) {
  if (v < 0 || v > 1000) return Status::Invalid("must be from 0 to 1000, got ", v);
  return Status::OK();
}
}  // namespace

const ConfigOption<int64_t> kMaxFileSizeBytes{
    "write.max_file_size_bytes", 120LL << 20, "Target upper bound of a base file in bytes.",
    MustBePositive};
const ConfigOption<int64_t> kSmallFileLimitBytes{
    "write.small_file_limit_bytes", 100LL << 20,
    "Base files smaller than this take new inserts; 0 turns small-file packing off.",
    MustBeNonNegative};
const ConfigOption<int64_t> kParquetRowGroupRows{
    "write.parquet.row_group_rows", 1LL << 20, "Rows per Parquet row group.", MustBePositive};
const ConfigOption<std::string> kParquetCompression{
    "write.parquet.compression", "snappy", "Parquet codec: snappy, zstd, gzip, lz4, none.",
    KnownCompression};
const ConfigOption<int64_t> kRecordSizeEstimateBytes{
    "write.record_size_estimate_bytes", 1024,
    "Bytes per record for file sizing when neither table statistics nor the input size tell.", MustBePositive};
const ConfigOption<int64_t> kHeartbeatIntervalMs{
    "write.heartbeat.interval_ms", 60000, "How often a writer renews its heartbeat (at most 100 years).",
    IsADurationMs};
const ConfigOption<int64_t> kHeartbeatTolerableMisses{
    "write.heartbeat.tolerable_misses", 2,
    "Missed heartbeats (0 to 1000) after which a pending write counts as failed and may be rolled back.",
    IsAMissCount};
const ConfigOption<int64_t> kLockLeaseMs{
    "write.lock.lease_ms", 60000,
    "Lease of the table lock; an unreleased lock expires after it (5 s to 100 years).", IsALeaseMs};
const ConfigOption<int64_t> kLockWaitTimeoutMs{
    "write.lock.wait_timeout_ms", 120000, "How long a writer waits for the table lock (at most 100 years).",
    IsADurationMs};
const ConfigOption<std::string> kIndexType{
    "hoodie.index.type", "SIMPLE",
    "Record-location index for upserts and deletes: SIMPLE (the key columns of the candidate files), BLOOM "
    "(key ranges, then bloom filters from the footers or the metadata table, then the candidates' key columns), "
    "their GLOBAL_ variants (a key is looked for in every partition; a key lives in one) or RECORD_INDEX (the "
    "metadata table's record index, built when missing; global).",
    KnownIndex};

const ConfigOption<int64_t> kBulkInsertParallelism{
    "write.bulk_insert.parallelism", 0,
    "Files a bulk insert of one partition splits into (each at least 250,000 rows), to encode them on every "
    "core; 0: the machine's core count.",
    MustBeNonNegative};

const ConfigOption<int64_t> kArchiveKeepMinCommits{
    "hoodie.keep.min.commits", 20, "Completed write instants an archival keeps on the active timeline.",
    MustBePositive};
const ConfigOption<int64_t> kArchiveKeepMaxCommits{
    "hoodie.keep.max.commits", 30, "Completed write instants on the active timeline above which an archival runs.",
    MustBePositive};

const ConfigOption<bool> kArchiveAutomatic{
    "hoodie.archive.automatic", true,
    "After each write, archive when more than hoodie.keep.max.commits completed writes are active (Hudi's "
    "automatic archival); the archived timeline is read with the active one, so no history is lost."};

Status CheckKeepCommits(int64_t keep_min, int64_t keep_max) {
  if (keep_min < 1 || keep_max <= keep_min) {
    return Status::Invalid("archival needs 1 <= hoodie.keep.min.commits < hoodie.keep.max.commits (got ", keep_min,
                           " and ", keep_max, ")");
  }
  return Status::OK();
}

Status ValidateOptionRelations(const std::map<std::string, std::string>& properties) {
  ARROW_ASSIGN_OR_RAISE(int64_t keep_min, kArchiveKeepMinCommits.Get(properties));
  ARROW_ASSIGN_OR_RAISE(int64_t keep_max, kArchiveKeepMaxCommits.Get(properties));
  ARROW_RETURN_NOT_OK(CheckKeepCommits(keep_min, keep_max));
  ARROW_ASSIGN_OR_RAISE(int64_t min_groups, kMetadataRecordIndexMinGroups.Get(properties));
  ARROW_ASSIGN_OR_RAISE(int64_t max_groups, kMetadataRecordIndexMaxGroups.Get(properties));
  if (min_groups > max_groups) {
    return Status::Invalid(kMetadataRecordIndexMinGroups.key(), " (", min_groups, ") must not exceed ",
                           kMetadataRecordIndexMaxGroups.key(), " (", max_groups, ")");
  }
  return Status::OK();
}

Result<std::vector<std::string>> ColumnStatsColumns(const std::map<std::string, std::string>& properties) {
  ARROW_ASSIGN_OR_RAISE(std::string list, kMetadataColumnStatsColumns.Get(properties));
  return SplitConfigList(list);
}

Status CheckOptionColumns(const std::map<std::string, std::string>& properties, const std::vector<std::string>& columns) {
  ARROW_ASSIGN_OR_RAISE(auto named, ColumnStatsColumns(properties));
  for (const auto& name : named) {
    const std::string top = name.substr(0, name.find('.'));
    if (top.rfind("_hoodie_", 0) == 0 || std::find(columns.begin(), columns.end(), top) != columns.end()) continue;
    return Status::Invalid("config '", kMetadataColumnStatsColumns.key(), "' names column '", name,
                           "', which the table does not have");
  }
  return Status::OK();
}

const ConfigOption<bool> kCompactInline{
    "hoodie.compact.inline", false,
    "Merge-on-read: after each write, compact when hoodie.compact.inline.max.delta.commits deltacommits "
    "completed since the last compaction (Hudi's inline compaction)."};
const ConfigOption<int64_t> kCompactInlineMaxDeltaCommits{
    "hoodie.compact.inline.max.delta.commits", 5,
    "Deltacommits since the last compaction that trigger an inline compaction.", MustBePositive};

const ConfigOption<bool> kParquetBloomFilterEnabled{
    "hoodie.parquet.bloom.filter.enabled", true,
    "Write Hudi's record-key bloom filter (DYNAMIC_V0) into each base file's footer, as Hudi does by default "
    "(Hudi's bloom index reads it). Off saves most of a write's hashing CPU."};

const ConfigOption<bool> kMetadataEnable{
    "hoodie.metadata.enable", false,
    "Build Hudi's metadata table (its files partition) and keep it current with every write; a table that "
    "has one is kept current whatever this says."};
const ConfigOption<bool> kMetadataRecordIndexEnable{
    "hoodie.metadata.record.index.enable", false,
    "Build the metadata table's record index (record key -> file group) and keep it current."};
const ConfigOption<int64_t> kMetadataRecordIndexMinGroups{
    "hoodie.metadata.record.index.min.filegroup.count", 10,
    "Fewest file groups of a new record index (Hudi's default).", MustBePositive};
const ConfigOption<int64_t> kMetadataRecordIndexMaxGroups{
    "hoodie.metadata.record.index.max.filegroup.count", 10000,
    "Most file groups of a new record index (Hudi's default).", MustBePositive};
const ConfigOption<int64_t> kMetadataCompactMaxDeltaCommits{
    "hoodie.metadata.compact.max.delta.commits", 10,
    "Metadata-table deltacommits after which it is compacted into new base files (older ones are then "
    "cleaned).",
    MustBePositive};

const ConfigOption<bool> kMetadataBloomFilterEnable{
    "hoodie.metadata.index.bloom.filter.enable", false,
    "Build the metadata table's bloom_filters partition (each base file's record-key filter, from its footer) and "
    "keep it current."};
const ConfigOption<int64_t> kMetadataBloomFilterGroups{
    "hoodie.metadata.index.bloom.filter.file.group.count", 4,
    "File groups of a new bloom_filters partition (Hudi's default).", MustBePositive};
const ConfigOption<int64_t> kMetadataSecondaryIndexGroups{
    "hoodie.metadata.index.secondary.file.group.count", 10,
    "File groups of a new secondary index partition (each value's entries live in one of them).", MustBePositive};
const ConfigOption<bool> kMetadataColumnStatsEnable{
    "hoodie.metadata.index.column.stats.enable", false,
    "Build the metadata table's column_stats partition (each base file's column statistics, from the same footer "
    "read as its bloom filter) and keep it current."};
const ConfigOption<std::string> kMetadataColumnStatsColumns{
    "hoodie.metadata.index.column.stats.column.list", "",
    "Comma-separated columns the column_stats partition covers; empty: the first 32 user columns."};
const ConfigOption<int64_t> kMetadataColumnStatsGroups{
    "hoodie.metadata.index.column.stats.file.group.count", 2,
    "File groups of a new column_stats partition (Hudi's default).", MustBePositive};
const ConfigOption<bool> kMetadataPartitionStatsEnable{
    "hoodie.metadata.index.partition.stats.enable", false,
    "Build the metadata table's partition_stats partition (each partition's column statistics over the files of "
    "its latest slices, by which filtered reads skip whole partitions) and keep it current; it needs column_stats, "
    "which is then built too."};
const ConfigOption<int64_t> kMetadataPartitionStatsGroups{
    "hoodie.metadata.index.partition.stats.file.group.count", 1,
    "File groups of a new partition_stats partition (Hudi's default).", MustBePositive};
const ConfigOption<bool> kBloomIndexUseMetadata{
    "hoodie.bloom.index.use.metadata", false,
    "The BLOOM index reads filters from the metadata table's bloom_filters partition (built when missing) "
    "instead of each file's footer."};
const ConfigOption<int64_t> kBloomIndexFilterMemoryBytes{
    "hoodie.bloom.index.filter.memory.bytes", 256LL << 20,
    "Bytes of bloom filters the BLOOM index holds at once; files are probed in batches that fit (Lakeshore's).",
    MustBePositive};

namespace {
Status NonNegativeHours(const double& v) { return HoursToMs("the value", v).status(); }
}  // namespace

const ConfigOption<double> kVacuumRetainHours{
    "vacuum.retain_hours", 168.0,
    "Hours untracked files are kept by vacuum; the default and the minimum while retention is enforced.",
    NonNegativeHours};

const std::vector<const ConfigOptionBase*>& All() {
  static const std::vector<const ConfigOptionBase*> all = {
      &kMaxFileSizeBytes,    &kSmallFileLimitBytes,      &kParquetRowGroupRows,
      &kParquetCompression,  &kRecordSizeEstimateBytes,  &kHeartbeatIntervalMs,
      &kHeartbeatTolerableMisses, &kLockLeaseMs,         &kLockWaitTimeoutMs,
      &kIndexType,           &kVacuumRetainHours,        &kParquetBloomFilterEnabled,
      &kArchiveKeepMinCommits, &kArchiveKeepMaxCommits, &kArchiveAutomatic, &kBulkInsertParallelism,
      &kCompactInline,       &kCompactInlineMaxDeltaCommits, &kMetadataEnable,
      &kMetadataRecordIndexEnable, &kMetadataRecordIndexMinGroups, &kMetadataRecordIndexMaxGroups,
      &kMetadataCompactMaxDeltaCommits, &kMetadataBloomFilterEnable, &kMetadataBloomFilterGroups, &kMetadataSecondaryIndexGroups,
      &kBloomIndexUseMetadata, &kBloomIndexFilterMemoryBytes, &kMetadataColumnStatsEnable,
      &kMetadataColumnStatsColumns, &kMetadataColumnStatsGroups,
      &kMetadataPartitionStatsEnable, &kMetadataPartitionStatsGroups};
  return all;
}

}  // namespace lakeshore::table_options
