#include "index/record_index.h"

#include <chrono>
#include <set>

#include "index/bloom_index.h"
#include "index/simple_index.h"
#include "io/metadata_files.h"

namespace lakeshore {

Result<std::unique_ptr<Index>> MakeIndex(const std::string& type) {
  if (type == "SIMPLE") return std::unique_ptr<Index>(std::make_unique<SimpleIndex>());
  if (type == "GLOBAL_SIMPLE") return std::unique_ptr<Index>(std::make_unique<SimpleIndex>(/*global=*/true));
  if (type == "BLOOM") return std::unique_ptr<Index>(std::make_unique<BloomIndex>(BloomIndexSettings{}));
  if (type == "GLOBAL_BLOOM") return std::unique_ptr<Index>(std::make_unique<BloomIndex>(BloomIndexSettings{}, true));
  return Status::Invalid("unknown index type '", type, "'");
}

Result<KeyLocations> RecordIndex::TagLocations(const KeysToTag& keys,
                                                                          const FileSystemView& view, Storage&,
                                                                          Engine& engine) {
  const auto& record_keys = *keys.record_keys;
  KeyLocations out;
  out.file_ids.resize(record_keys.size());
  StartMetrics(keys);
  ARROW_RETURN_NOT_OK(CheckKeysUnique(keys));
  std::vector<std::string_view> wanted;  // views of the batch's keys, which outlive the lookup
  wanted.reserve(keys.rows.size());
  for (int64_t r : keys.rows) wanted.push_back(record_keys[static_cast<size_t>(r)]);
  ARROW_ASSIGN_OR_RAISE(auto found, LookupMetadataRecordIndex(table_, engine, keys.is_valid_data_instant, wanted));
  for (size_t w = 0; w < keys.rows.size(); ++w) {
    if (!found[w]) continue;
    const RecordLocation& location = *found[w];
    ARROW_ASSIGN_OR_RAISE(const int64_t r, RowTakingCopy(keys, keys.rows[w], location.partition()));
    if (r < 0) continue;
    const std::string& partition = keys.partitions->PathOf(r);
    // A location the view no longer holds live (its group was replaced meanwhile) is stale.
    const FileGroup* group = view.Find(partition, location.file_id());
    if (group == nullptr || !group->is_live()) {
      return CorruptMetadata("the record index places key '" + std::string(wanted[w]) + "' in file group " +
                             location.file_id() + " of partition '" + partition +
                             "', which the table does not hold live; rebuild the index (lakeshore index drop, then "
                             "build)");
    }
    out.file_ids[static_cast<size_t>(r)] = location.file_id();  // one location per key
  }
  ARROW_RETURN_NOT_OK(CheckDeletesFound(keys, out));
  FinishMetrics(out);
  return out;
}

}  // namespace lakeshore
