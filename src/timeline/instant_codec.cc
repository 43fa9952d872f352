#include "timeline/instant_codec.h"

#include <map>

#include <nlohmann/json.hpp>

#include "common/parse_number.h"
#include "format/avro_container.h"
#include "format/hoodie_avro_schemas.h"
#include "lakeshore/storage/storage.h"
#include "table/file_naming.h"

namespace lakeshore {
namespace {

using nlohmann::json;

/// Lakeshore's record-key ranges per base file, kept in extraMetadata (Hudi keeps them in the
/// file footers only; the simple index prunes with them without opening files).
constexpr const char* kKeyRanges = "lakeshore.key_ranges";
/// Hudi's clustering sort columns, in a clustering plan's strategy parameters.
constexpr const char* kClusteringSortColumns = "hoodie.clustering.plan.strategy.sort.columns";

std::string HudiOperation(const std::string& op) {
  if (op == "insert") return "INSERT";
  if (op == "upsert") return "UPSERT";
  if (op == "delete") return "DELETE";
  if (op == "bulk_insert") return "BULK_INSERT";
  std::string out = op;
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string LakeshoreOperation(const std::string& op) {
  std::string out = op;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

json Stat(const WriteStat& s) {
  return json{{"fileId", s.file_id},
              {"path", s.path},
              {"prevCommit", s.prev_base_instant.empty() ? "null" : s.prev_base_instant},
              {"numWrites", s.num_records},
              {"numDeletes", s.num_deletes},
              {"numUpdateWrites", s.num_updates},
              {"numInserts", s.num_inserts},
              {"totalWriteBytes", s.file_size},
              {"totalWriteErrors", 0},
              {"partitionPath", s.partition},
              {"fileSizeInBytes", s.file_size}};
}

Result<std::string> EncodeRecord(const char* schema_name, const json& record) {
  ARROW_ASSIGN_OR_RAISE(std::string schema, format::HoodieAvroSchema(schema_name));
  return format::WriteAvroContainer(schema, {record});
}

Result<std::string> EncodeCommit(const CommitMetadata& m, bool inflight, bool replace) {
  json by_partition = json::object();
  json ranges = json::object();
  if (inflight) {
    // The workload: a stat per file the write plans (Hudi's inflight names file groups).
    for (const auto& path : m.planned_files) {
      auto name = ParseDataFileName(BaseName(path));
      WriteStat s;
      s.path = path;
      s.file_id = name ? name->file_id : "";
      s.partition = std::string(ParentPath(path));
      by_partition[s.partition].push_back(Stat(s));
    }
  } else {
    for (const auto& s : m.write_stats) {
      by_partition[s.partition].push_back(Stat(s));
      if (!s.min_record_key.empty() || !s.max_record_key.empty()) {
        ranges[s.path] = json::array({s.min_record_key, s.max_record_key});
      }
    }
  }
  json extra = json::object();
  for (const auto& [k, v] : m.extra) extra[k] = v;
  if (!ranges.empty()) extra[kKeyRanges] = ranges.dump();
  json record = {{"partitionToWriteStats", by_partition},
                 {"compacted", m.operation == "compact"},
                 {"extraMetadata", extra},
                 {"operationType", HudiOperation(m.operation)}};
  if (!replace || inflight) return EncodeRecord("HoodieCommitMetadata", record);
  // A completed clustering is a replacecommit with operationType CLUSTER.
  json replaced = json::object();
  for (const auto& [partition, ids] : m.replaced_file_ids) replaced[partition] = ids;
  record["partitionToReplaceFileIds"] = replaced;
  return EncodeRecord("HoodieReplaceCommitMetadata", record);
}

std::string Absolute(const std::string& root, const std::string& path) { return JoinPath(root, path); }

/// A path Hudi wrote (absolute, maybe with a scheme) as a path relative to the table root.
Result<std::string> Relative(const std::string& root, const std::string& path, const std::string& source) {
  std::string p = path;
  for (const char* scheme : {"file://", "file:"}) {
    if (p.rfind(scheme, 0) == 0 && root.rfind(scheme, 0) != 0) {
      p = p.substr(std::string(scheme).size());
      break;
    }
  }
  const std::string prefix = root.empty() || root.back() == '/' ? root : root + "/";
  if (!prefix.empty() && p.rfind(prefix, 0) == 0) p = p.substr(prefix.size());
  auto normal = NormalizeRelativePath(p);
  if (!normal.ok() || *normal != p || p.empty()) {
    return PathOutsideTable("instant file " + source + " names '" + path + "', which is not a file inside the table");
  }
  return p;
}

Result<std::string> EncodeRollback(const Instant& instant, const CommitMetadata& m, const std::string& root) {
  if (!m.rollback) return Status::Invalid("rollback instant ", instant.time, " has no target instant");
  const RollbackRecord& rollback = *m.rollback;
  json target = {{"commitTime", rollback.target.time}, {"action", rollback.target.action}};
  std::map<std::string, json> by_partition;
  for (const auto& path : m.planned_files) by_partition[std::string(ParentPath(path))].push_back(Absolute(root, path));
  if (instant.state == InstantState::kRequested) {
    json requests = json::array();
    for (const auto& [partition, files] : by_partition) {
      requests.push_back({{"partitionPath", partition},
                          {"fileId", ""},
                          {"latestBaseInstant", ""},
                          {"filesToBeDeleted", files},
                          {"logBlocksToBeDeleted", json::object()}});
    }
    return EncodeRecord("HoodieRollbackPlan",
                        {{"instantToRollback", target}, {"RollbackRequests", requests}, {"version", 1}});
  }
  if (instant.state == InstantState::kInflight) return std::string();
  json partitions = json::object();
  for (const auto& [partition, files] : by_partition) {
    partitions[partition] = {{"partitionPath", partition}, {"successDeleteFiles", files},
                             {"failedDeleteFiles", json::array()}};
  }
  return EncodeRecord("HoodieRollbackMetadata",
                      {{"startRollbackTime", instant.time},
                       {"timeTakenInMillis", 0},
                       {"totalFilesDeleted", static_cast<int32_t>(rollback.files_deleted)},
                       {"commitsRollback", json::array({rollback.target.time})},
                       {"partitionMetadata", partitions},
                       {"version", 1},
                       {"instantsRollback", json::array({target})}});
}

Result<json> OneRecord(std::string_view content, const std::string& source) {
  ARROW_ASSIGN_OR_RAISE(auto container, format::ReadAvroContainer(content, source));
  if (container.records.size() != 1) {
    return CorruptMetadata("instant file '" + source + "' holds " + std::to_string(container.records.size()) +
                           " records, not 1");
  }
  return std::move(container.records[0]);
}

std::string StringAt(const json& j, const char* key) {
  auto it = j.is_object() ? j.find(key) : j.end();
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Result<CommitMetadata> DecodeRollback(const Instant& instant, std::string_view content, const std::string& root,
                                      const std::string& source) {
  CommitMetadata m;
  m.operation = "rollback";
  if (content.empty()) return m;
  ARROW_ASSIGN_OR_RAISE(json record, OneRecord(content, source));
  if (instant.state == InstantState::kRequested) {
    auto target = record.find("instantToRollback");
    if (target == record.end() || !target->is_object()) return CorruptMetadata("rollback plan '" + source + "' names no instant");
    m.rollback = RollbackRecord{Instant{StringAt(*target, "commitTime"), StringAt(*target, "action"), InstantState::kCompleted, ""}};
    auto requests = record.find("RollbackRequests");
    if (requests != record.end() && requests->is_array()) {
      for (const auto& r : *requests) {
        auto files = r.is_object() ? r.find("filesToBeDeleted") : r.end();
        if (files == r.end() || !files->is_array()) continue;
        for (const auto& f : *files) {
          if (!f.is_string()) continue;
          ARROW_ASSIGN_OR_RAISE(std::string rel, Relative(root, f.get<std::string>(), source));
          m.planned_files.push_back(std::move(rel));
        }
      }
    }
    return m;
  }
  RollbackRecord rollback;
  auto commits = record.find("commitsRollback");
  if (commits != record.end() && commits->is_array() && !commits->empty() && (*commits)[0].is_string()) {
    rollback.target.time = (*commits)[0].get<std::string>();
  }
  auto instants = record.find("instantsRollback");
  if (instants != record.end() && instants->is_array() && !instants->empty()) {
    rollback.target.action = StringAt((*instants)[0], "action");
  }
  auto deleted = record.find("totalFilesDeleted");
  if (deleted != record.end() && deleted->is_number_integer()) rollback.files_deleted = deleted->get<int64_t>();
  m.rollback = std::move(rollback);
  auto partitions = record.find("partitionMetadata");
  if (partitions != record.end() && partitions->is_object()) {
    for (const auto& [partition, meta] : partitions->items()) {
      auto files = meta.is_object() ? meta.find("successDeleteFiles") : meta.end();
      if (files == meta.end() || !files->is_array()) continue;
      for (const auto& f : *files) {
        if (!f.is_string()) continue;
        // A record of what was deleted, possibly where the table lived before it was moved:
        // paths that are not inside the table now are only history.
        auto rel = Relative(root, f.get<std::string>(), source);
        if (rel.ok()) m.planned_files.push_back(std::move(*rel));
      }
    }
  }
  return m;
}

/// A requested replacecommit or clustering (HoodieRequestedReplaceMetadata, an Avro container
/// file in both layouts): the input file groups of its clustering plan. An insert_overwrite's
/// request has no plan; an empty file is an empty request.
Result<CommitMetadata> DecodeRequestedReplace(std::string_view content, const std::string& root,
                                              const std::string& source) {
  CommitMetadata m;
  if (content.empty()) return m;
  ARROW_ASSIGN_OR_RAISE(json record, OneRecord(content, source));
  m.operation = StringAt(record, "operationType");
  auto plan = record.find("clusteringPlan");
  if (plan == record.end() || !plan->is_object()) return m;
  auto groups = plan->find("inputGroups");
  if (groups == plan->end() || !groups->is_array()) return m;
  for (const auto& group : *groups) {
    CommitMetadata::ClusteringGroup planned;
    auto outputs = group.is_object() ? group.find("numOutputFileGroups") : group.end();
    if (outputs != group.end() && outputs->is_number_integer()) planned.num_output_groups = std::max<int64_t>(1, outputs->get<int64_t>());
    auto slices = group.is_object() ? group.find("slices") : group.end();
    if (slices == group.end() || !slices->is_array()) continue;
    for (const auto& slice : *slices) {
      PlannedSlice ps;
      ps.file_id = StringAt(slice, "fileId");
      ps.partition = StringAt(slice, "partitionPath");
      if (ps.file_id.empty()) return CorruptMetadata("clustering plan '" + source + "' names a slice without a fileId");
      m.clustering_file_ids[ps.partition].push_back(ps.file_id);
      // Hudi names the files by path; a plan of a table that moved is only history here.
      const std::string base = StringAt(slice, "dataFilePath");
      if (!base.empty()) {
        auto rel = Relative(root, base, source);
        if (rel.ok()) ps.base_file = *rel;
        auto name = ParseDataFileName(BaseName(ps.base_file));
        if (name) ps.base_instant = name->instant_time;
      }
      auto logs = slice.find("deltaFilePaths");
      if (logs != slice.end() && logs->is_array()) {
        for (const auto& l : *logs) {
          if (!l.is_string()) continue;
          auto rel = Relative(root, l.get<std::string>(), source);
          if (rel.ok()) ps.log_files.push_back(*rel);
        }
      }
      planned.slices.push_back(std::move(ps));
    }
    m.clustering_groups.push_back(std::move(planned));
  }
  auto strategy = plan->find("strategy");
  if (strategy != plan->end() && strategy->is_object()) {
    auto params = strategy->find("strategyParams");
    if (params != strategy->end() && params->is_object()) {
      const std::string columns = StringAt(*params, kClusteringSortColumns);
      size_t start = 0;
      while (start < columns.size()) {
        size_t comma = columns.find(',', start);
        if (comma == std::string::npos) comma = columns.size();
        if (comma > start) m.clustering_sort_columns.push_back(columns.substr(start, comma - start));
        start = comma + 1;
      }
    }
  }
  return m;
}

/// A requested clustering: HoodieRequestedReplaceMetadata (operationType CLUSTER) with its
/// HoodieClusteringPlan: per input group the slices (files by absolute path, as Hudi names
/// them) and the number of output file groups; the sort columns in the strategy's parameters.
Result<std::string> EncodeClusteringPlan(const CommitMetadata& m, const std::string& root) {
  json groups = json::array();
  for (const auto& g : m.clustering_groups) {
    json slices = json::array();
    for (const auto& ps : g.slices) {
      json logs = json::array();
      for (const auto& l : ps.log_files) logs.push_back(Absolute(root, l));
      slices.push_back({{"dataFilePath", ps.base_file.empty() ? std::string() : Absolute(root, ps.base_file)},
                        {"deltaFilePaths", logs},
                        {"fileId", ps.file_id},
                        {"partitionPath", ps.partition},
                        {"bootstrapFilePath", ""},
                        {"version", 1}});
    }
    groups.push_back({{"slices", slices},
                      {"metrics", nullptr},
                      {"numOutputFileGroups", static_cast<int32_t>(g.num_output_groups)},
                      {"extraMetadata", nullptr},
                      {"version", 1}});
  }
  std::string sort_columns;
  for (const auto& c : m.clustering_sort_columns) sort_columns += (sort_columns.empty() ? "" : ",") + c;
  json params = json::object();
  if (!sort_columns.empty()) params[kClusteringSortColumns] = sort_columns;
  json plan = {{"inputGroups", groups},
               {"strategy",
                {{"strategyClassName", "org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy"},
                 {"strategyParams", params},
                 {"version", 1}}},
               {"extraMetadata", nullptr},
               {"version", 1},
               {"preserveHoodieMetadata", true},
               {"missingSchedulePartitions", nullptr}};
  return EncodeRecord("HoodieRequestedReplaceMetadata",
                      {{"operationType", "CLUSTER"}, {"clusteringPlan", plan}, {"extraMetadata", json::object()}, {"version", 1}});
}

/// A requested compaction: HoodieCompactionPlan (version 2), files named as Hudi names them
/// (file names, the partition apart).
Result<std::string> EncodeCompactionPlan(const CommitMetadata& m) {
  json operations = json::array();
  for (const auto& op : m.compaction) {
    json logs = json::array();
    for (const auto& log : op.log_files) logs.push_back(std::string(BaseName(log)));
    operations.push_back({{"baseInstantTime", op.base_instant},
                          {"deltaFilePaths", logs},
                          {"dataFilePath", op.base_file.empty() ? json(nullptr) : json(std::string(BaseName(op.base_file)))},
                          {"fileId", op.file_id},
                          {"partitionPath", op.partition},
                          {"metrics", nullptr},
                          {"bootstrapFilePath", nullptr}});
  }
  return EncodeRecord("HoodieCompactionPlan", {{"operations", operations},
                                               {"extraMetadata", nullptr},
                                               {"version", 2},
                                               {"strategy", nullptr},
                                               {"preserveHoodieMetadata", true}});
}

/// The slices of a requested compaction. A file name with a folder in it (not Hudi's form) or a
/// slice without a file id → kCorruptMetadata naming `source`.
Result<CommitMetadata> DecodeCompactionPlan(std::string_view content, const std::string& source) {
  CommitMetadata m;
  m.operation = "compact";
  if (content.empty()) return m;
  ARROW_ASSIGN_OR_RAISE(json record, OneRecord(content, source));
  auto operations = record.find("operations");
  if (operations == record.end() || !operations->is_array()) return m;
  auto file_in = [&](const std::string& partition, const std::string& name) -> Result<std::string> {
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
      return CorruptMetadata("compaction plan '" + source + "' names '" + name + "', which is not a file name");
    }
    return JoinPath(partition, name);
  };
  for (const auto& o : *operations) {
    PlannedSlice op;
    op.partition = StringAt(o, "partitionPath");
    op.file_id = StringAt(o, "fileId");
    op.base_instant = StringAt(o, "baseInstantTime");
    if (op.file_id.empty()) return CorruptMetadata("compaction plan '" + source + "' has an operation without a fileId");
    const std::string base = StringAt(o, "dataFilePath");
    if (!base.empty()) {
      ARROW_ASSIGN_OR_RAISE(op.base_file, file_in(op.partition, std::string(BaseName(base))));
    }
    auto logs = o.find("deltaFilePaths");
    if (logs != o.end() && logs->is_array()) {
      for (const auto& l : *logs) {
        if (!l.is_string()) continue;
        ARROW_ASSIGN_OR_RAISE(auto path, file_in(op.partition, std::string(BaseName(l.get<std::string>()))));
        op.log_files.push_back(std::move(path));
      }
    }
    m.compaction.push_back(std::move(op));
  }
  return m;
}

Result<std::string> EncodeRestore(const Instant& instant, const CommitMetadata& m) {
  if (!m.restore) return Status::Invalid("restore instant ", instant.time, " has no plan");
  json infos = json::array();
  json times = json::array();
  json details = json::object();
  for (const auto& t : m.restore->targets) {
    infos.push_back({{"commitTime", t.time}, {"action", t.action}});
    times.push_back(t.time);
    details[t.time] = json::array();
  }
  if (instant.state == InstantState::kRequested) {
    return EncodeRecord("HoodieRestorePlan", {{"instantsToRollback", infos},
                                              {"version", 2},
                                              {"savepointToRestoreTimestamp", m.restore->savepoint}});
  }
  if (instant.state == InstantState::kInflight) return std::string();
  return EncodeRecord("HoodieRestoreMetadata", {{"startRestoreTime", instant.time},
                                                {"timeTakenInMillis", 0},
                                                {"instantsToRollback", times},
                                                {"hoodieRestoreMetadata", details},
                                                {"version", 1},
                                                {"restoreInstantInfo", infos},
                                                {"extraMetadata", nullptr}});
}

Result<CommitMetadata> DecodeRestore(const Instant& instant, std::string_view content, const std::string& source) {
  CommitMetadata m;
  m.operation = "restore";
  if (content.empty()) return m;
  ARROW_ASSIGN_OR_RAISE(json record, OneRecord(content, source));
  RestoreRecord restore;
  auto field = instant.state == InstantState::kRequested ? "instantsToRollback" : "restoreInstantInfo";
  auto infos = record.find(field);
  if (infos != record.end() && infos->is_array()) {
    for (const auto& info : *infos) {
      const std::string time = StringAt(info, "commitTime");
      if (time.empty()) return CorruptMetadata("restore instant '" + source + "' names an instant without a time");
      restore.targets.push_back(Instant{time, StringAt(info, "action"), InstantState::kCompleted, ""});
    }
  }
  restore.savepoint = StringAt(record, "savepointToRestoreTimestamp");
  m.restore = std::move(restore);
  return m;
}

}  // namespace

Result<std::string> InstantCodec::Encode(const Instant& instant, const CommitMetadata& metadata) const {
  if (layout != TimelineLayout::kV2) {
    return UnsupportedFeature("this build writes timeline layout 2 only (table versions 8 and 9)");
  }
  if (instant.action == actions::kRollback) return EncodeRollback(instant, metadata, table_root);
  if (instant.action == actions::kRestore) return EncodeRestore(instant, metadata);
  if (actions::WritesData(instant.action)) {
    const bool replace = instant.action == actions::kReplaceCommit || instant.action == actions::kClustering;
    if (instant.action == actions::kClustering && !instant.is_completed()) {
      // Requested: the plan. Inflight: empty.
      return instant.state == InstantState::kRequested ? EncodeClusteringPlan(metadata, table_root) : std::string();
    }
    if (instant.action == actions::kCompaction && !instant.is_completed()) {
      // Requested: the plan. Inflight: empty, as Hudi 1.x writes it.
      return instant.state == InstantState::kRequested ? EncodeCompactionPlan(metadata) : std::string();
    }
    if (instant.state == InstantState::kRequested) {
      if (!replace) return std::string();
      // Hudi's request of an insert_overwrite or delete_partition: the operation, no plan.
      return EncodeRecord("HoodieRequestedReplaceMetadata", {{"operationType", HudiOperation(metadata.operation)},
                                                             {"clusteringPlan", nullptr},
                                                             {"extraMetadata", json::object()},
                                                             {"version", 1}});
    }
    return EncodeCommit(metadata, instant.state == InstantState::kInflight, replace);
  }
  return UnsupportedFeature("this build does not write " + instant.action + " instants");
}

Result<CommitMetadata> InstantCodec::Decode(const Instant& instant, std::string_view content,
                                            const std::string& source) const {
  if (instant.action == actions::kRollback) {
    if (layout == TimelineLayout::kV1) return CommitMetadata{};  // not needed from version-6 tables
    return DecodeRollback(instant, content, table_root, source);
  }
  if (instant.action == actions::kRestore) {
    if (layout == TimelineLayout::kV1) return CommitMetadata{};  // not needed from version-6 tables
    return DecodeRestore(instant, content, source);
  }
  if (!actions::WritesData(instant.action)) return CommitMetadata{};
  if (instant.state == InstantState::kRequested && instant.action == actions::kCompaction) {
    return DecodeCompactionPlan(content, source);
  }
  if (instant.state == InstantState::kRequested &&
      (instant.action == actions::kReplaceCommit || instant.action == actions::kClustering)) {
    return DecodeRequestedReplace(content, table_root, source);
  }
  // Other requested files hold plans (compaction) or nothing; a pending compaction or
  // clustering's inflight file is empty or its plan too.
  if (instant.state == InstantState::kRequested) return CommitMetadata{};
  if (!instant.is_completed() && actions::CompletedAction(instant.action) != instant.action) return CommitMetadata{};
  if (instant.is_completed() && content.empty()) {
    // Hudi writes every completed commit with its metadata (an empty commit too). Read as a
    // commit of nothing, an emptied file hid the files it wrote (rows vanished, a replace's
    // replaced rows came back) and a vacuum would have deleted them as named by no commit.
    return CorruptMetadata("completed instant file '" + source +
                           "' is empty: a completed commit states the files it wrote");
  }
  ARROW_ASSIGN_OR_RAISE(CommitMetadata m, CommitMetadata::FromHoodie(content, layout, source));
  m.operation = LakeshoreOperation(m.operation);
  auto ranges_it = m.extra.find(kKeyRanges);
  if (ranges_it != m.extra.end()) {
    json ranges = json::parse(ranges_it->second, nullptr, /*allow_exceptions=*/false);
    if (ranges.is_object()) {
      for (auto& s : m.write_stats) {
        auto r = ranges.find(s.path);
        if (r != ranges.end() && r->is_array() && r->size() == 2 && (*r)[0].is_string() && (*r)[1].is_string()) {
          s.min_record_key = (*r)[0].get<std::string>();
          s.max_record_key = (*r)[1].get<std::string>();
        }
      }
    }
    m.extra.erase(ranges_it);
  }
  if (instant.state == InstantState::kInflight) {
    for (const auto& s : m.write_stats) {
      if (!s.path.empty()) m.planned_files.push_back(s.path);
    }
    m.write_stats.clear();
  }
  return m;
}

}  // namespace lakeshore
