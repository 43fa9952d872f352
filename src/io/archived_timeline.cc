#include "io/archived_timeline.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include <arrow/array.h>
#include <arrow/builder.h>
#include <arrow/io/memory.h>
#include <arrow/util/key_value_metadata.h>
#include <nlohmann/json.hpp>
#include <parquet/arrow/writer.h>

#include "common/parse_number.h"
#include "format/hoodie_avro_schemas.h"
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

std::string ManifestPath(const std::string& history_folder, ArchivedTimelineVersion version) {
  return JoinPath(history_folder, kManifestPrefix + std::to_string(version.manifest));
}

const std::regex& DataFilePattern() {
  static const std::regex pattern("^(\\d+)_(\\d+)_(\\d)\\.parquet$");
  return pattern;
}

}  // namespace

int ArchivedFileLayer(const std::string& name) {
  std::smatch m;
  if (!std::regex_match(name, m, DataFilePattern())) return -1;
  return m[3].str()[0] - '0';
}

Result<std::vector<ArchivedFileEntry>> ReadArchivedManifest(Storage& storage, const std::string& history_folder,
                                                            ArchivedTimelineVersion version) {
  std::vector<ArchivedFileEntry> files;
  if (version.manifest == 0) return files;
  const std::string manifest_path = ManifestPath(history_folder, version);
  auto read = storage.ReadString(manifest_path);
  if (!read.ok()) {
    ARROW_ASSIGN_OR_RAISE(bool exists, storage.Exists(manifest_path));
    if (exists) return read.status();
    // Gone: replaced by a newer one meanwhile (an archival deletes old manifests), or damage.
    ARROW_ASSIGN_OR_RAISE(auto latest, LatestArchivedVersion(storage, history_folder));
    if (!(latest == version)) {
      return CommitConflict("archived timeline manifest '" + manifest_path + "' was replaced by manifest " +
                            std::to_string(latest.manifest) + " while it was read; retry");
    }
    return CorruptMetadata("archived timeline manifest '" + manifest_path + "', the latest version " +
                           JoinPath(history_folder, kVersionFile) + " names, does not exist");
  }
  const std::string& manifest_text = *read;
  auto bad_manifest = [&](const std::string& what) {
    return CorruptMetadata("archived timeline manifest '" + manifest_path + "' " + what);
  };
  // Every manifest an archival publishes names the files it wrote (Hudi's reader takes an empty
  // one as "no files", but its writer never makes one): one naming none is damage, and read as
  // "nothing archived" it hid every archived commit, whose files vacuum then offered to delete.
  if (Trimmed(manifest_text).empty()) return bad_manifest("is empty");
  json manifest = json::parse(manifest_text, nullptr, /*allow_exceptions=*/false);
  if (!manifest.is_object()) return bad_manifest("is not a JSON object");
  auto list = manifest.find("files");
  if (list == manifest.end() || (list->is_array() && list->empty())) return bad_manifest("names no archived file");
  if (!list->is_array()) return bad_manifest("has a 'files' that is not a list");
  for (const auto& entry : *list) {
    auto name = entry.is_object() ? entry.find("fileName") : entry.end();
    if (name == entry.end() || !name->is_string()) return bad_manifest("has an entry without a fileName");
    ArchivedFileEntry e;
    e.name = name->get<std::string>();
    if (ArchivedFileLayer(e.name) < 0) return bad_manifest("names '" + e.name + "', not an archived timeline file");
    auto length = entry.find("fileLen");
    if (length != entry.end() && length->is_number_integer()) e.length = length->get<int64_t>();
    files.push_back(std::move(e));
  }
  return files;
}

Result<int64_t> WriteArchivedFile(Storage& storage, const std::string& history_folder, const std::string& name,
                                  const std::vector<ArchivedInstant>& instants) {
  arrow::StringBuilder times, completions, actions_builder;
  arrow::BinaryBuilder metadata, plan;
  arrow::Int32Builder version;
  for (const auto& a : instants) {
    ARROW_RETURN_NOT_OK(times.Append(a.instant.time));
    ARROW_RETURN_NOT_OK(completions.Append(a.instant.completion_time));
    ARROW_RETURN_NOT_OK(actions_builder.Append(a.instant.action));
    ARROW_RETURN_NOT_OK(a.metadata.empty() ? metadata.AppendNull() : metadata.Append(a.metadata));
    ARROW_RETURN_NOT_OK(a.plan.empty() ? plan.AppendNull() : plan.Append(a.plan));
    ARROW_RETURN_NOT_OK(version.Append(1));
  }
  std::vector<std::shared_ptr<arrow::Array>> columns(6);
  ARROW_RETURN_NOT_OK(times.Finish(&columns[0]));
  ARROW_RETURN_NOT_OK(completions.Finish(&columns[1]));
  ARROW_RETURN_NOT_OK(actions_builder.Finish(&columns[2]));
  ARROW_RETURN_NOT_OK(metadata.Finish(&columns[3]));
  ARROW_RETURN_NOT_OK(plan.Finish(&columns[4]));
  ARROW_RETURN_NOT_OK(version.Finish(&columns[5]));
  ARROW_ASSIGN_OR_RAISE(std::string avro_schema, format::HoodieAvroSchema("HoodieLSMTimelineInstant"));
  auto schema = arrow::schema({arrow::field("instantTime", arrow::utf8()), arrow::field("completionTime", arrow::utf8()),
                               arrow::field("action", arrow::utf8()), arrow::field("metadata", arrow::binary()),
                               arrow::field("plan", arrow::binary()), arrow::field("version", arrow::int32(), false)});
  auto table = arrow::Table::Make(schema, columns);
  auto properties = parquet::WriterProperties::Builder().compression(arrow::Compression::GZIP)->build();
  ARROW_ASSIGN_OR_RAISE(auto sink, arrow::io::BufferOutputStream::Create());
  ARROW_ASSIGN_OR_RAISE(auto writer, parquet::arrow::FileWriter::Open(*schema, arrow::default_memory_pool(), sink,
                                                                      properties));
  ARROW_RETURN_NOT_OK(writer->WriteTable(*table, std::max<int64_t>(1, table->num_rows())));
  ARROW_RETURN_NOT_OK(writer->AddKeyValueMetadata(
      arrow::key_value_metadata({"parquet.avro.schema", "writer.model.name"}, {avro_schema, "avro"})));
  ARROW_RETURN_NOT_OK(writer->Close());
  ARROW_ASSIGN_OR_RAISE(auto bytes, sink->Finish());
  const int64_t length = bytes->size();
  ARROW_RETURN_NOT_OK(storage.WriteFile(JoinPath(history_folder, name), std::move(bytes)));
  return length;
}

Result<ArchivedTimelineVersion> PublishArchivedManifest(Storage& storage, const std::string& history_folder,
                                                        ArchivedTimelineVersion current,
                                                        const std::vector<ArchivedFileEntry>& files) {
  // Jackson's default pretty printer, as Hudi writes the manifest.
  std::string text = "{\n  \"files\" : [ ";
  for (size_t i = 0; i < files.size(); ++i) {
    text += (i > 0 ? ", " : "") + std::string("{\n    \"fileName\" : ") + json(files[i].name).dump() +
            ",\n    \"fileLen\" : " + std::to_string(files[i].length) + "\n  }";
  }
  text += files.empty() ? "]\n}" : " ]\n}";
  const ArchivedTimelineVersion next{current.manifest + 1};
  ARROW_RETURN_NOT_OK(storage.WriteString(ManifestPath(history_folder, next), text));
  ARROW_RETURN_NOT_OK(storage.WriteString(JoinPath(history_folder, kVersionFile), std::to_string(next.manifest)));
  return next;
}

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

Result<std::vector<ArchivedInstant>> ReadArchivedFile(Storage& storage, const std::string& path, bool with_plan) {
  std::vector<std::string> columns = {"instantTime", "completionTime", "action", "metadata"};
  if (with_plan) columns.push_back("plan");
  auto read = ReadBaseFile(storage, path, columns);
  if (!read.ok()) {
    return CorruptMetadata("archived timeline file '" + path + "' cannot be read: " + read.status().message());
  }
  ARROW_ASSIGN_OR_RAISE(auto table, (*read)->CombineChunks());
  ARROW_ASSIGN_OR_RAISE(auto times, Column(*table, "instantTime", path));
  ARROW_ASSIGN_OR_RAISE(auto completions, Column(*table, "completionTime", path));
  ARROW_ASSIGN_OR_RAISE(auto actions_column, Column(*table, "action", path));
  ARROW_ASSIGN_OR_RAISE(auto metadata, Column(*table, "metadata", path));
  const arrow::Array* plan = nullptr;
  if (with_plan) {
    ARROW_ASSIGN_OR_RAISE(plan, Column(*table, "plan", path));
  }
  auto text_at = [](const arrow::Array* a, int64_t row) -> std::optional<std::string> {
    if (a->IsNull(row)) return std::nullopt;
    if (a->type_id() == arrow::Type::STRING) return std::string(static_cast<const arrow::StringArray*>(a)->GetView(row));
    if (a->type_id() == arrow::Type::BINARY) return std::string(static_cast<const arrow::BinaryArray*>(a)->GetView(row));
    if (a->type_id() == arrow::Type::LARGE_BINARY) {
      return std::string(static_cast<const arrow::LargeBinaryArray*>(a)->GetView(row));
    }
    return std::nullopt;
  };
  std::vector<ArchivedInstant> out;
  for (int64_t row = 0; row < table->num_rows(); ++row) {
    auto time = text_at(times, row);
    auto action = text_at(actions_column, row);
    if (!time || !action || !IsInstantTimeToken(*time)) {
      return CorruptMetadata("archived timeline file '" + path + "' row " + std::to_string(row) +
                             " has no valid instantTime or action");
    }
    ArchivedInstant instant;
    instant.instant = Instant{*time, *action, InstantState::kCompleted, text_at(completions, row).value_or(*time)};
    if (!IsInstantTimeToken(instant.instant.completion_time)) {
      return CorruptMetadata("archived timeline file '" + path + "' row " + std::to_string(row) +
                             " has a completionTime that is not an instant time");
    }
    instant.metadata = text_at(metadata, row).value_or("");
    if (plan != nullptr) instant.plan = text_at(plan, row).value_or("");
    out.push_back(std::move(instant));
  }
  return out;
}

Result<std::vector<ArchivedInstant>> ReadArchivedTimeline(Storage& storage, const std::string& history_folder,
                                                          Engine& engine, ArchivedTimelineVersion* version_out) {
  ARROW_ASSIGN_OR_RAISE(auto version, LatestArchivedVersion(storage, history_folder));
  if (version_out != nullptr) *version_out = version;
  std::vector<ArchivedInstant> out;
  if (version.manifest == 0) return out;
  const std::string manifest_path = ManifestPath(history_folder, version);
  ARROW_ASSIGN_OR_RAISE(auto entries, ReadArchivedManifest(storage, history_folder, version));
  ARROW_ASSIGN_OR_RAISE(
      auto files, engine.Map<std::vector<ArchivedInstant>>(
                      static_cast<int64_t>(entries.size()), [&](int64_t i) -> Result<std::vector<ArchivedInstant>> {
                        const std::string path = JoinPath(history_folder, entries[static_cast<size_t>(i)].name);
                        auto rows = ReadArchivedFile(storage, path, /*with_plan=*/false);
                        if (!rows.ok()) {
                          return CorruptMetadata(rows.status().message() + " (named by " + manifest_path + ")");
                        }
                        return rows;
                      }));
  std::map<std::string, ArchivedInstant> by_time;
  for (auto& rows : files) {
    for (auto& instant : rows) by_time.emplace(instant.instant.time, std::move(instant));  // the first copy stays, as in Hudi
  }
  for (auto& [time, instant] : by_time) out.push_back(std::move(instant));
  return out;
}

Result<std::vector<CompletedCommit>> ArchivedCommits::Load(Storage& storage, const std::string& history_folder,
                                                           Engine& engine, const InstantCodec& codec) {
  ARROW_ASSIGN_OR_RAISE(auto version, LatestArchivedVersion(storage, history_folder));
  std::map<std::string, DecodedFile> known;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (version_ && *version_ == version) return commits_;
    known = files_;
  }
  ARROW_ASSIGN_OR_RAISE(auto entries, ReadArchivedManifest(storage, history_folder, version));
  const std::string manifest_path = ManifestPath(history_folder, version);
  auto key_of = [](const ArchivedFileEntry& e) { return e.name + "#" + std::to_string(e.length); };
  std::vector<size_t> missing;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!known.count(key_of(entries[i]))) missing.push_back(i);
  }
  ARROW_ASSIGN_OR_RAISE(
      auto decoded, engine.Map<DecodedFile>(static_cast<int64_t>(missing.size()), [&](int64_t k) -> Result<DecodedFile> {
        const std::string path = JoinPath(history_folder, entries[missing[static_cast<size_t>(k)]].name);
        auto rows = ReadArchivedFile(storage, path, /*with_plan=*/false);
        if (!rows.ok()) return CorruptMetadata(rows.status().message() + " (named by " + manifest_path + ")");
        auto commits = std::make_shared<std::vector<CompletedCommit>>();
        for (const ArchivedInstant& a : *rows) {
          CommitMetadata metadata;
          if (actions::WritesData(a.instant.action) || a.instant.action == actions::kRollback) {
            ARROW_ASSIGN_OR_RAISE(metadata, codec.Decode(a.instant, a.metadata,
                                                         JoinPath(history_folder, "(archived instant " + a.instant.time + ")")));
          }
          commits->push_back({a.instant, std::move(metadata)});
        }
        return DecodedFile(std::move(commits));
      }));
  for (size_t k = 0; k < missing.size(); ++k) known[key_of(entries[missing[k]])] = std::move(decoded[k]);
  // An instant in two files (a compaction's output and its inputs, listed together after a
  // crash) counts once: the first file's copy, as in Hudi and ReadArchivedTimeline.
  std::map<std::string, const CompletedCommit*> by_time;
  std::map<std::string, DecodedFile> kept;
  for (const auto& e : entries) {
    const std::string key = key_of(e);
    const DecodedFile& file = known.at(key);
    kept[key] = file;
    for (const auto& c : *file) by_time.emplace(c.instant.time, &c);
  }
  std::vector<CompletedCommit> commits;
  commits.reserve(by_time.size());
  for (const auto& [time, c] : by_time) commits.push_back(*c);
  std::stable_sort(commits.begin(), commits.end(), [](const CompletedCommit& a, const CompletedCommit& b) {
    return a.instant.completion_time < b.instant.completion_time;
  });
  std::lock_guard<std::mutex> lock(mu_);
  version_ = version;
  commits_ = commits;
  files_ = std::move(kept);
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

Result<std::vector<CompletedCommit>> LoadCommitsWithArchive(Storage& storage, Engine& engine, const Timeline& timeline,
                                                            CommitMetadataCache& cache, ArchivedCommits& archive,
                                                            const std::string& history_folder, const InstantCodec& codec) {
  std::vector<Instant> vanished;
  ARROW_ASSIGN_OR_RAISE(auto active, cache.LoadCompleted(storage, engine, timeline, &vanished));
  ARROW_ASSIGN_OR_RAISE(auto archived, archive.Load(storage, history_folder, engine, codec));
  if (!vanished.empty()) {
    std::set<std::string> archived_times;
    for (const auto& c : archived) archived_times.insert(c.instant.time);
    for (const auto& instant : vanished) {
      if (!archived_times.count(instant.time)) {
        return CommitConflict("completed instant file '" + storage.root_uri() + "/" +
                              timeline.location().PathOf(instant) +
                              "' was listed but is gone, and the archived timeline does not hold it: a restore or "
                              "rollback removed it while the timeline was read; retry");
      }
    }
  }
  return WithArchivedCommits(archived, std::move(active));
}

}  // namespace lakeshore
