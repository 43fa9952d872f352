// Internal: the keys of Hudi's metadata table partitions (RFC-37), byte-exact with Hudi's
// HoodieMetadataPayload and org.apache.hudi.common.util.hash.HashID.
//
// A partition or column name is hashed with XXH64 under the seed 0xdabadaba — a Java int passed
// to a long parameter, so the seed is 0xffffffffdabadaba — and the 8 hash bytes, big-endian,
// are base64-encoded (with padding: 12 characters). A file name is hashed with MD5 and its 16
// bytes base64-encoded (24 characters). A non-partitioned table's partition is named ".".
//   bloom_filters:   PartitionIndexId(partition) + FileIndexId(file name)
//   column_stats:    ColumnIndexId(column) + PartitionIndexId(partition) + FileIndexId(file name)
//   partition_stats: ColumnIndexId(column) + PartitionIndexId(partition)
//   files:           the partition path itself ("__all_partitions__" lists the partitions)
//   record_index:    the record key
//   secondary_index_<name>: escape(secondary key) + "$" + escape(record key), where escape puts
//                    a backslash before '\\', '$' and NUL, and a null value is the one character
//                    NUL (Hudi's SecondaryIndexKeyUtils)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "lakeshore/status.h"

namespace lakeshore::format {

/// The name the metadata table gives a partition path: "." for the non-partitioned "".
std::string MetadataPartitionName(std::string_view partition_path);

/// Hudi's PartitionIndexID(MetadataPartitionName(partition_path)).asBase64EncodedString().
std::string PartitionIndexId(std::string_view partition_path);
/// Hudi's ColumnIndexID(column).asBase64EncodedString().
std::string ColumnIndexId(std::string_view column);
/// Hudi's FileIndexID(file_name).asBase64EncodedString() (the file name, no folder).
std::string FileIndexId(std::string_view file_name);

/// The bloom_filters key of a base file.
std::string BloomFilterIndexKey(std::string_view partition_path, std::string_view file_name);
/// The column_stats key of a column of a data file.
std::string ColumnStatsIndexKey(std::string_view partition_path, std::string_view file_name, std::string_view column);
/// The partition_stats key of a column of a partition.
std::string PartitionStatsIndexKey(std::string_view partition_path, std::string_view column);

/// The record_index file group a record key belongs to, of `num_groups` (Hudi's
/// mapRecordKeyToFileGroupIndex: Java's String.hashCode over the key's UTF-16 code units,
/// |h| % num_groups, absolute again). A key that is not valid UTF-8 hashes its bytes as
/// Latin-1. num_groups must be positive.
int64_t RecordIndexFileGroup(std::string_view record_key, int64_t num_groups);

/// One side of a secondary index key, escaped: a backslash before '\\', '$' and NUL; a null
/// value (nullopt) is the single character NUL.
std::string EscapeSecondaryIndexPart(const std::optional<std::string>& value);

/// The prefix every entry of secondary key `secondary_key` starts with: its escaped form and
/// the separator '$' (Hudi's getEscapedSecondaryKeyPrefixFromSecondaryKey).
std::string SecondaryIndexKeyPrefix(const std::optional<std::string>& secondary_key);

/// The secondary index key of (secondary key, record key).
std::string SecondaryIndexKey(const std::optional<std::string>& secondary_key, std::string_view record_key);

/// Splits a secondary index key at its first unescaped '$' and unescapes both sides (a side that
/// is the single NUL is null). No separator → kCorruptMetadata naming the key.
Result<std::pair<std::optional<std::string>, std::optional<std::string>>> SplitSecondaryIndexKey(std::string_view key);

/// The file group of a secondary index (index version V2, table version 9) that holds the
/// entries of one secondary key: Java's String.hashCode of the key's prefix (escaped secondary
/// key and '$'), as RecordIndexFileGroup hashes. Every entry of a secondary key is in one
/// group, so a lookup reads one group.
int64_t SecondaryIndexFileGroup(const std::optional<std::string>& secondary_key, int64_t num_groups);

/// The file group of the secondary index entry `key` (a SecondaryIndexKey): by its prefix up to
/// and including the first unescaped '$' when `by_secondary_key` (index version V2), else by
/// the whole key (V1). A key without a separator hashes whole.
int64_t SecondaryIndexEntryFileGroup(std::string_view key, int64_t num_groups, bool by_secondary_key);

}  // namespace lakeshore::format
