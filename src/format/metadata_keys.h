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
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

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

}  // namespace lakeshore::format
