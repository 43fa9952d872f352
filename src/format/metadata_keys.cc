#include "format/metadata_keys.h"

#include <arrow/util/base64.h>
#include <xxhash.h>

#include "common/digest.h"

namespace lakeshore::format {
namespace {

/// HashID's seed: the Java int 0xdabadaba, widened to the long XXHash64 takes (sign-extended).
constexpr uint64_t kSeed = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(0xdabadabaU)));

std::string Base64(std::string_view bytes) { return arrow::util::base64_encode(bytes); }

std::string Xxh64Id(std::string_view text) {
  const uint64_t h = XXH64(text.data(), text.size(), kSeed);
  std::string be(8, '\0');
  for (int i = 0; i < 8; ++i) be[static_cast<size_t>(i)] = static_cast<char>((h >> (56 - 8 * i)) & 0xff);
  return Base64(be);
}

}  // namespace

std::string MetadataPartitionName(std::string_view partition_path) {
  return partition_path.empty() ? std::string(".") : std::string(partition_path);
}

std::string PartitionIndexId(std::string_view partition_path) { return Xxh64Id(MetadataPartitionName(partition_path)); }

std::string ColumnIndexId(std::string_view column) { return Xxh64Id(column); }

std::string FileIndexId(std::string_view file_name) { return Base64(Md5(file_name)); }

std::string BloomFilterIndexKey(std::string_view partition_path, std::string_view file_name) {
  return PartitionIndexId(partition_path) + FileIndexId(file_name);
}

std::string ColumnStatsIndexKey(std::string_view partition_path, std::string_view file_name, std::string_view column) {
  return ColumnIndexId(column) + PartitionIndexId(partition_path) + FileIndexId(file_name);
}

std::string PartitionStatsIndexKey(std::string_view partition_path, std::string_view column) {
  return ColumnIndexId(column) + PartitionIndexId(partition_path);
}

}  // namespace lakeshore::format
