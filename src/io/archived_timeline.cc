#include "io/archived_timeline.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include <arrow/array.h>
#include <nlohmann/json.hpp>

#include "common/parse_number.h"
#include "io/base_file.h"
#include "timeline/instant_time.h"

namespace lakeshore {
namespace {

using json = nlohmann::json;

constexpr const char* kVersionFile = "_version_";
constexpr const char* kManifestPrefix = "manifest_";

std::string Trimmed(std::string_view text) {
  const char* ws = " \t\r\n";
  const size_t begin = text.find_first_not_of(ws);
  if (begin == std::string_view::npos) return "";
  return std::string(text.substr(begin, text.find_last_not_of(ws) - begin + 1));
}

/// A string column's value at `row`, or "" when null; Invalid when the column is not a string.
Result<const arrow::Array*> Column(const arrow::Table& table, const char* name, const std::string& source) {
  auto column = table.GetColumnByName(name);
  if (column == nullptr) return CorruptMetadata("archived timeline file '" + source + "' has no column '" + name + "'");
  if (column->num_chunks() != 1) return Status::Invalid("expected one chunk");
  return column->chunk(0).get();
}

}  // namespace

Result<ArchivedTimelineVersion> LatestArchivedVersion(Storage& storage, const std::string& history_folder) {
  auto text = storage.ReadString(JoinPath(history_folder, kVersionFile));
  if (text.ok()) {
    auto number = ParseInt64(Trimmed(*text));
    if (number && *number > 0) return ArchivedTimelineVersion{*number};
  }
  // Missing (a writer between deleting and recreating it, or no archival yet) or unreadable.
  ARROW_ASSIGN_OR_RAISE(auto entries, storage.List(history_folder, /*recursive=*/false));
  ArchivedTimelineVersion latest;
  for (const auto& e : entries) {
    const std::string_view name = BaseName(e.path);
    if (e.is_dir || name.rfind(kManifestPrefix, 0) != 0) continue;
    const std::string_view digits = name.substr(std::string_view(kManifestPrefix).size());
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos) continue;
    auto number = ParseInt64(digits);
    if (number) latest.manifest = std::max(latest.manifest, *number);
  }
  return latest;
}

Result<std::vector<ArchivedInstant>> ReadArchivedTimeline(Storage& storage, const std::string& history_folder,
                                                          Engine& engine, ArchivedTimelineVersion* version_out) {
  ARROW_ASSIGN_OR_RAISE(auto version, LatestArchivedVersion(storage, history_folder));
  if (version_out != nullptr) *version_out = version;
  std::vector<ArchivedInstant> out;
  if (version.manifest == 0) return out;
  const std::string manifest_path = JoinPath(history_folder, kManifestPrefix + std::to_string(version.manifest));
  ARROW_ASSIGN_OR_RAISE(auto manifest_text, storage.ReadString(manifest_path));
  auto bad_manifest = [&](const std::string& what) {
    return CorruptMetadata("archived timeline manifest '" + manifest_path + "' " + what);
  };
  std::vector<std::string> files;
  if (!Trimmed(manifest_text).empty()) {  // Hudi reads empty content as an empty manifest
    json manifest = json::parse(manifest_text, nullptr, /*allow_exceptions=*/false);
    if (!manifest.is_object()) return bad_manifest("is not a JSON object");
    auto list = manifest.find("files");
    if (list != manifest.end()) {
      if (!list->is_array()) return bad_manifest("has a 'files' that is not a list");
      static const std::regex kDataFile("^(\\d+)_(\\d+)_(\\d)\\.parquet$");
      for (const auto& entry : *list) {
        auto name = entry.is_object() ? entry.find("fileName") : entry.end();
        if (name == entry.end() || !name->is_string()) return bad_manifest("has an entry without a fileName");
        const std::string file = name->get<std::string>();
        if (!std::regex_match(file, kDataFile)) return bad_manifest("names '" + file + "', not an archived timeline file");
        files.push_back(JoinPath(history_folder, file));
      }
    }
  }
  ARROW_ASSIGN_OR_RAISE(
      auto tables, engine.Map<std::shared_ptr<arrow::Table>>(
                       static_cast<int64_t>(files.size()), [&](int64_t i) -> Result<std::shared_ptr<arrow::Table>> {
                         const std::string& path = files[static_cast<size_t>(i)];
                         auto table = ReadBaseFile(storage, path, {"instantTime", "completionTime", "action", "metadata"});
                         if (!table.ok()) {
                           return CorruptMetadata("archived timeline file '" + path + "' (named by " + manifest_path +
                                                  ") cannot be read: " + table.status().message());
                         }
                         return (*table)->CombineChunks();
                       }));
  std::map<std::string, ArchivedInstant> by_time;
  for (size_t f = 0; f < files.size(); ++f) {
    const arrow::Table& table = *tables[f];
    const std::string& source = files[f];
    ARROW_ASSIGN_OR_RAISE(auto times, Column(table, "instantTime", source));
    ARROW_ASSIGN_OR_RAISE(auto completions, Column(table, "completionTime", source));
    ARROW_ASSIGN_OR_RAISE(auto actions_column, Column(table, "action", source));
    ARROW_ASSIGN_OR_RAISE(auto metadata, Column(table, "metadata", source));
    auto text_at = [](const arrow::Array* a, int64_t row) -> std::optional<std::string> {
      if (a->IsNull(row)) return std::nullopt;
      if (a->type_id() == arrow::Type::STRING) return std::string(static_cast<const arrow::StringArray*>(a)->GetView(row));
      if (a->type_id() == arrow::Type::BINARY) return std::string(static_cast<const arrow::BinaryArray*>(a)->GetView(row));
      if (a->type_id() == arrow::Type::LARGE_BINARY) {
        return std::string(static_cast<const arrow::LargeBinaryArray*>(a)->GetView(row));
      }
      return std::nullopt;
    };
    for (int64_t row = 0; row < table.num_rows(); ++row) {
      auto time = text_at(times, row);
      auto action = text_at(actions_column, row);
      if (!time || !action || !IsInstantTimeToken(*time)) {
        return CorruptMetadata("archived timeline file '" + source + "' row " + std::to_string(row) +
                               " has no valid instantTime or action");
      }
      ArchivedInstant instant;
      instant.instant = Instant{*time, *action, InstantState::kCompleted, text_at(completions, row).value_or(*time)};
      if (!IsInstantTimeToken(instant.instant.completion_time)) {
        return CorruptMetadata("archived timeline file '" + source + "' row " + std::to_string(row) +
                               " has a completionTime that is not an instant time");
      }
      instant.metadata = text_at(metadata, row).value_or("");
      by_time.emplace(instant.instant.time, std::move(instant));  // the first copy stays, as in Hudi
    }
  }
  for (auto& [time, instant] : by_time) out.push_back(std::move(instant));
  return out;
}

Result<std::vector<CompletedCommit>> ArchivedCommits::Load(Storage& storage, const std::string& history_folder,
                                                           Engine& engine, const InstantCodec& codec) {
  ARROW_ASSIGN_OR_RAISE(auto version, LatestArchivedVersion(storage, history_folder));
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (version_ && *version_ == version) return commits_;
  }
  ArchivedTimelineVersion read_version;
  ARROW_ASSIGN_OR_RAISE(auto archived, ReadArchivedTimeline(storage, history_folder, engine, &read_version));
  ARROW_ASSIGN_OR_RAISE(
      auto decoded, engine.Map<CommitMetadata>(static_cast<int64_t>(archived.size()), [&](int64_t i) -> Result<CommitMetadata> {
        const ArchivedInstant& a = archived[static_cast<size_t>(i)];
        if (!actions::WritesData(a.instant.action) && a.instant.action != actions::kRollback) return CommitMetadata{};
        return codec.Decode(a.instant, a.metadata,
                            JoinPath(history_folder, "(archived instant " + a.instant.time + ")"));
      }));
  std::vector<CompletedCommit> commits;
  for (size_t i = 0; i < archived.size(); ++i) commits.push_back({archived[i].instant, std::move(decoded[i])});
  std::stable_sort(commits.begin(), commits.end(), [](const CompletedCommit& a, const CompletedCommit& b) {
    return a.instant.completion_time < b.instant.completion_time;
  });
  std::lock_guard<std::mutex> lock(mu_);
  version_ = read_version;
  commits_ = commits;
  return commits;
}

std::vector<CompletedCommit> WithArchivedCommits(const std::vector<CompletedCommit>& archived,
                                                 std::vector<CompletedCommit> active) {
  if (archived.empty()) return active;
  std::set<std::string> active_times;
  for (const auto& c : active) active_times.insert(c.instant.time);
  std::vector<CompletedCommit> out;
  for (const auto& c : archived) {
    if (!active_times.count(c.instant.time)) out.push_back(c);
  }
  for (auto& c : active) out.push_back(std::move(c));
  std::stable_sort(out.begin(), out.end(), [](const CompletedCommit& a, const CompletedCommit& b) {
    return a.instant.completion_time < b.instant.completion_time;
  });
  return out;
}

}  // namespace lakeshore
