#include "timeline/commit_metadata.h"

#include <nlohmann/json.hpp>

#include "format/avro_container.h"
#include "lakeshore/storage/storage.h"

namespace lakeshore {
using nlohmann::json;

std::string CommitMetadata::ToJson() const {
  json stats = json::array();
  for (const auto& s : write_stats) {
    stats.push_back({{"partition", s.partition}, {"file_id", s.file_id}, {"path", s.path},
                     {"prev_base_instant", s.prev_base_instant}, {"num_records", s.num_records},
                     {"num_inserts", s.num_inserts}, {"num_updates", s.num_updates},
                     {"num_deletes", s.num_deletes}, {"file_size", s.file_size},
                     {"min_record_key", s.min_record_key}, {"max_record_key", s.max_record_key},
                     {"retired", s.retired}});
  }
  json j = {{"operation", operation}, {"write_stats", std::move(stats)},
            {"planned_files", planned_files}, {"extra", extra}};
  return j.dump();
}

Result<CommitMetadata> CommitMetadata::FromJson(const std::string& text, const std::string& source) {
  CommitMetadata m;
  try {
    json j = json::parse(text);
    m.operation = j.at("operation").get<std::string>();
    for (const auto& s : j.at("write_stats")) {
      WriteStat w;
      w.partition = s.at("partition").get<std::string>();
      w.file_id = s.at("file_id").get<std::string>();
      w.path = s.at("path").get<std::string>();
      w.prev_base_instant = s.at("prev_base_instant").get<std::string>();
      w.num_records = s.at("num_records").get<int64_t>();
      w.num_inserts = s.at("num_inserts").get<int64_t>();
      w.num_updates = s.at("num_updates").get<int64_t>();
      w.num_deletes = s.at("num_deletes").get<int64_t>();
      w.file_size = s.at("file_size").get<int64_t>();
      w.min_record_key = s.value("min_record_key", std::string());
      w.max_record_key = s.value("max_record_key", std::string());
      w.retired = s.value("retired", false);
      m.write_stats.push_back(std::move(w));
    }
    m.planned_files = j.value("planned_files", std::vector<std::string>());
    m.extra = j.value("extra", std::map<std::string, std::string>());
  } catch (const json::exception& e) {
    return CorruptMetadata("instant file '" + source + "' is corrupt or truncated: " + e.what());
  }
  return m;
}

}  // namespace lakeshore

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
