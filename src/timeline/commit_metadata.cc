#include "timeline/commit_metadata.h"

#include <nlohmann/json.hpp>

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
