#include "timeline/commit_metadata.h"

#include <nlohmann/json.hpp>

#include "format/avro_container.h"
#include "lakeshore/storage/storage.h"

namespace lakeshore {
namespace {

using nlohmann::json;

std::string StringField(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int64_t IntField(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

Status FromHoodieJson(const json& j, const std::string& source, CommitMetadata* m) {
  if (!j.is_object()) return CorruptMetadata("instant file '" + source + "' is not a JSON object");
  m->operation = StringField(j, "operationType");
  if (auto it = j.find("extraMetadata"); it != j.end() && it->is_object()) {
    for (const auto& [key, value] : it->items()) {
      if (value.is_string()) m->extra[key] = value.get<std::string>();
    }
  }
  if (auto it = j.find("partitionToWriteStats"); it != j.end() && it->is_object()) {
    for (const auto& [partition, stats] : it->items()) {
      if (!stats.is_array()) return CorruptMetadata("instant file '" + source + "': write stats of partition '" + partition + "' are not a list");
      for (const auto& s : stats) {
        if (!s.is_object()) return CorruptMetadata("instant file '" + source + "': a write stat is not an object");
        WriteStat w;
        w.partition = s.contains("partitionPath") && s["partitionPath"].is_string()
                          ? s["partitionPath"].get<std::string>()
                          : partition;
        w.file_id = StringField(s, "fileId");
        w.path = StringField(s, "path");
        if (w.path.empty()) continue;  // a workload stat of an inflight file: it names no file
        if (w.file_id.empty()) {
          return CorruptMetadata("instant file '" + source + "': the write stat of '" + w.path + "' has no fileId");
        }
        auto normal = NormalizeRelativePath(w.path);
        if (!normal.ok() || *normal != w.path) {
          return PathOutsideTable("instant file '" + source + "' names file '" + w.path +
                                  "', which is not a plain path inside the table");
        }
        w.prev_base_instant = StringField(s, "prevCommit");
        if (w.prev_base_instant == "null") w.prev_base_instant.clear();
        w.num_records = IntField(s, "numWrites");
        w.num_inserts = IntField(s, "numInserts");
        w.num_updates = IntField(s, "numUpdateWrites");
        w.num_deletes = IntField(s, "numDeletes");
        w.file_size = IntField(s, "fileSizeInBytes");
        if (w.file_size == 0) w.file_size = IntField(s, "totalWriteBytes");
        m->write_stats.push_back(std::move(w));
      }
    }
  }
  if (auto it = j.find("partitionToReplaceFileIds"); it != j.end() && it->is_object()) {
    for (const auto& [partition, ids] : it->items()) {
      if (!ids.is_array()) continue;
      for (const auto& id : ids) {
        if (id.is_string()) m->replaced_file_ids[partition].push_back(id.get<std::string>());
      }
    }
  }
  return Status::OK();
}

}  // namespace

Result<CommitMetadata> CommitMetadata::FromHoodie(std::string_view content, TimelineLayout layout,
                                                  const std::string& source) {
  CommitMetadata m;
  if (content.empty()) return m;
  if (layout == TimelineLayout::kV1) {
    json j = json::parse(content.begin(), content.end(), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      return CorruptMetadata("instant file '" + source + "' is not valid JSON (corrupt or truncated)");
    }
    ARROW_RETURN_NOT_OK(FromHoodieJson(j, source, &m));
    return m;
  }
  ARROW_ASSIGN_OR_RAISE(format::AvroContainer container, format::ReadAvroContainer(content, source));
  if (container.records.size() != 1) {
    return CorruptMetadata("instant file '" + source + "' holds " +
                           std::to_string(container.records.size()) + " records, not 1");
  }
  ARROW_RETURN_NOT_OK(FromHoodieJson(container.records[0], source, &m));
  return m;
}

}  // namespace lakeshore
