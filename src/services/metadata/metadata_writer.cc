#include "services/metadata/metadata_writer.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <set>

#include <arrow/compute/api.h>

#include "actions/instant_lifecycle.h"
#include "actions/table_context.h"
#include "common/byte_compare.h"
#include "common/parse_number.h"
#include "format/avro_container.h"
#include "format/hfile.h"
#include "format/hfile_writer.h"
#include "format/java_properties.h"
#include "format/table_checksum.h"
#include "format/metadata_keys.h"
#include "format/metadata_record.h"
#include "io/base_file.h"
#include "io/log_file.h"
#include "io/metadata_files.h"
#include "lakeshore/storage/sub_tree_storage.h"
#include "read/record_lookup.h"
#include "services/metadata/indexing_instant.h"
#include "services/metadata/metadata_archival.h"
#include "services/metadata/secondary_index_writer.h"
#include "services/table_service.h"
#include "table/file_naming.h"
#include "table/layout.h"
#include "table/meta_columns.h"
#include "timeline/instant_time.h"
#include "write/table_lock.h"

namespace lakeshore {
namespace {

constexpr const char* kWriteToken = "0-0-0";
/// Hudi's SOLO_COMMIT_TIMESTAMP: index-init instants are it plus a three-digit counter.
constexpr std::string_view kInitPrefix = "00000000000000";

/// The file group ids of a partition, as Hudi names them (<prefix>-<NNNN>-0).
std::string GroupId(const std::string& partition, int64_t i) {
  std::string prefix = partition == kMetadataFiles         ? "files"
                       : partition == kMetadataRecordIndex ? "record-index"
                       : partition == kMetadataColumnStats ? "col-stats"
                       : partition == kMetadataBloomFilters ? "bloom-filters"
                                                            : partition;  // secondary-index-<name>
  std::replace(prefix.begin(), prefix.end(), '_', '-');
  char buf[32];
  std::snprintf(buf, sizeof(buf), "-%04lld-0", static_cast<long long>(i));
  return prefix + buf;
}

using Entries = std::vector<std::pair<std::string, std::string>>;  ///< (key, encoded value)

bool Contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}


/// The partitions whose values are column statistics (HoodieMetadataColumnStats).
bool IsStatsPartition(const std::string& partition) {
  return partition == kMetadataColumnStats || partition == kMetadataPartitionStats;
}

std::string JoinList(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ",") + x;
  return out;
}

/// Rewrites hoodie.properties with the metadata partitions lists (Hudi's keys), and refreshes
/// the context's copy. One atomic replace of the file; the checksum covers the table name only.
Status WriteMetadataPartitionLists(TableContext& ctx, std::vector<std::string> built, std::vector<std::string> inflight) {
  ARROW_ASSIGN_OR_RAISE(auto config, HoodieTableConfig::Load(*ctx.storage));
  std::sort(built.begin(), built.end());
  std::sort(inflight.begin(), inflight.end());
  format::JavaProperties p = config.properties;
  p.Set("hoodie.table.metadata.partitions", JoinList(built));
  p.Set("hoodie.table.metadata.partitions.inflight", JoinList(inflight));
  ARROW_RETURN_NOT_OK(ctx.storage->WriteString(HoodiePaths::kPropertiesFile, p.Render("Updated by Lakeshore")));
  ARROW_ASSIGN_OR_RAISE(auto reloaded, HoodieTableConfig::Load(*ctx.storage));
  ctx.hoodie = std::move(reloaded);
  return Status::OK();
}

/// The metadata table's own hoodie.properties and partition markers, once.
Status EnsureMetadataTable(TableContext& ctx, Storage& mdt, const std::string& partition) {
  ARROW_ASSIGN_OR_RAISE(bool exists, mdt.Exists(HoodiePaths::kPropertiesFile));
  if (!exists) {
    format::JavaProperties p;
    p.Set("hoodie.table.name", (ctx.hoodie ? ctx.hoodie->name : std::string("table")) + "_metadata");
    p.Set("hoodie.table.type", "MERGE_ON_READ");
    p.Set("hoodie.table.version", ctx.hoodie ? std::to_string(ctx.hoodie->table_version) : "9");
    p.Set("hoodie.table.initial.version", ctx.hoodie ? std::to_string(ctx.hoodie->table_version) : "9");
    p.Set("hoodie.timeline.layout.version", "2");
    p.Set("hoodie.timeline.path", "timeline");
    p.Set("hoodie.timeline.history.path", "history");
    p.Set("hoodie.archivelog.folder", "history");
    p.Set("hoodie.table.base.file.format", "HFILE");
    p.Set("hoodie.table.recordkey.fields", "key");
    p.Set("hoodie.table.keygenerator.type", "HOODIE_TABLE_METADATA");
    p.Set("hoodie.populate.meta.fields", "false");
    p.Set("hoodie.compaction.payload.class", "org.apache.hudi.metadata.HoodieMetadataPayload");
    p.Set("hoodie.record.merge.mode", "CUSTOM");
    p.Set("hoodie.record.merge.strategy.id", "00000000-0000-0000-0000-000000000000");
    p.Set("hoodie.datasource.write.drop.partition.columns", "false");
    auto checksum = format::TableChecksum(p);
    if (checksum.ok()) p.Set("hoodie.table.checksum", *checksum);
    ARROW_RETURN_NOT_OK(mdt.WriteString(HoodiePaths::kPropertiesFile, p.Render("Written by Lakeshore")));
  }
  format::JavaProperties marker;
  marker.Set("commitTime", std::string(kInitPrefix) + "000");
  marker.Set("partitionDepth", "1");
  return mdt.PutIfAbsentString(JoinPath(partition, HoodiePaths::kPartitionMetadataFile),
                               marker.Render("partition metadata"))
      .status();
}

/// How an HFile of the metadata table is compressed. A base file's blocks are deflated (at level
/// 1: several times faster than Hudi's 6; any reader reads either), except where the entries
/// barely compress and every reader inflates what it reads: the record index's (a key and a
/// location) and the bloom filters' (a filter's bits are random by design; deflating the 860 KB
/// of a saturated filter's text took longer than reading the footer it came from). A log
/// block's HFile is small and short-lived, and left uncompressed.
enum class HFileUse { kBaseFile, kIncompressibleBaseFile, kLogBlock };

format::HFileWriterOptions HFileOptions(HFileUse use) {
  format::HFileWriterOptions options;
  options.gzip = use == HFileUse::kBaseFile;
  options.compression_level = 1;
  return options;
}

HFileUse BaseFileUse(const std::string& partition) {
  return partition == kMetadataRecordIndex || partition == kMetadataBloomFilters ? HFileUse::kIncompressibleBaseFile
                                                                                 : HFileUse::kBaseFile;
}

/// Sorted (key, value) pairs as one HFile with the metadata record schema in its file info.
Result<std::string> RenderHFile(const std::vector<std::pair<std::string, std::string>>& entries,
                                HFileUse use, std::string schema = "") {
  if (schema.empty()) {
    ARROW_ASSIGN_OR_RAISE(schema, format::MetadataRecordSchema());
  }
  format::HFileWriter writer(HFileOptions(use));
  for (const auto& [key, value] : entries) ARROW_RETURN_NOT_OK(writer.Append(key, value));
  writer.AddFileInfo("schema", schema);
  return writer.Finish();
}

/// One completed metadata instant writing `files` (path → bytes) under `action`. Returns its
/// completion time.
Result<std::string> WriteMetadataInstant(TableContext& ctx, Storage& mdt, const std::string& time, const char* action,
                            const char* operation, const std::vector<std::pair<std::string, std::string>>& files,
                            const std::string& after, const LockGuard& guard) {
  Instant instant{time, action, InstantState::kRequested, ""};
  const InstantCodec codec{TimelineLayout::kV2, mdt.ExternalPath("")};
  CommitMetadata metadata;
  metadata.operation = operation;
  ARROW_ASSIGN_OR_RAISE(auto requested, codec.Encode(instant, metadata));
  ARROW_RETURN_NOT_OK(timeline_ops::CreateRequested(mdt, kMetadataTimeline, instant, requested));
  instant.state = InstantState::kInflight;
  ARROW_ASSIGN_OR_RAISE(auto inflight, codec.Encode(instant, metadata));
  ARROW_RETURN_NOT_OK(timeline_ops::TransitionToInflight(mdt, kMetadataTimeline, instant, inflight));
  // The files are independent until the instant completes: written side by side, so their
  // fsyncs overlap (a write's log files for each partition and record index group).
  ARROW_RETURN_NOT_OK(Engine::DefaultForStorageWaits()->ParallelFor(
      static_cast<int64_t>(files.size()), [&](int64_t i) {
        const auto& [path, bytes] = files[static_cast<size_t>(i)];
        return mdt.WriteString(path, bytes);
      }));
  for (const auto& [path, bytes] : files) {
    auto parsed = ParseDataFileName(BaseName(path));
    WriteStat stat;
    stat.partition = std::string(path.substr(0, path.find('/')));
    stat.file_id = parsed ? parsed->file_id : "";
    stat.path = path;
    stat.file_size = static_cast<int64_t>(bytes.size());
    metadata.write_stats.push_back(std::move(stat));
  }
  ARROW_RETURN_NOT_OK(guard.CheckHeld());
  ARROW_ASSIGN_OR_RAISE(std::string completion, NextInstantTime(ctx.clock->NowMs(), after));
  instant.state = InstantState::kCompleted;
  ARROW_ASSIGN_OR_RAISE(auto completed, codec.Encode(instant, metadata));
  ARROW_RETURN_NOT_OK(timeline_ops::Complete(mdt, kMetadataTimeline, instant, completion, completed).status());
  return completion;
}

/// The writer schema in the file info of `group`'s latest base file ("" when it has none),
/// read from the file's tail once per open table (base files never change; ctx caches them).
Result<std::string> BaseFileSchema(TableContext& ctx, Storage& mdt, const FileGroup& group) {
  if (!group.latest().base_file) return std::string();
  const BaseFile& base = *group.latest().base_file;
  auto cached = ctx.metadata_base_schemas.find(base.path);
  if (cached != ctx.metadata_base_schemas.end()) return cached->second;
  ARROW_ASSIGN_OR_RAISE(auto file, mdt.OpenInputFile(base.path));
  ARROW_ASSIGN_OR_RAISE(int64_t size, file->GetSize());
  ARROW_ASSIGN_OR_RAISE(
      auto info, format::HFileReader::FileInfoFromTail(
                     [&](int64_t offset) { return file->ReadAt(offset, size - offset); }, size,
                     "metadata table file " + mdt.root_uri() + "/" + base.path));
  auto schema = info.find("schema");
  std::string text = schema == info.end() ? std::string() : schema->second;
  ctx.metadata_base_schemas.emplace(base.path, text);
  return text;
}

/// True when values encoded here are valid under `schema` (a base file's) in `partition`.
bool LayoutIsOurs(const std::string& schema, const std::string& ours, const std::string& partition) {
  return schema.empty() || schema == ours || format::IsCompatibleMetadataSchema(schema, IsStatsPartition(partition));
}

/// The schema a log block appended to `group` carries: its base file's (another writer's, such
/// as Spark's: readers comparing base and log schemas then see one), when the values encoded
/// here are valid under it; else ours.
Result<std::string> SchemaForAppend(TableContext& ctx, Storage& mdt, const FileGroup* group, const std::string& ours,
                                    const std::string& partition) {
  if (group == nullptr) return ours;
  ARROW_ASSIGN_OR_RAISE(auto schema, BaseFileSchema(ctx, mdt, *group));
  return schema.empty() || !LayoutIsOurs(schema, ours, partition) ? ours : schema;
}

std::string BasePath(const std::string& partition, const std::string& file_id, const std::string& instant) {
  return JoinPath(partition, file_id + "_" + kWriteToken + "_" + instant + ".hfile");
}
std::string LogPath(const std::string& partition, const std::string& file_id, const std::string& instant) {
  return JoinPath(partition, "." + file_id + "_" + instant + ".log.1_" + kWriteToken);
}

/// The `files` partition's records for a listing: one per partition, and the partition list.
std::vector<std::pair<std::string, std::string>> FilesRecords(
    const std::map<std::string, std::map<std::string, int64_t>>& files, bool with_partition_list) {
  std::vector<std::pair<std::string, std::string>> out;
  std::map<std::string, format::MetadataFileEntry> partitions;
  for (const auto& [partition, names] : files) {
    std::map<std::string, format::MetadataFileEntry> entries;
    for (const auto& [name, size] : names) entries[name] = {size, false};
    const std::string key = format::MetadataPartitionName(partition);
    partitions[key] = {0, false};
    out.emplace_back(key, format::EncodeFilesRecord(key, format::MetadataRecordType::kFiles, entries));
  }
  if (with_partition_list) {
    const std::string key(format::kAllPartitionsKey);
    out.emplace_back(key, format::EncodeFilesRecord(key, format::MetadataRecordType::kPartitionList, partitions));
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The file group of a key, of `groups`: Hudi's hash of the partition's keys.
using GroupOf = std::function<int64_t(std::string_view key, int64_t groups)>;

/// How `partition` hashes its keys to file groups: a secondary index by its entries' secondary
/// key (index version V2) or whole key (V1), every other partition by the key.
GroupOf GroupOfPartition(const std::string& partition, bool by_secondary_key = true) {
  if (IsSecondaryIndexPartition(partition)) {
    return [by_secondary_key](std::string_view key, int64_t groups) {
      return format::SecondaryIndexEntryFileGroup(key, groups, by_secondary_key);
    };
  }
  return [](std::string_view key, int64_t groups) { return format::RecordIndexFileGroup(key, groups); };
}

/// `entries` bucketed into `groups` file groups by `group_of` (one group: all in it), each
/// bucket sorted by key with one entry per key (the last given wins).
std::vector<Entries> Bucket(Entries entries, int64_t groups, const GroupOf& group_of) {
  std::vector<Entries> out(static_cast<size_t>(groups));
  for (auto& e : entries) {
    const int64_t g = groups == 1 ? 0 : group_of(e.first, groups);
    out[static_cast<size_t>(g)].push_back(std::move(e));
  }
  for (auto& bucket : out) {
    auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
    if (!std::is_sorted(bucket.begin(), bucket.end(), by_key)) std::stable_sort(bucket.begin(), bucket.end(), by_key);
    auto last = std::unique(bucket.rbegin(), bucket.rend(), [](const auto& a, const auto& b) { return a.first == b.first; });
    bucket.erase(bucket.begin(), last.base());
  }
  return out;
}

/// The record index entries of `located` (first written at `instant_ms`), as Bucket buckets
/// them into `groups` file groups: each group's keys sorted, the last given of a key kept.
/// Computed side by side on `engine`: the keys hashed in chunks, then each group sorted and
/// encoded in its own task, each location's value tail encoded once for all its keys.
Result<std::vector<Entries>> RecordIndexBuckets(const std::vector<RecordIndexEntry>& located, int64_t instant_ms,
                                                int64_t groups, Engine& engine) {
  const int64_t n = static_cast<int64_t>(located.size());
  std::vector<int64_t> group_of(located.size(), 0);
  constexpr int64_t kChunk = 16384;
  if (groups > 1) {
    ARROW_RETURN_NOT_OK(engine.ParallelFor((n + kChunk - 1) / kChunk, [&](int64_t c) {
      for (int64_t i = c * kChunk; i < std::min(n, (c + 1) * kChunk); ++i) {
        group_of[static_cast<size_t>(i)] = format::RecordIndexFileGroup(located[static_cast<size_t>(i)].key, groups);
      }
      return Status::OK();
    }));
  }
  std::vector<std::vector<size_t>> members(static_cast<size_t>(groups));
  for (size_t i = 0; i < located.size(); ++i) members[static_cast<size_t>(group_of[i])].push_back(i);
  std::vector<Entries> out(static_cast<size_t>(groups));
  ARROW_RETURN_NOT_OK(engine.ParallelFor(groups, [&](int64_t g) {
    auto& rows = members[static_cast<size_t>(g)];
    auto key_of = [&](size_t r) -> const std::string& { return located[r].key; };
    // Inline comparisons (keys often share long prefixes); time-ordered keys arrive sorted.
    auto less = [&](size_t a, size_t b) { return BytesLess(key_of(a), key_of(b)); };
    if (!std::is_sorted(rows.begin(), rows.end(), less)) std::stable_sort(rows.begin(), rows.end(), less);
    std::map<std::pair<std::string_view, std::string_view>, std::string> tails;
    Entries& bucket = out[static_cast<size_t>(g)];
    bucket.reserve(rows.size());
    for (size_t j = 0; j < rows.size(); ++j) {
      if (j + 1 < rows.size() && SameBytes(key_of(rows[j + 1]), key_of(rows[j]))) continue;  // a later copy wins
      const RecordIndexEntry& e = located[rows[j]];
      auto [tail, fresh] = tails.try_emplace({e.partition, e.file_id});
      if (fresh) tail->second = format::RecordIndexValueTail(e.partition, e.file_id, instant_ms);
      bucket.emplace_back(e.key, format::EncodeRecordIndexRecordWithTail(e.key, tail->second));
    }
    return Status::OK();
  }));
  return out;
}

/// What the new data files give the metadata table: the bloom_filters entries (base files' key
/// filters) and the column_stats entries (base and log files' columns' statistics).
struct FileEntries {
  Entries bloom_filters;
  Entries column_stats;
};

/// True for a data file column_stats has entries for: a Parquet base file, or a log file.
bool IsStatsDataFile(const DataFileName& parsed, std::string_view name) {
  return parsed.is_log || (name.size() > 8 && name.substr(name.size() - 8) == ".parquet");
}

/// The entries `files` (partition → name → size) give the bloom_filters and column_stats
/// partitions: of each Parquet base file, its key filter and its columns' statistics from one
/// read of its footer; of each log file, its records' statistics (LogFileColumnStats), taken
/// from `log_stats` (relative path → what the write produced) or else from one read of the
/// file. The files in parallel ("never two reads"). A base file without a filter in its footer
/// gets no bloom entry (the bloom index then reads its key column). Column stats cover the
/// columns `ctx.metadata.column_stats_columns` names (empty: every user column with a value
/// wrapper, the first 32).
Result<FileEntries> ReadFileEntries(TableContext& ctx, const std::map<std::string, std::map<std::string, int64_t>>& files,
                                      const std::map<std::string, std::vector<format::FileColumnStats>>& log_stats,
                                      bool bloom_filters, bool column_stats) {
  struct File {
    std::string partition, name, instant;
    int64_t size;
    bool is_log;
  };
  std::vector<File> wanted;
  for (const auto& [partition, names] : files) {
    for (const auto& [name, size] : names) {
      auto parsed = ParseDataFileName(name);
      if (!parsed || !IsStatsDataFile(*parsed, name) || (parsed->is_log && !column_stats)) continue;
      wanted.push_back({partition, name, parsed->instant_time, size, parsed->is_log});
    }
  }
  FileEntries out;
  if (wanted.empty() || (!bloom_filters && !column_stats)) return out;
  const auto& wanted_columns = ctx.metadata.column_stats_columns;
  auto add_column_stats = [&](const File& f, const std::vector<format::FileColumnStats>& columns, Entries* entries) {
    int taken = 0;
    for (const auto& c : columns) {
      const bool named = std::find(wanted_columns.begin(), wanted_columns.end(), c.column) != wanted_columns.end();
      if (wanted_columns.empty() ? (meta_columns::IsReserved(c.column) || taken >= 32) : !named) continue;
      ++taken;
      const std::string key = format::ColumnStatsIndexKey(f.partition, f.name, c.column);
      entries->emplace_back(key, format::EncodeColumnStatsRecord(key, f.name, c.column, c.value));
    }
  };
  ARROW_ASSIGN_OR_RAISE(
      auto per_file, ctx.engine->Map<FileEntries>(static_cast<int64_t>(wanted.size()), [&](int64_t i) -> Result<FileEntries> {
        const File& f = wanted[static_cast<size_t>(i)];
        const std::string path = JoinPath(f.partition, f.name);
        FileEntries entries;
        if (f.is_log) {
          if (auto known = log_stats.find(path); known != log_stats.end()) {
            add_column_stats(f, known->second, &entries.column_stats);
          } else {
            ARROW_ASSIGN_OR_RAISE(auto columns, LogFileColumnStats(*ctx.storage, path));
            add_column_stats(f, columns, &entries.column_stats);
          }
          return entries;
        }
        ARROW_ASSIGN_OR_RAISE(auto footer, ReadBaseFileFooter(*ctx.storage, path,
                                                              f.size > 0 ? std::optional<int64_t>(f.size) : std::nullopt));
        auto filter = footer.key_value.find("org.apache.hudi.bloomfilter");
        if (bloom_filters && filter != footer.key_value.end()) {
          auto type = footer.key_value.find("hoodie_bloom_filter_type_code");
          const std::string code = type == footer.key_value.end() || type->second.empty() ? "SIMPLE" : type->second;
          const std::string key = format::BloomFilterIndexKey(f.partition, f.name);
          entries.bloom_filters.emplace_back(key, format::EncodeBloomFilterRecord(key, code, f.instant, filter->second));
        }
        if (column_stats) add_column_stats(f, footer.columns, &entries.column_stats);
        return entries;
      }));
  for (auto& e : per_file) {
    for (auto& x : e.bloom_filters) out.bloom_filters.push_back(std::move(x));
    for (auto& x : e.column_stats) out.column_stats.push_back(std::move(x));
  }
  return out;
}

/// The number of record index file groups for `records` keys, as Hudi estimates it (48 bytes a
/// record, room to grow twofold, 1 GiB a group), within the settings' bounds.
int64_t RecordIndexGroupCount(const MetadataTableSettings& s, int64_t records) {
  const int64_t wanted = (records * 48 * 2 + (int64_t{1} << 30) - 1) >> 30;
  // Not std::clamp: a table another writer created may hold a minimum above the maximum (which
  // Table.create refuses), and the maximum then wins.
  return std::min(std::max(wanted, std::max<int64_t>(1, s.record_index_min_groups)),
                  std::max<int64_t>(1, s.record_index_max_groups));
}

/// The next free index-init instant on the metadata timeline.
Result<std::string> NextInitInstant(const Timeline& timeline) {
  int64_t next = 0;
  for (const auto& i : timeline.instants()) {
    if (IsIndexInitTime(i.time)) {
      if (auto n = ParseInt64(std::string_view(i.time).substr(kInitPrefix.size()))) next = std::max(next, *n + 1);
    }
  }
  if (next > 999) return Status::Invalid("the metadata table has used every index-init instant time");
  char buf[8];
  std::snprintf(buf, sizeof(buf), "%03lld", static_cast<long long>(next));
  return std::string(kInitPrefix) + buf;
}

/// Every file the completed instants wrote, by partition, with sizes.
std::map<std::string, std::map<std::string, int64_t>> CommittedFiles(const std::vector<CompletedCommit>& commits) {
  std::map<std::string, std::map<std::string, int64_t>> files;
  const FileSystemView view = FileSystemView::Build(commits);
  const std::map<std::string, int64_t> sizes = FileSizesByPath(commits);
  for (const FileGroup* g : view.AllFileGroups()) {
    for (const FileSlice& slice : g->slices) {
      auto add = [&](const std::string& path) {
        auto size = sizes.find(path);
        files[g->partition][std::string(BaseName(path))] = size == sizes.end() ? 0 : size->second;
      };
      if (slice.base_file) add(slice.base_file->path);
      for (const auto& log : slice.log_files) add(log);
    }
  }
  for (const auto& p : view.Partitions()) files.try_emplace(p);
  return files;
}

Result<std::shared_ptr<Storage>> MetadataStorage(TableContext& ctx) {
  ARROW_ASSIGN_OR_RAISE(auto mdt, SubTreeStorage::Make(ctx.storage, kMetadataFolder));
  return std::shared_ptr<Storage>(std::move(mdt));
}

/// Base files of `partition` at `time`, one per bucket (file group), rendered side by side.
Status AddBaseFiles(const std::string& partition, const std::string& time, const std::vector<Entries>& buckets,
                    Engine& engine, std::vector<std::pair<std::string, std::string>>* files) {
  std::vector<std::string> rendered(buckets.size());
  ARROW_RETURN_NOT_OK(engine.ParallelFor(static_cast<int64_t>(buckets.size()), [&](int64_t g) -> Status {
    ARROW_ASSIGN_OR_RAISE(rendered[static_cast<size_t>(g)],
                          RenderHFile(buckets[static_cast<size_t>(g)], BaseFileUse(partition)));
    return Status::OK();
  }));
  for (size_t g = 0; g < buckets.size(); ++g) {
    files->emplace_back(BasePath(partition, GroupId(partition, static_cast<int64_t>(g)), time), std::move(rendered[g]));
  }
  return Status::OK();
}

/// Base files of `partition` at `time`: `entries` bucketed into `groups` file groups.
Status AddBaseFiles(const std::string& partition, const std::string& time, Entries entries, int64_t groups,
                    Engine& engine, std::vector<std::pair<std::string, std::string>>* files,
                    bool by_secondary_key = true) {
  return AddBaseFiles(partition, time, Bucket(std::move(entries), groups, GroupOfPartition(partition, by_secondary_key)),
                      engine, files);
}

/// The columns column_stats covers in `ctx`'s schema: those `ctx.metadata.column_stats_columns`
/// names, else the first 32 top-level user columns of a primitive type (the ones a footer
/// has statistics for).
std::vector<std::shared_ptr<arrow::Field>> StatsColumns(const TableContext& ctx) {
  std::vector<std::shared_ptr<arrow::Field>> out;
  const auto& wanted = ctx.metadata.column_stats_columns;
  for (const auto& field : ctx.full_schema->fields()) {
    if (!wanted.empty()) {
      if (std::find(wanted.begin(), wanted.end(), field->name()) != wanted.end()) out.push_back(field);
      continue;
    }
    if (meta_columns::IsReserved(field->name()) || arrow::is_nested(field->type()->id())) continue;
    if (out.size() < 32) out.push_back(field);
  }
  return out;
}

/// The partition_stats entries of `files` (partition → the names of the files of its latest
/// slices): per partition and column, the statistics over those files — bounds the smallest
/// minimum and largest maximum, counts and sizes added — from their column_stats entries,
/// `fresh` (key → encoded entry, this instant's files, not in the metadata table yet) first,
/// else the column_stats partition (valid instants of `data_timeline` only). A file without an
/// entry, or one with values but no bound, leaves the partition's bound absent (no read skips
/// it); one of only nulls adds its counts alone. Cost: one point lookup per file and column.
Result<Entries> PartitionStatsEntries(TableContext& ctx, const std::map<std::string, std::vector<std::string>>& files,
                                      const std::map<std::string, std::string>& fresh, const Timeline& data_timeline) {
  const auto columns = StatsColumns(ctx);
  std::vector<std::string> keys;
  for (const auto& [partition, names] : files) {
    for (const auto& name : names) {
      for (const auto& c : columns) {
        std::string key = format::ColumnStatsIndexKey(partition, name, c->name());
        if (!fresh.count(key)) keys.push_back(std::move(key));
      }
    }
  }
  std::map<std::string, nlohmann::json> stored;
  if (!keys.empty()) {
    ARROW_ASSIGN_OR_RAISE(stored, ReadMetadataRecords(ctx.storage, *ctx.engine, kMetadataColumnStats,
                                                      ValidDataInstants(data_timeline), &keys));
  }
  ARROW_ASSIGN_OR_RAISE(auto schema, format::MetadataRecordSchema());
  ARROW_ASSIGN_OR_RAISE(auto decoder, format::AvroDatumReader::Make(schema, "a new column_stats entry"));
  Entries out;
  for (const auto& [partition, names] : files) {
    for (const auto& c : columns) {
      format::ColumnStatsValue total;
      bool bounded = true;
      for (const auto& name : names) {
        const std::string key = format::ColumnStatsIndexKey(partition, name, c->name());
        std::optional<format::ColumnStatsValue> one;
        if (auto it = fresh.find(key); it != fresh.end()) {
          ARROW_ASSIGN_OR_RAISE(auto record, decoder->Read(it->second));
          one = format::ColumnStatsFromRecord(record, *c->type());
        } else if (auto found = stored.find(key); found != stored.end()) {
          one = format::ColumnStatsFromRecord(found->second, *c->type());
        }
        if (!one) {
          bounded = false;
          total.null_count = total.value_count = -1;
          continue;
        }
        auto add = [](int64_t* sum, int64_t v) { *sum = *sum < 0 || v < 0 ? -1 : *sum + v; };
        add(&total.null_count, one->null_count);
        add(&total.value_count, one->value_count);
        add(&total.total_size, one->total_size);
        add(&total.total_uncompressed_size, one->total_uncompressed_size);
        const bool only_nulls = one->value_count >= 0 && one->value_count == one->null_count;
        if (!one->min || !one->max) {
          if (!only_nulls) bounded = false;
          continue;
        }
        if (!total.min || format::BoundBefore(one->min, total.min)) total.min = one->min;
        if (!total.max || format::BoundBefore(total.max, one->max)) total.max = one->max;
      }
      if (!bounded) total.min = total.max = nullptr;
      const std::string key = format::PartitionStatsIndexKey(partition, c->name());
      out.emplace_back(key, format::EncodePartitionStatsRecord(key, partition, c->name(), total));
    }
  }
  return out;
}

/// Partition → the names of the files partition_stats covers, for the partitions of `only`
/// (every partition when null): those of the latest slices in the view of `commits`, then the
/// files `changes` adds (an instant's own, not in `commits` yet). A log file whose write stats
/// say it holds deletes only (no record, a delete at least) is left out: it holds no value.
std::map<std::string, std::vector<std::string>> PartitionStatsFiles(const std::vector<CompletedCommit>& commits,
                                                                    const MetadataChanges* changes,
                                                                    const std::set<std::string>* only) {
  std::set<std::string> deletes_only;
  auto note_deletes_only = [&](const std::vector<WriteStat>& stats) {
    for (const auto& s : stats) {
      auto parsed = ParseDataFileName(BaseName(s.path));
      if (parsed && parsed->is_log && s.num_records == 0 && s.num_inserts == 0 && s.num_updates == 0 &&
          s.num_deletes > 0) {
        deletes_only.insert(s.path);
      }
    }
  };
  for (const auto& c : commits) note_deletes_only(c.metadata.write_stats);
  std::map<std::string, std::vector<std::string>> out;
  auto add = [&](const std::string& partition, const std::string& path) {
    if (!deletes_only.count(path)) out[partition].emplace_back(BaseName(path));
  };
  const FileSystemView view = FileSystemView::Build(commits);
  for (const auto& partition : view.Partitions()) {
    if (only != nullptr && !only->count(partition)) continue;
    out.try_emplace(partition);
    for (const FileGroup* g : view.LiveFileGroupsIn(partition)) {
      const FileSlice& slice = g->latest();
      if (slice.base_file) add(partition, slice.base_file->path);
      for (const auto& log : slice.log_files) add(partition, log);
    }
  }
  if (changes != nullptr) {
    if (changes->written != nullptr) note_deletes_only(changes->written->write_stats);
    for (const auto& [partition, names] : changes->files_added) {
      if (only != nullptr && !only->count(partition)) continue;
      for (const auto& [name, size] : names) {
        auto parsed = ParseDataFileName(name);
        if (parsed && IsStatsDataFile(*parsed, name)) add(partition, JoinPath(partition, name));
      }
    }
  }
  return out;
}

/// Builds one partition at an index-init instant. The partition must be listed in flight.
Status BuildPartition(TableContext& ctx, Storage& mdt, const std::string& partition, const LockGuard& guard,
                      bool refuse_twins) {
  ARROW_RETURN_NOT_OK(EnsureMetadataTable(ctx, mdt, partition));
  ARROW_ASSIGN_OR_RAISE(auto timeline, Timeline::Load(mdt, kMetadataTimeline));
  ARROW_ASSIGN_OR_RAISE(auto time, NextInitInstant(timeline));
  std::vector<std::pair<std::string, std::string>> files;
  if (IsSecondaryIndexPartition(partition)) {
    ARROW_ASSIGN_OR_RAISE(auto defs, LoadTableIndexDefinitions(ctx));
    std::string why;
    auto spec = MaintainableSecondaryIndex(ctx, defs, partition, &why);
    if (!spec) return Status::Invalid("cannot build ", partition, " of ", ctx.uri, ": ", why);
    ARROW_ASSIGN_OR_RAISE(auto entries, SecondaryIndexBuildEntries(ctx, *spec, refuse_twins));
    ARROW_RETURN_NOT_OK(AddBaseFiles(partition, time, std::move(entries), ctx.metadata.secondary_index_groups,
                                     *ctx.engine, &files, spec->by_secondary_key));
  } else if (partition == kMetadataRecordIndex) {
    ARROW_ASSIGN_OR_RAISE(auto stored, ScanRecordLocations(ctx, refuse_twins));
    std::vector<RecordIndexEntry> located;
    located.reserve(stored.size());
    for (auto& [key, loc] : stored) located.push_back({key, loc.partition, loc.file_id});
    const int64_t groups = RecordIndexGroupCount(ctx.metadata, static_cast<int64_t>(located.size()));
    ARROW_ASSIGN_OR_RAISE(auto buckets, RecordIndexBuckets(located, ctx.clock->NowMs(), groups, *ctx.engine));
    ARROW_RETURN_NOT_OK(AddBaseFiles(partition, time, buckets, *ctx.engine, &files));
  } else {
    ARROW_ASSIGN_OR_RAISE(auto data_timeline, ctx.LoadTimeline());
    ARROW_ASSIGN_OR_RAISE(auto commits, ctx.LoadCommits(data_timeline));
    const auto committed = CommittedFiles(commits);
    if (partition == kMetadataFiles) {
      ARROW_RETURN_NOT_OK(AddBaseFiles(partition, time, FilesRecords(committed, true), 1, *ctx.engine, &files));
    } else if (partition == kMetadataPartitionStats) {
      // From the column_stats partition, which a build of both makes first.
      ARROW_ASSIGN_OR_RAISE(auto entries, PartitionStatsEntries(ctx, PartitionStatsFiles(commits, nullptr, nullptr), {},
                                                                data_timeline));
      ARROW_RETURN_NOT_OK(AddBaseFiles(partition, time, std::move(entries),
                                       std::max<int64_t>(1, ctx.metadata.partition_stats_groups), *ctx.engine, &files));
    } else {
      const bool bloom = partition == kMetadataBloomFilters;
      ARROW_ASSIGN_OR_RAISE(auto derived, ReadFileEntries(ctx, committed, {}, bloom, !bloom));
      const int64_t groups = bloom ? ctx.metadata.bloom_filter_groups : ctx.metadata.column_stats_groups;
      ARROW_RETURN_NOT_OK(AddBaseFiles(partition, time, bloom ? std::move(derived.bloom_filters) : std::move(derived.column_stats),
                                       std::max<int64_t>(1, groups), *ctx.engine, &files));
    }
  }
  return WriteMetadataInstant(ctx, mdt, time, actions::kDeltaCommit, "bulk_insert", files, timeline.LastTime(), guard)
      .status();
}

/// Deletes the folder `folder` of `storage` ("" for all of it) with everything in it, files
/// first, then the emptied folders deepest first.
Status DeleteTree(Storage& storage, const std::string& folder) {
  ARROW_ASSIGN_OR_RAISE(auto entries, storage.List(folder, /*recursive=*/true));
  std::vector<std::string> files;
  std::set<std::string> folders;  // every folder below `folder` that holds something
  for (const auto& e : entries) {
    if (!e.is_dir) files.push_back(e.path);
    for (size_t slash = e.path.rfind('/'); slash != std::string::npos && slash > folder.size();
         slash = e.path.rfind('/', slash - 1)) {
      folders.insert(e.path.substr(0, slash));
    }
    if (e.is_dir) folders.insert(e.path);
  }
  if (!files.empty()) ARROW_RETURN_NOT_OK(storage.DeleteFiles(files).status());
  std::vector<std::string> dirs(folders.begin(), folders.end());
  std::sort(dirs.begin(), dirs.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const auto& d : dirs) ARROW_RETURN_NOT_OK(storage.DeleteDirIfEmpty(d).status());
  if (!folder.empty()) ARROW_RETURN_NOT_OK(storage.DeleteDirIfEmpty(folder).status());
  return Status::OK();
}

/// Deletes a partition's folder (the properties no longer list it).
Status DeletePartitionFiles(Storage& mdt, const std::string& partition) { return DeleteTree(mdt, partition); }

/// Deletes the whole metadata table (no partition is listed any more).
Status DeleteMetadataTable(TableContext& ctx) { return DeleteTree(*ctx.storage, kMetadataFolder); }

/// True when a metadata compaction is due and safe: `max` deltacommits completed since the last
/// compaction (or build), and every one of them belongs to a data instant that is completed or
/// gone (none pending: its entries could not be judged yet).
bool CompactionDue(const Timeline& mdt_timeline, const Timeline& data_timeline, int64_t max) {
  std::string last_base;
  for (const auto& i : mdt_timeline.instants()) {
    if (!i.is_completed()) continue;
    if (i.action == actions::kCommit || IsIndexInitTime(i.time)) {
      last_base = std::max(last_base, i.completion_time);
    }
  }
  int64_t since = 0;
  for (const auto& i : mdt_timeline.instants()) {
    if (!i.is_completed() || i.action != actions::kDeltaCommit || i.completion_time <= last_base) continue;
    if (IsIndexInitTime(i.time)) continue;
    auto data = data_timeline.Find(i.time);
    if (data && !data->is_completed()) return false;
    ++since;
  }
  return since >= max;
}

/// True when a log file of `slice` was written at one of `instants`.
bool HasLogOf(const FileSlice& slice, const std::set<std::string>& instants) {
  if (instants.empty()) return false;
  for (const auto& log : slice.log_files) {
    auto parsed = ParseDataFileName(BaseName(log));
    if (parsed && instants.count(parsed->instant_time) > 0) return true;
  }
  return false;
}

/// Folds the valid entries of the file groups worth it (the files partition's; groups whose
/// logs reach a quarter of their base, or hold a log of an instant in `due`, which the metadata
/// archival would move but for that log) into new base files at a new instant, then deletes the
/// files of slices older than the one it replaces (readers that listed before it still find
/// theirs). Returns the compaction's time, or "" when no group was worth rewriting.
Result<std::string> CompactMetadataTable(TableContext& ctx, Storage& mdt,
                                         const Timeline& mdt_timeline, const Timeline& data_timeline,
                                         const std::vector<std::string>& partitions,
                                         const std::set<std::string>& due, const LockGuard& guard) {
  ARROW_ASSIGN_OR_RAISE(std::string time,
                        NextInstantTime(ctx.clock->NowMs(), LatestTime({&mdt_timeline, &data_timeline})));
  const auto valid = ValidDataInstants(data_timeline);
  std::vector<std::pair<std::string, std::string>> files;
  std::vector<std::string> obsolete;
  for (const auto& partition : partitions) {
    ARROW_ASSIGN_OR_RAISE(auto slices, LoadMetadataPartitionSlices(mdt, partition));
    const auto all_groups = slices.view.LiveFileGroupsIn(partition);
    const auto count = static_cast<int64_t>(all_groups.size());
    if (count == 0) continue;
    // The groups worth rewriting: a compaction costs the group's size, so a group is compacted
    // once its logs reach a quarter of its base (or hold many files), and the cost of keeping
    // the metadata table compact grows with what the writes add, not with the table; and once
    // one of its logs is all that keeps an instant on the active metadata timeline, so that
    // timeline stays short (at most one rewrite of each group per hoodie.keep.max.commits).
    std::vector<const FileGroup*> groups;
    for (const FileGroup* g : all_groups) {
      const FileSlice& latest = g->latest();
      int64_t log_bytes = 0;
      for (const auto& log : latest.log_files) {
        auto size = slices.sizes.find(log);
        log_bytes += size == slices.sizes.end() ? 0 : size->second;
      }
      const int64_t base_bytes = latest.base_file ? latest.base_file->size : 0;
      const bool worth = partition == kMetadataFiles || log_bytes * 4 >= base_bytes ||
                         static_cast<int64_t>(latest.log_files.size()) >= 4 * ctx.metadata.compact_max_delta_commits ||
                         HasLogOf(latest, due);
      if (!latest.log_files.empty() && worth) groups.push_back(g);
    }
    // Hashing keys to groups needs every group: a partially compacted partition keeps the rest.
    if (partition != kMetadataFiles && groups.empty()) continue;
    if (partition == kMetadataFiles) groups = all_groups;
    // The compacted groups keep their latest slice (replaced now) and lose the older ones.
    auto retire = [&](const std::vector<const FileGroup*>& compacted) {
      for (const FileGroup* g : compacted) {
        for (size_t s = 0; s + 1 < g->slices.size(); ++s) {
          if (g->slices[s].base_file) obsolete.push_back(g->slices[s].base_file->path);
          for (const auto& log : g->slices[s].log_files) obsolete.push_back(log);
        }
      }
    };
    if (partition != kMetadataFiles) {
      // The record index and the bloom filters: each file group streamed into its new base file
      // (its values copied, the latest of each key), the groups in parallel; files of another
      // layout than the one written here are decoded and re-encoded below instead.
      ARROW_ASSIGN_OR_RAISE(auto schema, format::MetadataRecordSchema());
      auto merged = ctx.engine->Map<std::string>(static_cast<int64_t>(groups.size()), [&](int64_t g) {
        return CompactMetadataFileGroup(mdt, slices, *groups[static_cast<size_t>(g)], valid,
                                        HFileOptions(BaseFileUse(partition)), schema,
                                        IsStatsPartition(partition));
      });
      if (merged.ok()) {
        for (size_t g = 0; g < groups.size(); ++g) {
          files.emplace_back(BasePath(partition, groups[g]->file_id, time), std::move((*merged)[g]));
        }
        retire(groups);
        continue;
      }
      if (!IsError(merged.status(), ErrorKind::kUnsupportedFeature)) return merged.status();
    }
    Entries entries;
    if (partition == kMetadataFiles) {
      ARROW_ASSIGN_OR_RAISE(auto listing, ReadMetadataFiles(ctx.storage, *ctx.engine, valid));
      entries = FilesRecords(listing.files, true);
    } else if (partition == kMetadataRecordIndex) {
      ARROW_ASSIGN_OR_RAISE(auto index, ReadMetadataRecordIndex(ctx.storage, *ctx.engine, valid));
      entries.reserve(index.size());
      // Each entry keeps the instant it was first written at.
      for (auto& [key, loc] : index) {
        entries.emplace_back(key, format::EncodeRecordIndexRecord(key, loc.partition(), loc.file_id(), loc.instant_ms));
      }
    } else if (IsSecondaryIndexPartition(partition)) {
      continue;  // another layout's secondary index: left as it is (readers merge its logs)
    } else if (IsStatsPartition(partition)) {
      return UnsupportedFeature("the " + partition + " partition of " + ctx.uri +
                                " holds values of another layout than this build writes; drop it and build it again");
    } else {
      ARROW_ASSIGN_OR_RAISE(auto filters, ReadMetadataBloomFilters(ctx.storage, *ctx.engine, valid));
      for (auto& [key, f] : filters) {
        entries.emplace_back(key, format::EncodeBloomFilterRecord(key, f.type_code, f.instant_time, f.serialized));
      }
    }
    // Decoded and re-encoded, the partition is rewritten whole.
    ARROW_RETURN_NOT_OK(AddBaseFiles(partition, time, std::move(entries), count, *ctx.engine, &files));
    retire(all_groups);
  }
  if (files.empty()) return std::string();  // nothing worth rewriting yet
  ARROW_RETURN_NOT_OK(WriteMetadataInstant(ctx, mdt, time, actions::kCommit, "compact", files,
                                           LatestTime({&mdt_timeline, &data_timeline}), guard)
                          .status());
  // Cleaning: what the compaction made unreachable for any reader that lists from now on.
  if (!obsolete.empty()) ARROW_RETURN_NOT_OK(mdt.DeleteFiles(obsolete).status());
  return time;
}

}  // namespace

void AddWrittenFiles(const CommitMetadata& metadata, MetadataChanges* changes) {
  for (const auto& s : metadata.write_stats) {
    if (s.path.empty()) continue;
    changes->files_added[s.partition][std::string(BaseName(s.path))] = s.file_size;
    if (s.column_stats) changes->log_column_stats[s.path] = *s.column_stats;
  }
}

Status AddRelocatedKeys(TableContext& ctx, const CommitMetadata& metadata, MetadataChanges* changes) {
  for (const auto& s : metadata.write_stats) {
    auto parsed = ParseDataFileName(BaseName(s.path));
    if (s.path.empty() || !parsed || parsed->is_log) continue;
    ARROW_ASSIGN_OR_RAISE(auto keys, ReadBaseFile(*ctx.storage, s.path, {meta_columns::kRecordKey}, s.file_size));
    if (keys->num_columns() != 1 || keys->column(0)->type()->id() != arrow::Type::STRING) {
      return CorruptMetadata("base file '" + s.path + "' has no string column " + meta_columns::kRecordKey);
    }
    for (const auto& chunk : keys->column(0)->chunks()) {
      const auto& arr = static_cast<const arrow::StringArray&>(*chunk);
      for (int64_t i = 0; i < arr.length(); ++i) {
        if (!arr.IsNull(i)) changes->keys_located.push_back({std::string(arr.GetView(i)), s.partition, s.file_id});
      }
    }
  }
  return Status::OK();
}

Status BuildMetadataPartitions(TableContext& ctx, const std::vector<std::string>& partitions, const LockGuard& guard,
                               bool refuse_twins) {
  ARROW_ASSIGN_OR_RAISE(auto config, HoodieTableConfig::Load(*ctx.storage));
  std::vector<std::string> built = config.metadata_partitions, inflight = config.metadata_partitions_inflight;
  std::vector<std::string> todo;
  for (const auto& p : partitions) {
    if (!KeptCurrentByLakeshore(p) && !IsSecondaryIndexPartition(p)) {
      return Status::Invalid("this build maintains the metadata partitions files, record_index, bloom_filters, "
                             "column_stats, partition_stats and secondary indexes (secondary_index_<name>), not '",
                             p, "'");
    }
    // partition_stats is computed from column_stats: that is built before it when missing.
    if (p == kMetadataPartitionStats && !Contains(built, kMetadataColumnStats) && !Contains(todo, kMetadataColumnStats)) {
      todo.push_back(kMetadataColumnStats);
    }
    if (!Contains(built, p) && !Contains(todo, p)) todo.push_back(p);
  }
  // The files partition first: every other one is kept beside it.
  std::sort(todo.begin(), todo.end(), [](const std::string& a, const std::string& b) {
    return (a == kMetadataFiles) > (b == kMetadataFiles);
  });
  if (!todo.empty() && todo.front() != kMetadataFiles && !Contains(built, kMetadataFiles)) {
    todo.insert(todo.begin(), kMetadataFiles);
  }
  if (todo.empty()) return Status::OK();
  ARROW_ASSIGN_OR_RAISE(auto mdt, MetadataStorage(ctx));
  // The build runs in an `indexing` instant of the data timeline (one a crash left pending is
  // settled first: its partitions, if still listed in flight, start over below).
  ARROW_ASSIGN_OR_RAISE(auto data_timeline, ctx.LoadTimeline());
  auto unlist = [&](const std::vector<std::string>& parts) -> Status {
    ARROW_RETURN_NOT_OK(DropMetadataPartitions(ctx, parts, guard));
    for (const auto& p : parts) {
      if (auto at = std::find(inflight.begin(), inflight.end(), p); at != inflight.end()) inflight.erase(at);
    }
    return Status::OK();
  };
  ARROW_RETURN_NOT_OK(RecoverCrashedIndexing(ctx, data_timeline, built, guard, unlist).status());
  ARROW_ASSIGN_OR_RAISE(auto indexing, IndexingInstant::Start(ctx, data_timeline, todo, guard));
  for (const auto& p : todo) {
    // A build starts on an empty folder: one a crash left in flight starts over, and a drop
    // that failed after it unlisted the partition left files no one reads, which a build with
    // another group count would mix with its own (lookups then hash keys over both).
    ARROW_RETURN_NOT_OK(guard.CheckHeld());
    ARROW_RETURN_NOT_OK(DeletePartitionFiles(*mdt, p));
    if (!Contains(inflight, p)) inflight.push_back(p);
    ARROW_RETURN_NOT_OK(WriteMetadataPartitionLists(ctx, built, inflight));
    ARROW_RETURN_NOT_OK(BuildPartition(ctx, *mdt, p, guard, refuse_twins));
    inflight.erase(std::find(inflight.begin(), inflight.end(), p));
    built.push_back(p);
    ARROW_RETURN_NOT_OK(WriteMetadataPartitionLists(ctx, built, inflight));
  }
  return indexing.Complete(ctx, guard);
}

bool KeptCurrentByLakeshore(const std::string& partition) {
  return partition == kMetadataFiles || partition == kMetadataRecordIndex || partition == kMetadataBloomFilters ||
         partition == kMetadataColumnStats || partition == kMetadataPartitionStats;
}

Status DropMetadataPartitions(TableContext& ctx, const std::vector<std::string>& partitions, const LockGuard& guard) {
  ARROW_ASSIGN_OR_RAISE(auto config, HoodieTableConfig::Load(*ctx.storage));
  std::vector<std::string> built, inflight;
  std::vector<std::string> dropped;
  // Every other partition rests on `files`: dropping it drops them all; partition_stats rests on
  // column_stats, which it is computed from.
  const bool all = Contains(partitions, kMetadataFiles);
  const bool stats = Contains(partitions, kMetadataColumnStats);
  auto goes = [&](const std::string& p) { return all || Contains(partitions, p) || (stats && p == kMetadataPartitionStats); };
  for (const auto& p : config.metadata_partitions) (goes(p) ? dropped : built).push_back(p);
  for (const auto& p : config.metadata_partitions_inflight) (goes(p) ? dropped : inflight).push_back(p);
  if (dropped.empty()) return Status::OK();
  ARROW_RETURN_NOT_OK(guard.CheckHeld());
  ARROW_RETURN_NOT_OK(WriteMetadataPartitionLists(ctx, built, inflight));
  ARROW_ASSIGN_OR_RAISE(auto mdt, MetadataStorage(ctx));
  if (built.empty() && inflight.empty()) return DeleteMetadataTable(ctx);
  for (const auto& p : dropped) ARROW_RETURN_NOT_OK(DeletePartitionFiles(*mdt, p));
  return Status::OK();
}

Result<std::string> UpdateMetadataTable(TableContext& ctx, const std::string& instant_time,
                                        MetadataChanges& changes, const Timeline& data_timeline,
                                        const LockGuard& guard) {
  ARROW_ASSIGN_OR_RAISE(auto config, HoodieTableConfig::Load(*ctx.storage));
  // A secondary index is kept current when its definition is one this build can maintain; a
  // replace operation (which ends file groups without listing their records) or a restore
  // drops it, to be rebuilt by the next write from its definition, as the record index is.
  // Hudi and Lakeshore name the file in hoodie.properties whenever they write definitions, so a
  // table without the key has none: no read per commit.
  std::map<std::string, IndexDefinition> defs;
  if (config.properties.Get(kIndexDefinitionsPathKey)) {
    ARROW_ASSIGN_OR_RAISE(defs, LoadIndexDefinitions(*ctx.storage, IndexDefinitionsPath(&config)));
  }
  std::map<std::string, SecondaryIndexSpec> secondary;
  for (const auto& [name, def] : defs) {
    std::string why;
    if (auto spec = MaintainableSecondaryIndex(ctx, defs, name, &why)) secondary.emplace(name, *spec);
  }
  const bool wants_any = ctx.metadata.enable || ctx.metadata.record_index || ctx.metadata.bloom_filters ||
                         ctx.metadata.column_stats || !secondary.empty();
  if (config.metadata_partitions.empty() && config.metadata_partitions_inflight.empty() && !wants_any) {
    return std::string();
  }
  // Partitions this build does not keep current, and builds a crash interrupted: dropped
  // before this write could make them stale.
  std::vector<std::string> drop;
  for (const auto& p : config.metadata_partitions) {
    const bool kept_secondary = secondary.count(p) > 0 && !changes.keys_unknown;
    if (!KeptCurrentByLakeshore(p) && !kept_secondary) drop.push_back(p);
  }
  // A partition in flight that this build neither keeps current nor left pending itself is
  // another writer's build (Hudi's async indexer) that began after this table was opened:
  // dropped here as a crashed build, it was erased under that writer. The write is refused.
  ARROW_ASSIGN_OR_RAISE(auto own_builds, PartitionsOfPendingLakeshoreBuilds(ctx, data_timeline));
  for (const auto& p : config.metadata_partitions_inflight) {
    if (!KeptCurrentByLakeshore(p) && !Contains(own_builds, p)) {
      return UnsupportedFeature("cannot write to table " + ctx.uri + ": its metadata partition '" + p +
                                "' is being built by another writer; this build reads it but does not write it");
    }
    drop.push_back(p);
  }
  ARROW_ASSIGN_OR_RAISE(bool settled, RecoverCrashedIndexing(ctx, data_timeline, config.metadata_partitions, guard,
                                                            [&](const std::vector<std::string>& parts) {
                                                              return DropMetadataPartitions(ctx, parts, guard);
                                                            }));
  const bool has_index = Contains(config.metadata_partitions, kMetadataRecordIndex);
  if (changes.keys_unknown && has_index) drop.push_back(kMetadataRecordIndex);
  if (!drop.empty()) ARROW_RETURN_NOT_OK(DropMetadataPartitions(ctx, drop, guard));
  std::vector<std::string> missing;  // wanted, and not built
  auto want = [&](bool wanted, const char* p) {
    if (wanted && (!drop.empty() || !Contains(config.metadata_partitions, p))) missing.push_back(p);
  };
  want(wants_any, kMetadataFiles);
  want(ctx.metadata.record_index && !changes.keys_unknown, kMetadataRecordIndex);
  want(ctx.metadata.bloom_filters, kMetadataBloomFilters);
  want(ctx.metadata.column_stats, kMetadataColumnStats);
  want(ctx.metadata.partition_stats, kMetadataPartitionStats);  // after column_stats: built from it
  for (const auto& [name, spec] : secondary) want(!changes.keys_unknown, name.c_str());
  // The record index and secondary indexes keep one place per key. Over keys an insert stored
  // twice (before the table kept keys once) a write does not build them: built, they would
  // point at one copy, and a later delete would miss the other. The write goes on tagging
  // globally, reaching every copy, until the twins are gone; create_index refuses, naming one.
  auto keeps_one_place = [](const std::string& p) { return p == kMetadataRecordIndex || IsSecondaryIndexPartition(p); };
  if (std::any_of(missing.begin(), missing.end(), keeps_one_place)) {
    auto once = ScanRecordLocations(ctx, /*refuse_twins=*/true);
    if (!once.ok() && !once.status().IsInvalid()) return once.status();
    if (!once.ok()) missing.erase(std::remove_if(missing.begin(), missing.end(), keeps_one_place), missing.end());
  }
  std::string built_latest;  // indexing instants written here: the deltacommit completes after them
  if (!missing.empty()) ARROW_RETURN_NOT_OK(BuildMetadataPartitions(ctx, missing, guard));
  if (settled || !missing.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto after_build, ctx.LoadTimeline());
    built_latest = after_build.LastTime();
  }
  // hoodie.properties changed only when something was dropped or built.
  if (!drop.empty() || !missing.empty()) {
    ARROW_ASSIGN_OR_RAISE(config, HoodieTableConfig::Load(*ctx.storage));
  }
  std::vector<std::string> partitions = config.metadata_partitions;
  if (partitions.empty()) return std::string();
  ARROW_ASSIGN_OR_RAISE(auto schema, format::MetadataRecordSchema());

  ARROW_ASSIGN_OR_RAISE(auto mdt, MetadataStorage(ctx));
  // The metadata timeline is listed once; each partition's slices are listed once from it.
  ARROW_ASSIGN_OR_RAISE(auto mdt_timeline, Timeline::Load(*mdt, kMetadataTimeline));
  std::map<std::string, MetadataPartitionSlices> listed;
  auto slices_of = [&](const std::string& partition) -> Result<const MetadataPartitionSlices*> {
    auto it = listed.find(partition);
    if (it == listed.end()) {
      ARROW_ASSIGN_OR_RAISE(auto slices, LoadMetadataPartitionSlices(*mdt, partition, &mdt_timeline));
      it = listed.emplace(partition, std::move(slices)).first;
    }
    return &it->second;
  };
  // A bloom_filters or column_stats partition another writer made in a layout this build does
  // not write (another Hudi version's wrappers): values appended or compacted here would not
  // decode under its schema. It is dropped, before it could go stale.
  std::vector<std::string> foreign;
  for (const char* p : {kMetadataBloomFilters, kMetadataColumnStats, kMetadataPartitionStats}) {
    if (!Contains(partitions, p)) continue;
    ARROW_ASSIGN_OR_RAISE(const MetadataPartitionSlices* slices, slices_of(p));
    for (const FileGroup* g : slices->view.LiveFileGroupsIn(p)) {
      ARROW_ASSIGN_OR_RAISE(auto base_schema, BaseFileSchema(ctx, *mdt, *g));
      if (!LayoutIsOurs(base_schema, schema, p)) {
        foreign.push_back(p);
        break;
      }
    }
  }
  // partition_stats is computed from column_stats: without it (another writer's table may have
  // one alone), it cannot be kept current. Dropping column_stats drops it too.
  const bool stats_kept = Contains(partitions, kMetadataColumnStats) && !Contains(foreign, kMetadataColumnStats);
  if (!stats_kept && Contains(partitions, kMetadataPartitionStats) && !Contains(foreign, kMetadataPartitionStats)) {
    foreign.push_back(kMetadataPartitionStats);
  }
  if (!foreign.empty()) {
    ARROW_RETURN_NOT_OK(DropMetadataPartitions(ctx, foreign, guard));
    partitions.erase(std::remove_if(partitions.begin(), partitions.end(),
                                    [&](const std::string& p) { return Contains(foreign, p); }),
                     partitions.end());
  }
  if (CompactionDue(mdt_timeline, data_timeline, ctx.metadata.compact_max_delta_commits)) {
    ARROW_ASSIGN_OR_RAISE(auto due, MetadataInstantsDueForArchival(ctx, mdt_timeline, data_timeline, ArchiveOptions{}));
    ARROW_ASSIGN_OR_RAISE(auto compacted, CompactMetadataTable(ctx, *mdt, mdt_timeline, data_timeline, partitions, due,
                                                               guard));
    if (!compacted.empty()) {
      // New base files: list again.
      listed.clear();
      ARROW_ASSIGN_OR_RAISE(mdt_timeline, Timeline::Load(*mdt, kMetadataTimeline));
      // The compaction deleted the slices it replaced: the instants that wrote only those may
      // now leave the active timeline.
      // Its listings are the ones this write goes on with (archival moves no partition file).
      ARROW_ASSIGN_OR_RAISE(auto archived, ArchiveMetadataTimeline(ctx, *mdt, mdt_timeline, data_timeline, partitions,
                                                                   slices_of, ArchiveOptions{}, guard));
      if (!archived.archived_instants.empty()) {
        ARROW_ASSIGN_OR_RAISE(mdt_timeline, Timeline::Load(*mdt, kMetadataTimeline));
      }
    }
  }

  std::vector<std::pair<std::string, std::string>> files;
  // The new base files' footers, read once for both the bloom filters and the column stats,
  // and the new log files' statistics.
  ARROW_ASSIGN_OR_RAISE(auto derived, ReadFileEntries(ctx, changes.files_added, changes.log_column_stats,
                                                        Contains(partitions, kMetadataBloomFilters),
                                                        Contains(partitions, kMetadataColumnStats)));
  // The partitions this instant wrote to: their statistics again, over the files of their latest
  // slices before it and the files it wrote (a superset of the slices after it, which is a bound
  // still; the next write's recomputation drops the files this one replaced).
  Entries partition_stats;
  if (Contains(partitions, kMetadataPartitionStats) && !changes.files_added.empty()) {
    std::set<std::string> touched;
    for (const auto& [p, names] : changes.files_added) {
      if (!names.empty()) touched.insert(p);
    }
    ARROW_ASSIGN_OR_RAISE(auto commits, ctx.LoadCommits(data_timeline));
    const std::map<std::string, std::string> fresh(derived.column_stats.begin(), derived.column_stats.end());
    ARROW_ASSIGN_OR_RAISE(partition_stats, PartitionStatsEntries(ctx, PartitionStatsFiles(commits, &changes, &touched),
                                                                 fresh, data_timeline));
  }
  // The secondary indexes' entries: the touched file groups' pairs before and after a write.
  std::vector<SecondaryIndexSpec> kept_secondary;
  for (const auto& p : partitions) {
    if (auto it = secondary.find(p); it != secondary.end()) kept_secondary.push_back(it->second);
  }
  std::map<std::string, Entries> secondary_entries;
  if (changes.written != nullptr && !kept_secondary.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto per_index, SecondaryIndexWriteEntries(ctx, kept_secondary, instant_time, *changes.written,
                                                                      data_timeline));
    for (size_t i = 0; i < kept_secondary.size(); ++i) {
      secondary_entries[kept_secondary[i].partition] = std::move(per_index[i]);
    }
  }
  // Per partition: the entries this instant adds and the keys it deletes, as one log file per
  // file group they hash to.
  struct GroupLog {
    std::string path;
    Entries entries;
    std::vector<LogDelete> deletes;
    std::string schema;
  };
  std::vector<GroupLog> logs;
  for (const auto& partition : partitions) {
    Entries entries;
    std::vector<std::string> removed;
    if (partition == kMetadataFiles) {
      if (!changes.files_added.empty()) entries = FilesRecords(changes.files_added, true);
    } else if (partition == kMetadataRecordIndex) {
      if (changes.list_keys) {
        ARROW_RETURN_NOT_OK(changes.list_keys(&changes));
        changes.list_keys = nullptr;
      }
      removed = changes.keys_removed;
    } else if (partition == kMetadataBloomFilters) {
      entries = std::move(derived.bloom_filters);
    } else if (partition == kMetadataColumnStats) {
      entries = std::move(derived.column_stats);
    } else if (partition == kMetadataPartitionStats) {
      entries = std::move(partition_stats);
    } else if (auto it = secondary_entries.find(partition); it != secondary_entries.end()) {
      entries = std::move(it->second);
    }
    const bool record_index = partition == kMetadataRecordIndex;
    if (entries.empty() && removed.empty() && !(record_index && !changes.keys_located.empty())) continue;
    ARROW_ASSIGN_OR_RAISE(const MetadataPartitionSlices* slices, slices_of(partition));
    const int64_t groups = static_cast<int64_t>(slices->view.LiveFileGroupsIn(partition).size());
    if (groups == 0) return CorruptMetadata("the metadata partition " + partition + " of " + ctx.uri + " has no file groups");
    auto spec = secondary.find(partition);
    std::vector<Entries> buckets;
    if (record_index) {
      ARROW_ASSIGN_OR_RAISE(int64_t instant_ms, ParseInstantTime(instant_time));
      ARROW_ASSIGN_OR_RAISE(buckets, RecordIndexBuckets(changes.keys_located, instant_ms, groups, *ctx.engine));
    } else {
      buckets = Bucket(std::move(entries), groups,
                       GroupOfPartition(partition, spec == secondary.end() || spec->second.by_secondary_key));
    }

    std::vector<std::vector<LogDelete>> deletes(static_cast<size_t>(groups));
    for (const auto& key : removed) {
      deletes[static_cast<size_t>(groups == 1 ? 0 : format::RecordIndexFileGroup(key, groups))].push_back(
          LogDelete{key, "", nullptr});
    }
    for (int64_t g = 0; g < groups; ++g) {
      auto& bucket = buckets[static_cast<size_t>(g)];
      auto& gone = deletes[static_cast<size_t>(g)];
      if (bucket.empty() && gone.empty()) continue;
      const std::string group = GroupId(partition, g);
      ARROW_ASSIGN_OR_RAISE(auto group_schema,
                            SchemaForAppend(ctx, *mdt, slices->view.Find(partition, group), schema, partition));
      logs.push_back({LogPath(partition, group, instant_time), std::move(bucket), std::move(gone), std::move(group_schema)});
    }
  }
  // Each group's log file (an HFile of its entries, a delete block) is rendered on its own:
  // side by side, since a write's record index entries fill many groups.
  std::vector<std::string> rendered(logs.size());
  ARROW_RETURN_NOT_OK(ctx.engine->ParallelFor(static_cast<int64_t>(logs.size()), [&](int64_t i) -> Status {
    GroupLog& log = logs[static_cast<size_t>(i)];
    std::string hfile;
    if (!log.entries.empty()) {
      ARROW_ASSIGN_OR_RAISE(hfile, RenderHFile(log.entries, HFileUse::kLogBlock, log.schema));
    }
    KeyedLogContent content{instant_time, log.schema, std::move(hfile), std::move(log.deletes)};
    ARROW_ASSIGN_OR_RAISE(rendered[static_cast<size_t>(i)], RenderKeyedLogFile(content));
    return Status::OK();
  }));
  for (size_t i = 0; i < logs.size(); ++i) files.emplace_back(std::move(logs[i].path), std::move(rendered[i]));
  // The deltacommit completes after everything on the metadata timeline: its completion is the
  // latest time there.
  return WriteMetadataInstant(ctx, *mdt, instant_time, actions::kDeltaCommit, "upsert", files,
                              std::max(mdt_timeline.LastTime(), built_latest), guard);
}

Status RollbackMetadataInstant(TableContext& ctx, const std::string& instant_time, const LockGuard& guard,
                               bool data_completed) {
  ARROW_ASSIGN_OR_RAISE(auto config, HoodieTableConfig::Load(*ctx.storage));
  if (config.metadata_partitions.empty() && config.metadata_partitions_inflight.empty()) return Status::OK();
  ARROW_ASSIGN_OR_RAISE(auto mdt, MetadataStorage(ctx));
  ARROW_ASSIGN_OR_RAISE(auto timeline, Timeline::Load(*mdt, kMetadataTimeline));
  auto found = timeline.Find(instant_time);
  // Never archived: metadata archival keeps every instant a rollback or restore can reach
  // (services/metadata/metadata_archival.h). Not found: the instant wrote nothing to the
  // metadata table (there was none, or it was dropped); if it had completed, a partition built
  // since may still hold its effects, and its own time then stands for when it completed (a
  // build that completed between its request and its completion did not read it: dropping
  // such one is merely cautious). A write that never completed is in no build.
  if (!found && !data_completed) return Status::OK();
  const bool completed = found ? found->is_completed() : true;
  const std::string done_at = found ? found->completion_time : instant_time;
  // A partition whose base files an instant wrote that completed after it holds its effects in
  // those files, out of reach: a compaction folded its logs in, or a build (an index-init
  // instant) read the table with it. That partition is dropped (the next write that wants it
  // builds it again); from the others its log files go.
  std::map<std::string, std::string> completion_of;  // metadata instant → completion time
  for (const auto& i : timeline.instants()) {
    if (i.is_completed()) completion_of.emplace(i.time, i.completion_time);
  }
  std::vector<std::string> logs, built_after;
  std::vector<std::string> partitions = config.metadata_partitions;
  partitions.insert(partitions.end(), config.metadata_partitions_inflight.begin(),
                    config.metadata_partitions_inflight.end());
  for (const auto& p : partitions) {
    ARROW_ASSIGN_OR_RAISE(auto entries, mdt->List(p, /*recursive=*/false));
    bool after = false;
    for (const auto& e : entries) {
      auto parsed = ParseDataFileName(BaseName(e.path));
      if (!parsed) continue;
      if (parsed->is_log && parsed->instant_time == instant_time) logs.push_back(e.path);
      auto written = completion_of.find(parsed->instant_time);
      after = after || (!parsed->is_log && completed && written != completion_of.end() && written->second > done_at);
    }
    if (after) built_after.push_back(p);
  }
  if (!built_after.empty()) {
    ARROW_RETURN_NOT_OK(DropMetadataPartitions(ctx, built_after, guard));
    ARROW_ASSIGN_OR_RAISE(config, HoodieTableConfig::Load(*ctx.storage));
    if (config.metadata_partitions.empty()) return Status::OK();  // `files` went: all of it did
    std::erase_if(logs, [&](const std::string& path) {
      return std::find(built_after.begin(), built_after.end(), path.substr(0, path.find('/'))) != built_after.end();
    });
  }
  if (!found) return Status::OK();
  if (found->is_completed()) {
    Instant done = *found;
    ARROW_RETURN_NOT_OK(mdt->DeleteFiles({kMetadataTimeline.PathOf(done)}).status());
  }
  if (!logs.empty()) ARROW_RETURN_NOT_OK(mdt->DeleteFiles(logs).status());
  Instant pending = *found;
  pending.state = InstantState::kInflight;
  return timeline_ops::DeletePendingFiles(*mdt, kMetadataTimeline, pending);
}

}  // namespace lakeshore
