#include "table/index_definitions.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "table/layout.h"

namespace lakeshore {

Result<std::map<std::string, IndexDefinition>> ParseIndexDefinitions(std::string_view json, const std::string& source) {
  auto doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  auto corrupt = [&](const std::string& what) { return CorruptMetadata("index definitions '" + source + "': " + what); };
  if (doc.is_discarded() || !doc.is_object()) return corrupt("not a JSON object");
  std::map<std::string, IndexDefinition> out;
  auto defs = doc.find("indexDefinitions");
  if (defs == doc.end() || defs->is_null()) return out;
  if (!defs->is_object()) return corrupt("indexDefinitions is not an object");
  for (const auto& [key, value] : defs->items()) {
    if (!value.is_object()) return corrupt("the definition of '" + key + "' is not an object");
    IndexDefinition d;
    auto text = [&](const char* field, std::string* target) -> Status {
      auto it = value.find(field);
      if (it == value.end() || it->is_null()) return Status::OK();
      if (!it->is_string()) return corrupt("'" + key + "'." + field + " is not a string");
      *target = it->get<std::string>();
      return Status::OK();
    };
    ARROW_RETURN_NOT_OK(text("indexName", &d.name));
    ARROW_RETURN_NOT_OK(text("indexType", &d.type));
    ARROW_RETURN_NOT_OK(text("indexFunction", &d.function));
    ARROW_RETURN_NOT_OK(text("version", &d.version));
    if (d.name.empty()) d.name = key;
    if (d.version.empty()) d.version = "V1";
    if (auto it = value.find("sourceFields"); it != value.end() && !it->is_null()) {
      if (!it->is_array()) return corrupt("'" + key + "'.sourceFields is not a list");
      for (const auto& f : *it) {
        if (!f.is_string()) return corrupt("'" + key + "'.sourceFields holds a value that is not a string");
        d.source_fields.push_back(f.get<std::string>());
      }
    }
    if (auto it = value.find("indexOptions"); it != value.end() && !it->is_null()) {
      if (!it->is_object()) return corrupt("'" + key + "'.indexOptions is not an object");
      for (const auto& [k, v] : it->items()) {
        if (!v.is_string()) return corrupt("'" + key + "'.indexOptions." + k + " is not a string");
        d.options[k] = v.get<std::string>();
      }
    }
    out[key] = std::move(d);
  }
  return out;
}

std::string IndexDefinitionsPath(const HoodieTableConfig* config) {
  std::string path = config ? config->properties.Get(kIndexDefinitionsPathKey).value_or("") : "";
  return path.empty() ? std::string(layout::kIndexDefinitionsFile) : path;
}

Result<std::map<std::string, IndexDefinition>> LoadIndexDefinitions(Storage& table, const std::string& path) {
  const std::string where = path.empty() ? std::string(layout::kIndexDefinitionsFile) : path;
  ARROW_ASSIGN_OR_RAISE(bool exists, table.Exists(where));
  if (!exists) return std::map<std::string, IndexDefinition>();
  auto bytes = table.ReadFile(where);
  if (!bytes.ok()) return CorruptMetadata("index definitions '" + where + "' cannot be read: " + bytes.status().message());
  return ParseIndexDefinitions(std::string_view(reinterpret_cast<const char*>((*bytes)->data()),
                                                static_cast<size_t>((*bytes)->size())),
                               where);
}

Result<bool> DefinesSecondaryIndex(Storage& table, const HoodieTableConfig& config) {
  if (!config.properties.Get(kIndexDefinitionsPathKey)) return false;
  ARROW_ASSIGN_OR_RAISE(auto defs, LoadIndexDefinitions(table, IndexDefinitionsPath(&config)));
  return std::any_of(defs.begin(), defs.end(), [](const auto& d) { return d.second.type == "secondary_index"; });
}

}  // namespace lakeshore
