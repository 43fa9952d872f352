#include "services/metadata/secondary_index_writer.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <unordered_map>

#include <arrow/array/concatenate.h>
#include <nlohmann/json.hpp>

#include "common/arrow_cast.h"
#include "format/metadata_keys.h"
#include "format/metadata_record.h"
#include "read/file_slice_reader.h"
#include "read/record_lookup.h"
#include "read/secondary_lookup.h"
#include "read/snapshot_reader.h"
#include "table/hoodie_table_config.h"
#include "table/layout.h"
#include "table/meta_columns.h"

namespace lakeshore {
namespace {

constexpr const char* kPrefix = "secondary_index_";

/// The top-level column an index source field lives in.
std::string TopColumn(const std::string& path) { return path.substr(0, path.find('.')); }

/// record key → secondary key, over the rows of `table` (holding the record key and the
/// source field's top-level column).
Status CollectPairs(const arrow::Table& table, const std::string& path,
                    std::unordered_map<std::string, std::optional<std::string>>* out) {
  if (table.num_rows() == 0) return Status::OK();
  auto key_column = table.GetColumnByName(meta_columns::kRecordKey);
  if (!key_column) return Status::Invalid("the rows hold no record key column");
  ARROW_ASSIGN_OR_RAISE(auto keys, CombineChunks(*key_column));
  ARROW_ASSIGN_OR_RAISE(auto values, IndexedValues(table, path));
  const auto& key_array = static_cast<const arrow::StringArray&>(*keys);
  for (int64_t i = 0; i < table.num_rows(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto text, SecondaryKeyText(*values, i));
    (*out)[key_array.GetString(i)] = std::move(text);
  }
  return Status::OK();
}

/// The index definitions file of the table, relative to its root.
std::string DefinitionsPath(const TableContext& ctx) { return IndexDefinitionsPath(ctx.hoodie ? &*ctx.hoodie : nullptr); }

/// Rewrites the index definitions file with `edit` applied to its `indexDefinitions` object.
Status EditDefinitions(TableContext& ctx, const std::function<void(nlohmann::json& defs)>& edit) {
  const std::string path = DefinitionsPath(ctx);
  nlohmann::json doc = nlohmann::json::object();
  ARROW_ASSIGN_OR_RAISE(bool exists, ctx.storage->Exists(path));
  if (exists) {
    ARROW_ASSIGN_OR_RAISE(auto bytes, ctx.storage->ReadFile(path));
    doc = nlohmann::json::parse(std::string_view(reinterpret_cast<const char*>(bytes->data()),
                                                 static_cast<size_t>(bytes->size())),
                                nullptr, /*allow_exceptions=*/false);
    // A damaged file is not rewritten: it may hold definitions another writer needs.
    if (doc.is_discarded() || !doc.is_object()) {
      return CorruptMetadata("index definitions '" + path + "': not a JSON object");
    }
  }
  if (!doc.contains("indexDefinitions") || !doc["indexDefinitions"].is_object()) {
    doc["indexDefinitions"] = nlohmann::json::object();
  }
  edit(doc["indexDefinitions"]);
  ARROW_RETURN_NOT_OK(ctx.storage->WriteString(path, doc.dump(2)));
  if (!ctx.hoodie || ctx.hoodie->properties.Get(kIndexDefinitionsPathKey).value_or("").empty()) {
    ARROW_ASSIGN_OR_RAISE(auto config, HoodieTableConfig::Load(*ctx.storage));
    format::JavaProperties p = config.properties;
    p.Set(kIndexDefinitionsPathKey, path);
    ARROW_RETURN_NOT_OK(ctx.storage->WriteString(layout::kPropertiesFile, p.Render("Updated by Lakeshore")));
    ARROW_ASSIGN_OR_RAISE(auto reloaded, HoodieTableConfig::Load(*ctx.storage));
    ctx.hoodie = std::move(reloaded);
  }
  return Status::OK();
}

}  // namespace

Result<std::map<std::string, IndexDefinition>> LoadTableIndexDefinitions(const TableContext& ctx) {
  return LoadIndexDefinitions(*ctx.storage, DefinitionsPath(ctx));
}

bool IsSecondaryIndexPartition(const std::string& partition) { return partition.rfind(kPrefix, 0) == 0; }

std::optional<SecondaryIndexSpec> MaintainableSecondaryIndex(const TableContext& ctx,
                                                             const std::map<std::string, IndexDefinition>& defs,
                                                             const std::string& partition, std::string* why) {
  auto it = defs.find(partition);
  if (it == defs.end() || it->second.type != "secondary_index") {
    *why = "no secondary index definition";
    return std::nullopt;
  }
  const IndexDefinition& d = it->second;
  if (!d.function.empty() && d.function != "identity") {
    *why = "index function '" + d.function + "'";
    return std::nullopt;
  }
  if (d.source_fields.size() != 1) {
    *why = "an index on " + std::to_string(d.source_fields.size()) + " fields";
    return std::nullopt;
  }
  auto field = ctx.full_schema ? IndexedField(*ctx.full_schema, d.source_fields[0]) : nullptr;
  if (!field) {
    *why = "the field '" + d.source_fields[0] + "' is not in the table's schema";
    return std::nullopt;
  }
  if (!HasSecondaryKeyText(*field->type())) {
    *why = "a column of type " + field->type()->ToString();
    return std::nullopt;
  }
  return SecondaryIndexSpec{partition, d.source_fields[0], d.HashesBySecondaryKey()};
}

Status CheckNewSecondaryIndexName(const std::string& partition) {
  const std::string_view own = std::string_view(partition).substr(std::min(partition.size(), std::strlen(kPrefix)));
  const bool plain = IsSecondaryIndexPartition(partition) && !own.empty() && own.size() <= 128 &&
                     std::all_of(own.begin(), own.end(), [](char c) {
                       return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
                     });
  if (plain) return Status::OK();
  return Status::Invalid("a secondary index name after secondary_index_ is letters, digits and '_', at most 128 of "
                         "them: got '", partition, "'");
}

Result<MetadataEntries> SecondaryIndexBuildEntries(TableContext& ctx, const SecondaryIndexSpec& spec,
                                                   bool refuse_twins) {
  ReadOptions read;
  read.columns = {std::string(meta_columns::kRecordKey), TopColumn(spec.column)};
  if (refuse_twins) {
    read.columns.insert(read.columns.end(), {meta_columns::kPartition, meta_columns::kFileName});
  }
  ARROW_ASSIGN_OR_RAISE(auto rows, ReadSnapshot(ctx, read));
  if (refuse_twins) ARROW_RETURN_NOT_OK(RecordLocationsOf(*rows, /*refuse_twins=*/true, ctx.uri).status());
  std::unordered_map<std::string, std::optional<std::string>> pairs;
  ARROW_RETURN_NOT_OK(CollectPairs(*rows, spec.column, &pairs));
  MetadataEntries out;
  out.reserve(pairs.size());
  const std::string live = format::EncodeSecondaryIndexRecord(false);
  for (const auto& [record_key, secondary_key] : pairs) {
    out.emplace_back(format::SecondaryIndexKey(secondary_key, record_key), live);
  }
  return out;
}

Result<std::vector<MetadataEntries>> SecondaryIndexWriteEntries(TableContext& ctx,
                                                                const std::vector<SecondaryIndexSpec>& specs,
                                                                const std::string& instant_time,
                                                                const CommitMetadata& written,
                                                                const Timeline& data_timeline) {
  std::vector<MetadataEntries> out(specs.size());
  if (specs.empty()) return out;
  ARROW_ASSIGN_OR_RAISE(auto commits, ctx.LoadCommits(data_timeline));
  const FileSystemView before = FileSystemView::Build(commits);
  // After: this instant applied as if completed last.
  std::vector<CompletedCommit> with_this = commits;
  Instant self{instant_time, actions::kCommit, InstantState::kCompleted, "99999999999999999"};
  with_this.push_back(CompletedCommit{self, written});
  const FileSystemView after = FileSystemView::Build(with_this);
  std::set<std::pair<std::string, std::string>> touched;
  for (const auto& s : written.write_stats) touched.emplace(s.partition, s.file_id);
  std::vector<std::pair<std::string, std::string>> groups(touched.begin(), touched.end());

  SliceReadSpec spec_before = SliceSpecFor(ctx, data_timeline, commits, "");
  SliceReadSpec spec_after = spec_before;
  auto visible_before = spec_before.instant_is_visible;
  spec_after.instant_is_visible = [visible_before, instant_time](const std::string& t) {
    return t == instant_time || visible_before(t);
  };
  // One read of each touched group's slice before and after, with every index's column.
  std::vector<std::string> columns = {std::string(meta_columns::kRecordKey)};
  for (const auto& si : specs) {
    if (std::find(columns.begin(), columns.end(), TopColumn(si.column)) == columns.end()) {
      columns.push_back(TopColumn(si.column));
    }
  }
  spec_before.columns = spec_after.columns = columns;
  using Slices = std::pair<std::shared_ptr<arrow::Table>, std::shared_ptr<arrow::Table>>;
  ARROW_ASSIGN_OR_RAISE(auto read, ctx.engine->Map<Slices>(
                                       static_cast<int64_t>(groups.size()), [&](int64_t i) -> Result<Slices> {
                                         const auto& [partition, file_id] = groups[static_cast<size_t>(i)];
                                         auto read_one = [&](const FileSystemView& view,
                                                             const SliceReadSpec& spec) -> Result<std::shared_ptr<arrow::Table>> {
                                           const FileGroup* g = view.Find(partition, file_id);
                                           if (g == nullptr || !g->is_live()) return std::shared_ptr<arrow::Table>();
                                           return ReadFileSlice(*ctx.storage, g->latest(), spec);
                                         };
                                         Slices slices;
                                         ARROW_ASSIGN_OR_RAISE(slices.first, read_one(before, spec_before));
                                         ARROW_ASSIGN_OR_RAISE(slices.second, read_one(after, spec_after));
                                         return slices;
                                       }));
  for (size_t s = 0; s < specs.size(); ++s) {
    const SecondaryIndexSpec& si = specs[s];
    std::unordered_map<std::string, std::optional<std::string>> old_pairs, new_pairs;
    for (const auto& [b, a] : read) {
      if (b) ARROW_RETURN_NOT_OK(CollectPairs(*b, si.column, &old_pairs));
      if (a) ARROW_RETURN_NOT_OK(CollectPairs(*a, si.column, &new_pairs));
    }
    const std::string live = format::EncodeSecondaryIndexRecord(false);
    const std::string deleted = format::EncodeSecondaryIndexRecord(true);
    for (const auto& [record_key, secondary_key] : old_pairs) {
      auto now = new_pairs.find(record_key);
      if (now == new_pairs.end() || now->second != secondary_key) {
        out[s].emplace_back(format::SecondaryIndexKey(secondary_key, record_key), deleted);
      }
    }
    for (const auto& [record_key, secondary_key] : new_pairs) {
      auto was = old_pairs.find(record_key);
      if (was == old_pairs.end() || was->second != secondary_key) {
        out[s].emplace_back(format::SecondaryIndexKey(secondary_key, record_key), live);
      }
    }
  }
  return out;
}

Status WriteSecondaryIndexDefinition(TableContext& ctx, const std::string& partition, const std::string& column) {
  ARROW_RETURN_NOT_OK(CheckNewSecondaryIndexName(partition));
  return EditDefinitions(ctx, [&](nlohmann::json& defs) {
    defs[partition] = {{"indexName", partition},
                       {"indexType", "secondary_index"},
                       {"indexFunction", "identity"},
                       {"sourceFields", nlohmann::json::array({column})},
                       {"indexOptions", nlohmann::json::object()},
                       {"version", "V2"}};
  });
}

Status RemoveIndexDefinition(TableContext& ctx, const std::string& partition) {
  const std::string path = DefinitionsPath(ctx);
  ARROW_ASSIGN_OR_RAISE(bool exists, ctx.storage->Exists(path));
  if (!exists) return Status::OK();
  return EditDefinitions(ctx, [&](nlohmann::json& defs) { defs.erase(partition); });
}

}  // namespace lakeshore
