#include "actions/table_context.h"

#include <cctype>

#include "engine/callback_scope.h"
#include "format/avro_schema.h"
#include "lakeshore/table/table.h"
#include "lakeshore/table/table_options.h"

namespace lakeshore {

Status TableContext::LoadSettings() {
  namespace o = table_options;
  const auto& p = config.properties;
  ARROW_ASSIGN_OR_RAISE(plan.max_file_size_bytes, o::kMaxFileSizeBytes.Get(p));
  ARROW_ASSIGN_OR_RAISE(plan.small_file_limit_bytes, o::kSmallFileLimitBytes.Get(p));
  ARROW_ASSIGN_OR_RAISE(plan.record_size_estimate_bytes, o::kRecordSizeEstimateBytes.Get(p));
  ARROW_ASSIGN_OR_RAISE(int64_t bulk_parallelism, o::kBulkInsertParallelism.Get(p));
  plan.bulk_insert_parallelism = bulk_parallelism > 0 ? static_cast<int>(std::min<int64_t>(bulk_parallelism, 1024))
                                                      : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  plan.merge_on_read = config.table_type == TableType::kMergeOnRead;
  ARROW_ASSIGN_OR_RAISE(parquet.row_group_rows, o::kParquetRowGroupRows.Get(p));
  ARROW_ASSIGN_OR_RAISE(parquet.compression, o::kParquetCompression.Get(p));
  ARROW_ASSIGN_OR_RAISE(parquet.bloom_filter, o::kParquetBloomFilterEnabled.Get(p));
  ARROW_ASSIGN_OR_RAISE(heartbeat.interval_ms, o::kHeartbeatIntervalMs.Get(p));
  ARROW_ASSIGN_OR_RAISE(heartbeat.tolerable_misses, o::kHeartbeatTolerableMisses.Get(p));
  ARROW_ASSIGN_OR_RAISE(lock.lease_ms, o::kLockLeaseMs.Get(p));
  ARROW_ASSIGN_OR_RAISE(lock.wait_timeout_ms, o::kLockWaitTimeoutMs.Get(p));
  ARROW_ASSIGN_OR_RAISE(index_type, o::kIndexType.Get(p));
  for (auto& c : index_type) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  ARROW_ASSIGN_OR_RAISE(metadata.enable, o::kMetadataEnable.Get(p));
  ARROW_ASSIGN_OR_RAISE(metadata.record_index, o::kMetadataRecordIndexEnable.Get(p));
  ARROW_ASSIGN_OR_RAISE(metadata.record_index_min_groups, o::kMetadataRecordIndexMinGroups.Get(p));
  ARROW_ASSIGN_OR_RAISE(metadata.record_index_max_groups, o::kMetadataRecordIndexMaxGroups.Get(p));
  ARROW_ASSIGN_OR_RAISE(metadata.compact_max_delta_commits, o::kMetadataCompactMaxDeltaCommits.Get(p));
  ARROW_ASSIGN_OR_RAISE(metadata.bloom_filters, o::kMetadataBloomFilterEnable.Get(p));
  ARROW_ASSIGN_OR_RAISE(metadata.bloom_filter_groups, o::kMetadataBloomFilterGroups.Get(p));
  ARROW_ASSIGN_OR_RAISE(metadata.secondary_index_groups, o::kMetadataSecondaryIndexGroups.Get(p));
  ARROW_ASSIGN_OR_RAISE(metadata.column_stats, o::kMetadataColumnStatsEnable.Get(p));
  ARROW_ASSIGN_OR_RAISE(metadata.column_stats_groups, o::kMetadataColumnStatsGroups.Get(p));
  ARROW_ASSIGN_OR_RAISE(metadata.partition_stats, o::kMetadataPartitionStatsEnable.Get(p));
  ARROW_ASSIGN_OR_RAISE(metadata.partition_stats_groups, o::kMetadataPartitionStatsGroups.Get(p));
  metadata.column_stats = metadata.column_stats || metadata.partition_stats;  // computed from column_stats
  ARROW_ASSIGN_OR_RAISE(metadata.column_stats_columns, o::ColumnStatsColumns(p));
  ARROW_ASSIGN_OR_RAISE(bloom_use_metadata, o::kBloomIndexUseMetadata.Get(p));
  ARROW_ASSIGN_OR_RAISE(bloom_filter_memory_bytes, o::kBloomIndexFilterMemoryBytes.Get(p));
  // The index type needs its metadata partition built.
  if (index_type == "RECORD_INDEX") metadata.record_index = true;
  if (index_type == "BLOOM" && bloom_use_metadata) metadata.bloom_filters = true;
  ARROW_ASSIGN_OR_RAISE(bool inline_compaction, o::kCompactInline.Get(p));
  ARROW_ASSIGN_OR_RAISE(int64_t inline_delta_commits, o::kCompactInlineMaxDeltaCommits.Get(p));
  inline_compaction_delta_commits = inline_compaction && plan.merge_on_read ? inline_delta_commits : 0;
  ARROW_ASSIGN_OR_RAISE(automatic_archival, o::kArchiveAutomatic.Get(p));
  return Status::OK();
}

Result<std::vector<CompletedCommit>> TableContext::LoadCommits(const Timeline& timeline) {
  if (archive_folder.empty()) return commits.LoadCompleted(*storage, *engine, timeline);
  // An instant an archival moved after the listing is found in the archive; one a restore or
  // rollback removed meanwhile is not, and the timeline is listed again once.
  auto loaded = LoadCommitsWithArchive(*storage, *engine, timeline, commits, archived_commits, archive_folder, codec());
  if (loaded.ok()) return loaded;
  ARROW_ASSIGN_OR_RAISE(auto relisted, LoadTimeline());
  return LoadCommitsWithArchive(*storage, *engine, relisted, commits, archived_commits, archive_folder, codec());
}

Result<std::optional<CommitMetadata>> TableContext::LoadRequestedPlan(const Instant& pending) {
  Instant requested = pending;
  requested.state = InstantState::kRequested;
  const std::string path = timeline_location.PathOf(requested);
  ARROW_ASSIGN_OR_RAISE(auto text, timeline_ops::ReadContentIfPresent(*storage, timeline_location, requested));
  if (!text) return std::optional<CommitMetadata>();
  ARROW_ASSIGN_OR_RAISE(auto plan, codec().Decode(requested, *text, path));
  return std::optional<CommitMetadata>(std::move(plan));
}

Result<Timeline> TableContext::LoadTimeline() {
  ARROW_ASSIGN_OR_RAISE(auto timeline, Timeline::Load(*storage, timeline_location));
  if (timeline.instants().empty()) ARROW_RETURN_NOT_OK(CheckTableExists());
  return timeline;
}

namespace {
Status TableGone(const std::string& uri) {
  return Status::IOError("no table at ", uri, " any more (", layout::kPropertiesFile,
                         " is missing): was its folder deleted since the table was opened?");
}
}  // namespace

Status TableContext::CheckTableExists() const {
  ARROW_ASSIGN_OR_RAISE(bool exists, HoodieTableConfig::Exists(*storage));
  return exists ? Status::OK() : TableGone(uri);
}

Status TableContext::CheckSameTable() const {
  // One read of the properties answers both questions (existence and identity).
  ARROW_ASSIGN_OR_RAISE(auto loaded, HoodieTableConfig::LoadIfExists(*storage));
  if (!loaded) return TableGone(uri);
  if (!hoodie) return Status::OK();
  const HoodieTableConfig& now = *loaded;
  std::string differs;
  if (now.name != hoodie->name) differs = "name";
  if (now.table_type != hoodie->table_type) differs = "table type";
  if (now.record_key_fields != hoodie->record_key_fields) differs = "record key fields";
  if (now.partition_fields != hoodie->partition_fields) differs = "partition fields";
  if (now.ordering_fields != hoodie->ordering_fields) differs = "ordering fields";
  if (now.create_schema != hoodie->create_schema) differs = "create schema";
  if (differs.empty()) return Status::OK();
  return CommitConflict("table " + uri + " is not the table this object opened: its " + differs +
                        " changed, so it was deleted and re-created since; reopen it");
}

Status TableContext::CheckWritable(const char* what) {
  // Before anything is written (a lock or heartbeat object would recreate a deleted folder).
  ARROW_RETURN_NOT_OK(CheckSameTable());
  if (read_only_reason && recheck_read_only) {
    ARROW_ASSIGN_OR_RAISE(read_only_reason, recheck_read_only(*this));
    if (!read_only_reason) recheck_read_only = nullptr;
  }
  if (!read_only_reason) return Status::OK();
  return UnsupportedFeature(std::string("cannot ") + what + " table " + uri + ": it is " + *read_only_reason +
                            "; this build reads it but does not write it");
}

Result<std::unique_lock<std::mutex>> TableContext::SerializeWrites(const char* what) {
  if (CallbackScope::Inside(this)) {
    return Status::Invalid("cannot ", what, " table ", uri, " from inside the progress callback of an operation on it: "
                           "that operation holds the table until the callback returns; start it after the operation "
                           "returns");
  }
  return std::unique_lock<std::mutex>(write_mu);
}

void TableContext::ReportProgress(const ProgressCallback& callback, const Progress& progress) {
  if (!callback) return;
  CallbackScope inside(this);
  callback(progress);
}

std::string TableContext::LatestAvroSchema(const std::vector<CompletedCommit>& commits, std::string* source) const {
  for (auto it = commits.rbegin(); it != commits.rend(); ++it) {
    auto schema = it->metadata.extra.find("schema");
    if (schema != it->metadata.extra.end() && !schema->second.empty()) {
      if (source != nullptr) *source = "instant " + it->instant.time;
      return schema->second;
    }
  }
  if (source != nullptr) *source = JoinPath(uri, HoodiePaths::kPropertiesFile);
  return hoodie ? hoodie->create_schema : std::string();
}

Status TableContext::CheckSchemaAsOpened(const std::vector<CompletedCommit>& commits) const {
  std::string source;
  const std::string latest = LatestAvroSchema(commits, &source);
  if (latest == avro_schema) return Status::OK();
  auto now = format::AvroSchemaToArrow(latest, source);
  auto then = format::AvroSchemaToArrow(avro_schema, "the schema table " + uri + " was opened with");
  if (now.ok() && then.ok() && (*now)->Equals(**then, /*check_metadata=*/false)) return Status::OK();
  return SchemaMismatch("the schema of table " + uri + " changed since it was opened (now as of " + source +
                        "): reopen the table to read it under its current columns");
}

}  // namespace lakeshore
