#include "services/vacuum/hudi_vacuum_record.h"

#include <nlohmann/json.hpp>

namespace lakeshore::vacuum {

using json = nlohmann::json;

std::string HudiVacuumRecord::ToJson() const {
  json j = {{"mode", mode},
            {"cutoff_ms", cutoff_ms},
            {"data_through", data_through},
            {"lite_through", lite_through},
            {"files_deleted", files_deleted},
            {"bytes_deleted", bytes_deleted},
            {"dirs_deleted", dirs_deleted}};
  if (last_full_ms) j["last_full_ms"] = *last_full_ms;
  if (oldest_young_untracked_ms) j["oldest_young_untracked_ms"] = *oldest_young_untracked_ms;
  return j.dump();
}

Result<HudiVacuumRecord> HudiVacuumRecord::FromJson(std::string_view text, const std::string& source) {
  auto bad = [&](const std::string& what) { return CorruptMetadata("vacuum instant '" + source + "': " + what); };
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return bad("not a JSON object");
  HudiVacuumRecord r;
  auto string_field = [&](const char* key, std::string* out, bool required) -> Status {
    auto it = j.find(key);
    if (it == j.end()) return required ? bad(std::string("no '") + key + "'") : Status::OK();
    if (!it->is_string()) return bad(std::string("'") + key + "' is not a string");
    *out = it->get<std::string>();
    return Status::OK();
  };
  auto int_field = [&](const char* key, int64_t* out, bool required) -> Result<bool> {
    auto it = j.find(key);
    if (it == j.end()) {
      if (required) return bad(std::string("no '") + key + "'");
      return false;
    }
    if (!it->is_number_integer()) return bad(std::string("'") + key + "' is not an integer");
    *out = it->get<int64_t>();
    return true;
  };
  ARROW_RETURN_NOT_OK(string_field("mode", &r.mode, true));
  if (r.mode != "full" && r.mode != "lite") return bad("unknown mode '" + r.mode + "'");
  ARROW_RETURN_NOT_OK(int_field("cutoff_ms", &r.cutoff_ms, true).status());
  ARROW_RETURN_NOT_OK(string_field("data_through", &r.data_through, false));
  ARROW_RETURN_NOT_OK(string_field("lite_through", &r.lite_through, false));
  int64_t last_full = 0;
  ARROW_ASSIGN_OR_RAISE(bool has_last_full, int_field("last_full_ms", &last_full, false));
  if (has_last_full) r.last_full_ms = last_full;
  int64_t oldest_young = 0;
  ARROW_ASSIGN_OR_RAISE(bool has_young, int_field("oldest_young_untracked_ms", &oldest_young, false));
  if (has_young) r.oldest_young_untracked_ms = oldest_young;
  ARROW_RETURN_NOT_OK(int_field("files_deleted", &r.files_deleted, false).status());
  ARROW_RETURN_NOT_OK(int_field("bytes_deleted", &r.bytes_deleted, false).status());
  ARROW_RETURN_NOT_OK(int_field("dirs_deleted", &r.dirs_deleted, false).status());
  return r;
}

}  // namespace lakeshore::vacuum
