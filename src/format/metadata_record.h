// Internal: the values of Hudi's metadata table (HoodieMetadataRecord, the Avro record every
// partition of `.hoodie/metadata` stores under its key), encoded in Avro's binary encoding by
// hand for the kinds Lakeshore writes: the `files` partition's partition list and file lists,
// and the record index's locations.
//
// The writer schema is Hudi's HoodieMetadataRecord (src/format/avro_schemas/HoodieMetadata.avsc)
// as Hudi 1.x's writers write it: the five meta fields (nullable, never set), then the fields
// Hudi 1.0 and 1.1 know: key, type, filesystemMetadata, BloomFilterMetadata,
// ColumnStatsMetadata, recordIndexMetadata, SecondaryIndexMetadata. Readers decode with the
// writer schema the HFile or log block carries, so this is what they see. The encoder writes
// those fields in order: a union as its branch index (zigzag varint) then the branch, a map as
// one block of entries then 0, a string as its length then its bytes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <arrow/scalar.h>
#include <arrow/type.h>
#include <nlohmann/json.hpp>

#include "lakeshore/status.h"

namespace lakeshore::format {

/// HoodieMetadataRecord.type, as Hudi numbers them.
enum class MetadataRecordType : int32_t {
  kPartitionList = 1,
  kFiles = 2,
  kColumnStats = 3,
  kBloomFilter = 4,
  kRecordIndex = 5,
  kPartitionStats = 6,
  kSecondaryIndex = 7,
};

/// The `files` partition's key of the partition list record.
inline constexpr std::string_view kAllPartitionsKey = "__all_partitions__";

/// One file of a `files` record: its size, or a deletion.
struct MetadataFileEntry {
  int64_t size = 0;
  bool deleted = false;
};

/// The writer schema (JSON text) of the values this file encodes. Cost: built once.
Result<std::string> MetadataRecordSchema();

/// True when values encoded here are valid under `schema_json` (another writer's schema, as a
/// base HFile of Hudi's carries it): the same top-level fields in the same order, and the same
/// fields of the file info, record index, secondary index and bloom filter records — and, with
/// `column_stats`, of the column stats record and its value wrappers (which Hudi 1.0 and 1.1
/// lay out differently; the other partitions store no column stats). Log blocks appended to
/// such a file group then carry its schema, so readers that compare base and log schemas see one.
bool IsCompatibleMetadataSchema(std::string_view schema_json, bool column_stats = false);

/// A `files` partition value: `type` kPartitionList (the entries name partitions) or kFiles
/// (file names of the partition `key`), with `files` sorted by name (a std::map).
std::string EncodeFilesRecord(std::string_view key, MetadataRecordType type,
                              const std::map<std::string, MetadataFileEntry>& files);

/// A record index value: the key lives in file group `file_id` of `partition` ("" for a
/// non-partitioned table, stored as "."), first written at `instant_ms` (epoch milliseconds).
/// A file id of the form <UUID>-<n> is stored as Hudi stores it (the UUID's two 64-bit halves
/// and n, encoding 0); any other as a string (encoding 1).
std::string EncodeRecordIndexRecord(std::string_view key, std::string_view partition, std::string_view file_id,
                                    int64_t instant_ms);

/// The bytes of a record index value after its key: one location's (`partition`, `file_id`,
/// `instant_ms`, as EncodeRecordIndexRecord takes them), the same for every key stored there.
std::string RecordIndexValueTail(std::string_view partition, std::string_view file_id, int64_t instant_ms);

/// The record index value of `key` at the location whose RecordIndexValueTail is `tail`:
/// EncodeRecordIndexRecord's bytes, with the location encoded once for all its keys.
std::string EncodeRecordIndexRecordWithTail(std::string_view key, std::string_view tail);

/// A record index value as stored: the location of one key, its texts views into the decoded
/// bytes.
struct RecordIndexValue {
  std::string_view partition; ///< as stored ("." for a non-partitioned table)
  bool uuid_file_id = false;  ///< encoding 0: the file id is <UUID from high, low>-<index>
  uint64_t high = 0, low = 0;
  int32_t index = 0;
  std::string_view file_id;   ///< encoding 1: the file id itself
  int64_t instant_ms = 0;
};

/// Decodes a record index value straight from its Avro bytes, for a writer schema that
/// IsCompatibleMetadataSchema accepts: no JSON tree, a few hundred nanoseconds a value.
/// nullopt when the bytes are not a record index value of that layout (the caller then decodes
/// with the generic Avro decoder, which names what is wrong). Its views live as long as `avro`.
std::optional<RecordIndexValue> DecodeRecordIndexValue(std::string_view avro);

/// A column_stats value: one column of one data file. `min` and `max` are Arrow scalars of the
/// column (absent: no bound); they are stored in Hudi's value wrappers (BooleanWrapper,
/// IntWrapper, LongWrapper, FloatWrapper, DoubleWrapper, BytesWrapper, StringWrapper,
/// DateWrapper, DecimalWrapper, TimestampMicrosWrapper), as Hudi's writer stores them.
struct ColumnStatsValue {
  std::shared_ptr<arrow::Scalar> min, max;
  int64_t null_count = 0;
  int64_t value_count = 0;
  int64_t total_size = 0;
  int64_t total_uncompressed_size = 0;
};

/// The statistics of one column of one data file (a base file, or a log file's records), by
/// column name: what a column_stats entry holds.
struct FileColumnStats {
  std::string column;
  ColumnStatsValue value;
};

/// True when bound `a` orders before bound `b` (Arrow's `less`, as filters compare values);
/// false when they do not compare. Folding statistics (row groups, files) keeps bounds by it.
bool BoundBefore(const std::shared_ptr<arrow::Scalar>& a, const std::shared_ptr<arrow::Scalar>& b);

/// True when the column's type has a wrapper here (booleans, integers, floats, strings,
/// binaries, dates, 128-bit decimals, timestamps of microsecond or coarser unit). A decimal
/// bound is stored as Hudi stores it, at scale 15 in 30 digits: one that does not fit is left
/// absent.
bool HasStatsWrapper(const arrow::DataType& type);

/// The statistics a column_stats record holds (`record`: the metadata record decoded to JSON by
/// the generic Avro decoder), with `min` and `max` as scalars that compare with values of the
/// column's `type`: integers as int64, floating point as double, strings, booleans, dates,
/// decimals in `type` itself (exact at its scale, else absent), and timestamps as microseconds
/// in `type`'s zone. The encoding follows the record's `valueType` (Hudi's index version V2,
/// which Spark's 1.1 writer sets: decimals as bytes at the scale its info names, timestamps in
/// the unit its ordinal names — nanoseconds rounded outwards) or, when it is absent, Hudi 1.0's
/// wrappers (DecimalWrapper at scale 15, TimestampMicrosWrapper; a timestamp column in another
/// unit than microseconds then gets no bound, since a LongWrapper would hold its own unit). A
/// value type this reader does not know gives no bounds. Bounds of another
/// type, or in a wrapper that does not fit `type`, are absent. nullopt when the record holds no
/// statistics or they are marked deleted.
std::optional<ColumnStatsValue> ColumnStatsFromRecord(const nlohmann::json& record, const arrow::DataType& type);

/// Folds a newer version of a column_stats or partition_stats record (`newer`, decoded to JSON
/// by the generic Avro decoder) into the older one, as Hudi's mergeColumnStatsRecords does: a
/// tombstone on either side, or a newer tight bound (`isTightBound`), replaces; otherwise the
/// bounds widen (min of the minimums, max of the maximums) and the counts and sizes add up.
/// Where Hudi would guess, this stays safe for pruning: bounds that cannot be compared here
/// (bytes and decimals alike are bytes in JSON, or of different kinds) become absent, and so
/// does a bound when one side has none but holds non-null values (or does not say). A record
/// without ColumnStatsMetadata on either side: the newer one.
nlohmann::json MergeColumnStatsRecords(const nlohmann::json& older, const nlohmann::json& newer);

/// The column_stats value of `column` of the file `file_name`; a min or max whose type has no
/// wrapper is stored as absent.
std::string EncodeColumnStatsRecord(std::string_view key, std::string_view file_name, std::string_view column,
                                    const ColumnStatsValue& stats);

/// A partition_stats value (key: PartitionStatsIndexKey): the statistics of `column` over the
/// files of a partition's latest slices, marked a tight bound (a later version replaces it),
/// its file name the partition's metadata name, as Spark's writer stores it.
std::string EncodePartitionStatsRecord(std::string_view key, std::string_view partition_path, std::string_view column,
                                       const ColumnStatsValue& stats);

/// A bloom_filters value (key: BloomFilterIndexKey of the base file): the file's filter as Hudi
/// stores it — the UTF-8 bytes of its serialized (Base64) form —, its type code ("DYNAMIC_V0",
/// "SIMPLE") and the instant that wrote the file.
std::string EncodeBloomFilterRecord(std::string_view key, std::string_view type_code, std::string_view instant_time,
                                    std::string_view serialized_filter);

/// A secondary index value (key: SecondaryIndexKey): HoodieSecondaryIndexInfo with
/// `is_deleted`, and the record's own key field empty, as Spark writes it (readers take the key
/// from the HFile).
std::string EncodeSecondaryIndexRecord(bool is_deleted);

/// True when the value is a bloom_filters or secondary index entry marked `isDeleted`: an entry
/// that readers skip and that compaction drops, as Hudi's does. Reads the value's head straight
/// from its Avro bytes (layouts IsCompatibleMetadataSchema accepts); false for every other
/// value, and for bytes it cannot read (the full decoders name those).
bool IsDeletionMarker(std::string_view avro);

}  // namespace lakeshore::format
