#include "format/hoodie_avro_schemas.h"

#include <map>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace lakeshore::format {
namespace internal {
const std::vector<std::pair<std::string_view, std::string_view>>& EmbeddedAvroSchemas();
}  // namespace internal

namespace {

using nlohmann::json;

bool IsPrimitive(const std::string& s) {
  for (const char* p : {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}) {
    if (s == p) return true;
  }
  return false;
}

std::string SimpleName(const std::string& name) {
  const size_t dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

bool IsNamedDefinition(const json& node) {
  if (!node.is_object()) return false;
  auto type = node.find("type");
  auto name = node.find("name");
  if (type == node.end() || !type->is_string() || name == node.end() || !name->is_string()) return false;
  const std::string t = type->get<std::string>();
  return t == "record" || t == "error" || t == "enum" || t == "fixed";
}

/// Every named type defined anywhere in `node`, by simple name.
void CollectDefinitions(const json& node, std::map<std::string, json>* out) {
  if (node.is_array()) {
    for (const auto& item : node) CollectDefinitions(item, out);
    return;
  }
  if (!node.is_object()) return;
  if (IsNamedDefinition(node)) out->emplace(SimpleName(node["name"].get<std::string>()), node);
  for (const auto& [key, value] : node.items()) {
    if (key == "fields") {
      for (const auto& field : value) {
        if (field.is_object() && field.contains("type")) CollectDefinitions(field["type"], out);
      }
    } else if (key == "type" || key == "items" || key == "values") {
      CollectDefinitions(value, out);
    }
  }
}

struct Registry {
  std::map<std::string, json> definitions;
  Status status;
};

const Registry& GetRegistry() {
  static const Registry registry = [] {
    Registry r;
    for (const auto& [file, text] : internal::EmbeddedAvroSchemas()) {
      json root = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
      if (root.is_discarded()) {
        r.status = Status::Invalid("embedded Avro schema ", std::string(file), ".avsc is not valid JSON");
        continue;
      }
      CollectDefinitions(root, &r.definitions);
    }
    return r;
  }();
  return registry;
}

/// `node` with references to types not yet defined replaced by their definitions.
Result<json> Inline(const json& node, const Registry& registry, std::set<std::string>* defined, int depth) {
  if (depth > 64) return Status::Invalid("Avro schemas nest deeper than 64");
  if (node.is_string()) {
    const std::string name = node.get<std::string>();
    if (IsPrimitive(name) || defined->count(SimpleName(name))) return node;
    auto it = registry.definitions.find(SimpleName(name));
    if (it == registry.definitions.end()) return Status::KeyError("Avro type '", name, "' is defined by no embedded schema");
    return Inline(it->second, registry, defined, depth + 1);
  }
  if (node.is_array()) {
    json out = json::array();
    for (const auto& item : node) {
      ARROW_ASSIGN_OR_RAISE(json inlined, Inline(item, registry, defined, depth + 1));
      out.push_back(std::move(inlined));
    }
    return out;
  }
  if (!node.is_object()) return node;
  json out = node;
  if (IsNamedDefinition(node)) defined->insert(SimpleName(node["name"].get<std::string>()));
  for (const char* key : {"items", "values"}) {
    if (node.contains(key)) {
      ARROW_ASSIGN_OR_RAISE(out[key], Inline(node[key], registry, defined, depth + 1));
    }
  }
  if (node.contains("fields") && node["fields"].is_array()) {
    for (size_t i = 0; i < node["fields"].size(); ++i) {
      if (!node["fields"][i].contains("type")) continue;
      ARROW_ASSIGN_OR_RAISE(out["fields"][i]["type"], Inline(node["fields"][i]["type"], registry, defined, depth + 1));
    }
  }
  if (node.contains("type") && !node["type"].is_string()) {
    ARROW_ASSIGN_OR_RAISE(out["type"], Inline(node["type"], registry, defined, depth + 1));
  } else if (node.contains("type") && node["type"].is_string() && !IsNamedDefinition(node)) {
    const std::string t = node["type"].get<std::string>();
    if (t != "array" && t != "map") {
      ARROW_ASSIGN_OR_RAISE(out["type"], Inline(node["type"], registry, defined, depth + 1));
    }
  }
  return out;
}

}  // namespace

Result<std::string> HoodieAvroSchema(std::string_view name) {
  static std::mutex mu;
  static std::map<std::string, std::string, std::less<>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto cached = cache.find(name);
  if (cached != cache.end()) return cached->second;
  const Registry& registry = GetRegistry();
  ARROW_RETURN_NOT_OK(registry.status);
  auto it = registry.definitions.find(std::string(name));
  if (it == registry.definitions.end()) return Status::KeyError("no embedded Hudi Avro schema named '", name, "'");
  std::set<std::string> defined;
  ARROW_ASSIGN_OR_RAISE(json inlined, Inline(it->second, registry, &defined, 0));
  std::string text = inlined.dump();
  cache.emplace(std::string(name), text);
  return text;
}

}  // namespace lakeshore::format
