#include "io/metadata_files.h"

#include <algorithm>
#include <set>

#include "format/hfile.h"
#include "format/avro_container.h"
#include "io/log_file.h"
#include "lakeshore/storage/sub_tree_storage.h"
#include "table/file_system_view.h"
#include "timeline/commit_metadata_cache.h"
#include "timeline/timeline.h"

namespace lakeshore {
namespace {

constexpr const char* kMetadataFolder = ".hoodie/metadata";
constexpr const char* kFilesPartition = "files";
constexpr const char* kAllPartitions = "__all_partitions__";

/// One record's view of its key: files added (name → size) and removed.
struct FilesRecord {
  std::map<std::string, int64_t> added;
  std::set<std::string> removed;
};

/// A HoodieMetadataRecord of the files partition (type 1: the partition list, 2: a file list).
Result<FilesRecord> ParseFilesRecord(const nlohmann::json& record, const std::string& where) {
  FilesRecord out;
  auto meta = record.find("filesystemMetadata");
  if (meta == record.end() || meta->is_null()) return out;
  if (!meta->is_object()) return CorruptMetadata(where + ": filesystemMetadata is not a map");
  for (const auto& [name, info] : meta->items()) {
    const bool deleted = info.is_object() && info.value("isDeleted", false);
    const int64_t size = info.is_object() && info.contains("size") && info["size"].is_number_integer()
                             ? info["size"].get<int64_t>()
                             : 0;
    if (deleted) {
      out.removed.insert(name);
    } else {
      out.added[name] = size;
    }
  }
  return out;
}

/// Folds `next` into `into` (Hudi's combineFileSystemMetadata).
void Combine(FilesRecord& into, const FilesRecord& next) {
  for (const auto& name : next.removed) {
    into.added.erase(name);
    into.removed.insert(name);
  }
  for (const auto& [name, size] : next.added) {
    auto [it, inserted] = into.added.emplace(name, size);
    if (!inserted) it->second = std::max(it->second, size);
    into.removed.erase(name);
  }
}

}  // namespace

Result<MetadataFileListing> ReadMetadataFiles(const std::shared_ptr<Storage>& table, Engine& engine,
                                              const std::function<bool(const std::string&)>& is_valid_data_instant) {
  ARROW_ASSIGN_OR_RAISE(auto mdt, SubTreeStorage::Make(table, kMetadataFolder));
  ARROW_ASSIGN_OR_RAISE(auto timeline, Timeline::Load(*mdt, TimelineLocation{".hoodie/timeline", TimelineLayout::kV2}));
  CommitMetadataCache cache;
  ARROW_ASSIGN_OR_RAISE(auto commits, cache.LoadCompleted(*mdt, engine, timeline));
  std::set<std::string> completed;
  for (const auto& i : timeline.instants()) {
    if (i.is_completed()) completed.insert(i.time);
  }
  auto visible = [&](const std::string& instant) {
    return completed.count(instant) > 0 && (!is_valid_data_instant || is_valid_data_instant(instant));
  };
  const FileSystemView view = FileSystemView::Build(commits);
  std::map<std::string, FilesRecord> records;  // by key: a partition name or __all_partitions__
  for (const FileGroup* group : view.LiveFileGroupsIn(kFilesPartition)) {
    const FileSlice& slice = group->latest();
    if (slice.base_file) {
      const std::string& path = slice.base_file->path;
      ARROW_ASSIGN_OR_RAISE(auto bytes, mdt->ReadFile(path));
      const std::string where = "metadata table file " + table->root_uri() + "/" + kMetadataFolder + "/" + path;
      ARROW_ASSIGN_OR_RAISE(auto reader, format::HFileReader::Open(bytes, where));
      auto schema = reader->file_info().find("schema");
      if (schema == reader->file_info().end()) return CorruptMetadata(where + " has no schema in its file info");
      ARROW_RETURN_NOT_OK(reader->Scan([&](std::string_view key, std::string_view value) -> Status {
        ARROW_ASSIGN_OR_RAISE(auto decoded, format::ReadAvroDatums(schema->second, {value}, where));
        ARROW_ASSIGN_OR_RAISE(auto record, ParseFilesRecord(decoded[0], where));
        Combine(records[std::string(key)], record);
        return Status::OK();
      }));
    }
    for (const auto& log : slice.log_files) {
      ARROW_ASSIGN_OR_RAISE(auto blocks, ReadLogFile(*mdt, log));
      // A rollback command block voids the earlier blocks of its target instant.
      std::set<std::string> rolled_back;
      for (const auto& b : blocks) {
        if (b.is_rollback) rolled_back.insert(b.target_instant_time);
      }
      for (const auto& b : blocks) {
        if (!visible(b.instant_time) || rolled_back.count(b.instant_time)) continue;
        for (const auto& [key, value] : b.keyed_records) {
          ARROW_ASSIGN_OR_RAISE(auto record, ParseFilesRecord(value, "metadata log file " + log));
          Combine(records[key], record);
        }
        for (const auto& d : b.deletes) records.erase(d.record_key);
      }
    }
  }
  MetadataFileListing listing;
  for (auto& [key, record] : records) {
    if (key == kAllPartitions) continue;
    listing.files[key == "." ? std::string() : key] = std::move(record.added);
  }
  // Partitions the partition list names but no file record holds yet are empty.
  auto all = records.find(kAllPartitions);
  if (all != records.end()) {
    for (const auto& [name, size] : all->second.added) listing.files.try_emplace(name == "." ? std::string() : name);
  }
  return listing;
}

}  // namespace lakeshore
