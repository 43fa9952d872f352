#include "lakeshore/config.h"

#include "common/parse_number.h"

namespace lakeshore {
namespace {
Status BadValue(std::string_view key, const std::string& value, const char* expected) {
  return Status::Invalid("config '", key, "': '", value, "' is not ", expected);
}
}  // namespace

template <>
Result<bool> ParseConfigValue<bool>(std::string_view key, const std::string& value) {
  // Only Hudi's own spelling: values are stored in hoodie.properties as given, and Hudi readers
  // take no other (hudi-rs refuses "TRUE" and "1"; Java reads "1" as false).
  if (value == "true") return true;
  if (value == "false") return false;
  return BadValue(key, value, "a boolean: true or false, in lowercase, the only spelling every Hudi reader takes");
}

template <>
Result<int64_t> ParseConfigValue<int64_t>(std::string_view key, const std::string& value) {
  auto v = ParseInt64(value);
  if (!v) return BadValue(key, value, "an integer");
  return *v;
}

template <>
Result<double> ParseConfigValue<double>(std::string_view key, const std::string& value) {
  auto v = ParseFiniteDouble(value);
  if (!v) return BadValue(key, value, "a finite number");
  return *v;
}

template <>
Result<std::string> ParseConfigValue<std::string>(std::string_view, const std::string& value) {
  return value;
}

std::string RenderConfigValue(bool v) { return v ? "true" : "false"; }
std::string RenderConfigValue(int64_t v) { return std::to_string(v); }
std::string RenderConfigValue(double v) { return std::to_string(v); }
std::string RenderConfigValue(const std::string& v) { return v; }

std::vector<std::string> SplitConfigList(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (!item.empty()) out.push_back(std::move(item));
    start = end + 1;
  }
  return out;
}

Status ValidateProperties(const Properties& props, const std::vector<const ConfigOptionBase*>& known) {
  for (const auto& [key, value] : props) {
    const ConfigOptionBase* option = nullptr;
    for (const auto* k : known)
      if (k->key() == key) option = k;
    if (option == nullptr) return Status::Invalid("unknown config key '", key, "'");
    ARROW_RETURN_NOT_OK(option->Check(value));
  }
  return Status::OK();
}

Status MustBePositive(const int64_t& v) {
  return v > 0 ? Status::OK() : Status::Invalid("must be > 0, got ", v);
}
Status MustBeNonNegative(const int64_t& v) {
  return v >= 0 ? Status::OK() : Status::Invalid("must be >= 0, got ", v);
}

}  // namespace lakeshore
