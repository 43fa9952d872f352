#include "format/metadata_keys.h"

#include <xxhash.h>

#include <climits>
#include <cstdlib>
#include <vector>

#include "common/base64.h"
#include "common/digest.h"

namespace lakeshore::format {
namespace {

/// HashID's seed: the Java int 0xdabadaba, widened to the long XXHash64 takes (sign-extended).
constexpr uint64_t kSeed = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(0xdabadabaU)));

std::string Base64(std::string_view bytes) { return Base64Encode(bytes); }

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

int64_t RecordIndexFileGroup(std::string_view record_key, int64_t num_groups) {
  // Java's String.hashCode over the key's UTF-16 code units; Java's int arithmetic wraps: keep
  // 32 bits. A key of ASCII bytes has one code unit per byte; a key that is not UTF-8 is hashed
  // over its bytes. Nothing is allocated: this runs once per looked-up key.
  uint32_t bytes_hash = 0;
  bool ascii = true;
  for (char c : record_key) {
    bytes_hash = 31 * bytes_hash + static_cast<uint8_t>(c);
    ascii = ascii && static_cast<uint8_t>(c) < 0x80;
  }
  uint32_t h = bytes_hash;
  if (!ascii) {
    uint32_t units_hash = 0;
    auto add = [&units_hash](uint32_t unit) { units_hash = 31 * units_hash + unit; };
    bool utf8 = true;
    for (size_t i = 0; i < record_key.size() && utf8;) {
      const auto c = static_cast<uint8_t>(record_key[i]);
      const int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
      if (len == 0 || i + static_cast<size_t>(len) > record_key.size()) {
        utf8 = false;
        break;
      }
      uint32_t cp = len == 1 ? c : c & (0x7f >> len);
      for (int k = 1; k < len; ++k) {
        const auto cont = static_cast<uint8_t>(record_key[i + static_cast<size_t>(k)]);
        if ((cont >> 6) != 2) utf8 = false;
        cp = (cp << 6) | (cont & 0x3f);
      }
      if (cp > 0xffff) {  // a surrogate pair, as Java's UTF-16 strings hold it
        cp -= 0x10000;
        add(0xd800 + (cp >> 10));
        add(0xdc00 + (cp & 0x3ff));
      } else {
        add(cp);
      }
      i += static_cast<size_t>(len);
    }
    if (utf8) h = units_hash;
  }
  const auto signed_h = static_cast<int32_t>(h);
  // Math.abs(Integer.MIN_VALUE) is Integer.MIN_VALUE in Java; the remainder keeps its sign.
  const int64_t abs_h = signed_h == INT32_MIN ? static_cast<int64_t>(INT32_MIN) : std::abs(static_cast<int64_t>(signed_h));
  return std::abs(abs_h % num_groups);
}

std::string EscapeSecondaryIndexPart(const std::optional<std::string>& value) {
  if (!value) return std::string(1, '\0');
  std::string out;
  out.reserve(value->size() + 2);
  for (char c : *value) {
    if (c == '\\' || c == '$' || c == '\0') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

std::string SecondaryIndexKeyPrefix(const std::optional<std::string>& secondary_key) {
  return EscapeSecondaryIndexPart(secondary_key) + '$';
}

std::string SecondaryIndexKey(const std::optional<std::string>& secondary_key, std::string_view record_key) {
  return SecondaryIndexKeyPrefix(secondary_key) + EscapeSecondaryIndexPart(std::string(record_key));
}

namespace {
std::optional<std::string> Unescape(std::string_view part) {
  if (part.size() == 1 && part[0] == '\0') return std::nullopt;
  std::string out;
  out.reserve(part.size());
  bool escaped = false;
  for (char c : part) {
    if (!escaped && c == '\\') {
      escaped = true;
      continue;
    }
    escaped = false;
    out.push_back(c);
  }
  return out;
}

/// The position of the first unescaped '$' of a secondary index key.
std::optional<size_t> SecondaryIndexSeparator(std::string_view key) {
  bool escaped = false;
  for (size_t i = 0; i < key.size(); ++i) {
    if (key[i] == '\\' && !escaped) {
      escaped = true;
    } else if (key[i] == '$' && !escaped) {
      return i;
    } else {
      escaped = false;
    }
  }
  return std::nullopt;
}
}  // namespace

Result<std::pair<std::optional<std::string>, std::optional<std::string>>> SplitSecondaryIndexKey(std::string_view key) {
  auto at = SecondaryIndexSeparator(key);
  if (!at) return CorruptMetadata("secondary index key '" + std::string(key) + "' has no unescaped '$' separator");
  return std::make_pair(Unescape(key.substr(0, *at)), Unescape(key.substr(*at + 1)));
}

int64_t SecondaryIndexFileGroup(const std::optional<std::string>& secondary_key, int64_t num_groups) {
  return RecordIndexFileGroup(SecondaryIndexKeyPrefix(secondary_key), num_groups);
}

int64_t SecondaryIndexEntryFileGroup(std::string_view key, int64_t num_groups, bool by_secondary_key) {
  auto at = by_secondary_key ? SecondaryIndexSeparator(key) : std::nullopt;
  return RecordIndexFileGroup(at ? key.substr(0, *at + 1) : key, num_groups);
}

}  // namespace lakeshore::format
