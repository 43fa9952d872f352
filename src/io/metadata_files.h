// Internal: reading the `files` partition of Hudi's metadata table (`.hoodie/metadata`, itself a
// merge-on-read Hudi table with HFile base files and HFile log blocks): which partitions the
// data table has and which files each holds, with sizes, without listing storage.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "lakeshore/engine/engine.h"
#include "lakeshore/status.h"
#include "format/hfile_writer.h"
#include "lakeshore/storage/storage.h"
#include "table/file_system_view.h"
#include "timeline/timeline.h"

namespace lakeshore {

/// Where the metadata table lives: its folder in the data table, and its timeline and LSM
/// history relative to that folder.
inline constexpr const char* kMetadataFolder = ".hoodie/metadata";
inline const TimelineLocation kMetadataTimeline{".hoodie/timeline", TimelineLayout::kV2};
inline constexpr const char* kMetadataArchiveFolder = ".hoodie/timeline/history";

/// True for Hudi's index-init instant times, "00000000000000<NNN>" (SOLO_COMMIT_TIMESTAMP and a
/// counter): a partition build's base files carry them, and readers take them as valid.
bool IsIndexInitTime(std::string_view time);

/// The data table's files as the metadata table lists them.
struct MetadataFileListing {
  /// Partition path ("" for a non-partitioned table) → file name → size in bytes.
  std::map<std::string, std::map<std::string, int64_t>> files;
};

/// The file slices of one partition of the metadata table, as Hudi's readers see them: from one
/// listing of the partition folder and of the metadata timeline (not from commit metadata, so
/// the cost does not grow with the metadata timeline's history). Files of instants that did not
/// complete on the metadata timeline are left out; log files join slices by completion time.
struct MetadataPartitionSlices {
  Timeline timeline;
  std::set<std::string> completed;  ///< instants completed on the metadata timeline
  FileSystemView view;
  std::map<std::string, int64_t> sizes;  ///< path → bytes, of every file the view holds
};

/// Hudi's valid-instants filter over the data timeline: a metadata entry written at a data
/// instant's time counts once that instant completed. An instant the active timeline does not
/// hold counts when it is older than the earliest write instant there (commit, deltacommit,
/// replacecommit, or a pending compaction or clustering): archival moves write instants oldest
/// first, with the cleans and rollbacks older than them, so it was archived; and so do the
/// metadata table's index-init instants (older than any). Instants of other actions that stay
/// active (an `indexing` instant, a savepoint) do not hold that horizon back. With no write on
/// the active timeline (all archived, the last rolled back) every instant it does not hold
/// counts: a rollback removes the metadata deltacommit of the write it undoes before it
/// completes, and the next writer resumes a pending one before it tags.
std::function<bool(const std::string&)> ValidDataInstants(const Timeline& data_timeline);

/// Lists partition `partition` of the metadata table on `mdt` (storage rooted at
/// `.hoodie/metadata`), with the metadata timeline `timeline` when the caller listed it already.
/// Cost: one listing of the partition folder (and one of the timeline when not given).
Result<MetadataPartitionSlices> LoadMetadataPartitionSlices(Storage& mdt, const std::string& partition,
                                                            const Timeline* timeline = nullptr);

/// A file group the record index names: its partition path ("" for a non-partitioned table)
/// and file id.
struct IndexedFileGroup {
  std::string partition;
  std::string file_id;
};

/// Where the record index says a record lives. The keys of one file group share one
/// IndexedFileGroup (a lookup of many keys makes one per group and thread, not one per key).
struct RecordLocation {
  std::shared_ptr<const IndexedFileGroup> group;  ///< never null
  int64_t instant_ms = 0;  ///< when the record was first written (epoch milliseconds)

  const std::string& partition() const { return group->partition; }
  const std::string& file_id() const { return group->file_id; }
  bool operator==(const RecordLocation& other) const {
    return partition() == other.partition() && file_id() == other.file_id() && instant_ms == other.instant_ms;
  }
};

/// Reads the `record_index` partition of the metadata table under `table`: record key → its
/// location (HoodieRecordIndexInfo; a file id encoded as a UUID's two halves plus an index, or
/// as a string), the latest record of each key winning and delete blocks removing keys. Slices,
/// timeline and validity as ReadMetadataFiles. With `keys`, only those are looked up: only the
/// file groups Hudi's key hash names are read, their base HFiles probed with the sorted keys
/// (one forward pass) and only their log files read. Cost: every record_index slice once
/// (all keys), or the hit groups' logs plus the blocks holding the keys.
Result<std::map<std::string, RecordLocation>> ReadMetadataRecordIndex(
    const std::shared_ptr<Storage>& table, Engine& engine,
    const std::function<bool(const std::string&)>& is_valid_data_instant,
    const std::vector<std::string>* keys = nullptr);

/// The record index's location of each of `keys` (any order, repeats allowed), at the key's
/// position (nullopt: the index has no entry), read as ReadMetadataRecordIndex reads a
/// selection, but with no map of the keys: each file group's task sorts its own keys and puts
/// its answers in place. Cost: as ReadMetadataRecordIndex with keys; on the caller's thread,
/// nothing per key.
Result<std::vector<std::optional<RecordLocation>>> LookupMetadataRecordIndex(
    const std::shared_ptr<Storage>& table, Engine& engine,
    const std::function<bool(const std::string&)>& is_valid_data_instant, const std::vector<std::string_view>& keys);

/// Every current record of metadata partition `partition` by key, decoded (Avro → JSON as
/// format/avro_container.h maps it): the latest version of a key wins — in column_stats and
/// partition_stats, versions merge as Hudi merges them (format::MergeColumnStatsRecords: a loose
/// bound widens the older one) —, a delete block removes it, blocks of invalid instants are
/// skipped (as ReadMetadataFiles). With `keys`, only those
/// are read: the file groups Hudi's key hash names, their base HFiles probed with the sorted
/// keys. The record index and the bloom filters are read through it.
Result<std::map<std::string, nlohmann::json>> ReadMetadataRecords(
    const std::shared_ptr<Storage>& table, Engine& engine, const std::string& partition,
    const std::function<bool(const std::string&)>& is_valid_data_instant,
    const std::vector<std::string>* keys = nullptr);

/// Reads the secondary index partition `partition` (`secondary_index_<name>`): secondary key
/// (nullopt: null values) → the record keys holding it, sorted. Entries are Hudi's
/// `escape(secondary key)$escape(record key)` keys whose latest version is not marked deleted;
/// slices, timeline and validity as ReadMetadataFiles. With `secondary_keys`, only those are
/// looked up: with `hashed_by_secondary_key` (index version V2, table version 9) only each
/// one's file group (hashed by its escaped prefix) is read, else (V1) every group; in each, the
/// base HFile is scanned over the blocks the prefix can be in. Cost: the whole partition, or
/// per key one group's logs plus the blocks holding its prefix.
Result<std::map<std::optional<std::string>, std::vector<std::string>>> ReadMetadataSecondaryIndex(
    const std::shared_ptr<Storage>& table, Engine& engine, const std::string& partition,
    const std::function<bool(const std::string&)>& is_valid_data_instant,
    const std::vector<std::optional<std::string>>* secondary_keys = nullptr, bool hashed_by_secondary_key = true);

/// The bytes of a new base HFile for `group` of a metadata partition whose versions are "latest
/// wins" (record_index, bloom_filters, secondary indexes): its latest slice's base entries merged
/// in key order with its log blocks of valid instants (a later version replaces, a delete or an
/// entry marked deleted removes: format::IsDeletionMarker, dropped as Hudi drops it), streamed into
/// the writer — no decoding, no map of the whole group. Values are copied as they are, so every
/// file must hold the layout format/metadata_record.h writes (`column_stats`: including its
/// column stats layout; kUnsupportedFeature otherwise); `schema` goes in the new file's info.
/// With `column_stats`, a version replaces an older one only when it is a tight bound or a
/// tombstone (Lakeshore writes only those); a loose one (Hudi merges it into the older) is
/// kUnsupportedFeature naming the key, never a narrowed bound. Cost: one pass over the group's
/// files, plus a decode of each value that shadows another (column_stats).
Result<std::string> CompactMetadataFileGroup(Storage& mdt, const MetadataPartitionSlices& slices, const FileGroup& group,
                                             const std::function<bool(const std::string&)>& is_valid_data_instant,
                                             const format::HFileWriterOptions& options, const std::string& schema,
                                             bool column_stats = false);

/// A base file's bloom filter as the bloom_filters partition stores it.
struct MetadataBloomFilter {
  std::string type_code;     ///< "DYNAMIC_V0" or "SIMPLE"
  std::string instant_time;  ///< the instant that wrote the base file
  std::string serialized;    ///< Hudi's serialized form (Base64 text)
};

/// The bloom_filters partition: key (BloomFilterIndexKey of a base file) → its filter, for
/// `keys` only when given (entries marked deleted are left out). Cost as ReadMetadataRecords.
Result<std::map<std::string, MetadataBloomFilter>> ReadMetadataBloomFilters(
    const std::shared_ptr<Storage>& table, Engine& engine,
    const std::function<bool(const std::string&)>& is_valid_data_instant,
    const std::vector<std::string>* keys = nullptr);

/// Reads the `files` partition of the metadata table under `table` (the data table's storage):
/// the metadata table's timeline, the latest slice of each `files` file group (its HFile base
/// file, then its log files in order), merged as Hudi's HoodieMetadataPayload merges them —
/// a later record adds files (the larger size wins) and removes those it marks deleted; a
/// delete block drops a partition's record. Blocks of instants that did not complete on the
/// metadata timeline are skipped, and so are those `is_valid_data_instant` refuses (Hudi's
/// valid-instants filter: the data instant they describe must have completed; null: all).
/// A damaged file → kCorruptMetadata naming it. Cost: reads the `files` slices once.
Result<MetadataFileListing> ReadMetadataFiles(const std::shared_ptr<Storage>& table, Engine& engine,
                                              const std::function<bool(const std::string&)>& is_valid_data_instant);

}  // namespace lakeshore
