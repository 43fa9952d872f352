#include "write/write_planner.h"

#include <algorithm>
#include <map>

#include "lakeshore/storage/storage.h"
#include "table/file_naming.h"

namespace lakeshore {
namespace {
FileGroupWrite ForExisting(const FileGroup& group) {
  FileGroupWrite w;
  w.partition = group.partition;
  w.file_id = group.file_id;
  w.old_base = group.latest().base_file;
  w.prev_base_instant = group.latest().base_instant;
  return w;
}

FileGroupWrite ForNew(const std::string& partition) {
  FileGroupWrite w;
  w.partition = partition;
  w.file_id = NewFileId();
  return w;
}
}  // namespace

int64_t AverageRecordSize(const FileSystemView& view, int64_t fallback) {
  int64_t bytes = 0, records = 0;
  for (const FileGroup* g : view.LiveFileGroups()) {
    const auto& base = g->latest().base_file;
    // A log-only slice says nothing; a small file is mostly its footer (the bloom filter alone
    // is ~430 KB), as Hudi skips commits below its size threshold.
    if (!base || base->size < kRecordSizeEstimationMinFileBytes) continue;
    bytes += base->size;
    records += base->num_records;
  }
  return records > 0 ? std::max<int64_t>(1, bytes / records) : fallback;
}

std::vector<FileGroupWrite> PlanFileGroupWrites(WriteOperation op, const WriteInput& input,
                                                const std::vector<std::optional<std::string>>& tags,
                                                const FileSystemView& view, const WritePlanSettings& settings,
                                                const std::string& instant_time,
                                                const std::set<std::pair<std::string, std::string>>& frozen,
                                                const std::vector<std::pair<int64_t, std::string>>& more_copies) {
  // Existing groups touched by updates or deletes, by (partition, file id).
  std::map<std::pair<std::string, std::string>, FileGroupWrite> existing;
  // Inserts by partition id (a vector per distinct partition: no per-row lookups).
  std::vector<std::vector<int64_t>> inserts_by_id(input.partitions.paths.size());
  bool tagged = op == WriteOperation::kUpsert || op == WriteOperation::kDelete;
  if (!tagged) {  // all rows are inserts: size each partition's list once
    std::vector<size_t> counts(inserts_by_id.size(), 0);
    for (int64_t r : input.rows) ++counts[static_cast<size_t>(input.partitions.id_of_row[static_cast<size_t>(r)])];
    for (size_t id = 0; id < counts.size(); ++id) inserts_by_id[id].reserve(counts[id]);
  }
  auto to_stored = [&](int64_t r, const std::string& file_id) {
    const std::string& partition = input.partitions.PathOf(r);
    auto key = std::make_pair(partition, file_id);
    auto it = existing.find(key);
    if (it == existing.end()) it = existing.emplace(key, ForExisting(*view.Find(partition, file_id))).first;
    (op == WriteOperation::kDelete ? it->second.deletes : it->second.upserts).push_back(r);
  };
  for (int64_t r : input.rows) {
    if (tagged && tags[r]) {
      to_stored(r, *tags[r]);
    } else if (op != WriteOperation::kDelete) {
      inserts_by_id[static_cast<size_t>(input.partitions.id_of_row[static_cast<size_t>(r)])].push_back(r);
    }
  }
  if (tagged) {
    for (const auto& [r, file_id] : more_copies) to_stored(r, file_id);
  }

  int64_t record_size = AverageRecordSize(
      view, input.bytes_per_record > 0 ? input.bytes_per_record : settings.record_size_estimate_bytes);
  int64_t per_file = std::max<int64_t>(1, settings.max_file_size_bytes / record_size);
  std::vector<FileGroupWrite> fresh;
  std::set<std::pair<std::string, std::string>> packed;  // existing groups that take inserts
  for (size_t id = 0; id < inserts_by_id.size(); ++id) {
    auto& rows = inserts_by_id[id];
    if (rows.empty()) continue;
    const std::string& partition = input.partitions.paths[id];
    // Rows keep their input order (as Hudi's default bulk-insert sort mode NONE): a sort by key
    // would make file key ranges disjoint, but costs a string sort of the whole batch; input
    // that arrives ordered by key (time-ordered ids) gets disjoint ranges anyway.
    size_t next = 0;
    int64_t rows_per_file = per_file;
    if (op == WriteOperation::kBulkInsert && settings.bulk_insert_parallelism > 1) {
      // Even files, as many as the cores but none below the minimum row count.
      const int64_t n = static_cast<int64_t>(rows.size());
      const int64_t files = std::max<int64_t>(
          1, std::min<int64_t>(settings.bulk_insert_parallelism, n / std::max<int64_t>(1, settings.bulk_insert_min_file_rows)));
      rows_per_file = std::min(per_file, (n + files - 1) / files);
    }
    bool pack = op != WriteOperation::kBulkInsert && settings.small_file_limit_bytes > 0;
    if (pack) {
      for (const FileGroup* group : view.LiveFileGroupsIn(partition)) {
        if (next >= rows.size()) break;
        // A slice with log files is no small file: rewriting its base would drop their records
        // (Hudi's rule for an index that cannot see log files).
        if (!group->latest().base_file || !group->latest().log_files.empty()) continue;
        int64_t size = group->latest().base_file->size;
        if (size >= settings.small_file_limit_bytes || frozen.count({partition, group->file_id})) continue;
        int64_t room = (settings.max_file_size_bytes - size) / record_size;
        if (room <= 0) continue;
        auto key = std::make_pair(partition, group->file_id);
        auto it = existing.find(key);
        if (it == existing.end()) it = existing.emplace(key, ForExisting(*group)).first;
        // An insert's rows go beside the stored ones (a stored key is stored again); an upsert's
        // new keys are new to the group.
        it->second.concat = op == WriteOperation::kInsert;
        size_t take = std::min<size_t>(static_cast<size_t>(room), rows.size() - next);
        packed.insert(key);
        it->second.upserts.insert(it->second.upserts.end(), rows.begin() + next, rows.begin() + next + take);
        next += take;
      }
    }
    while (next < rows.size()) {
      FileGroupWrite w = ForNew(partition);
      size_t take = std::min<size_t>(static_cast<size_t>(rows_per_file), rows.size() - next);
      w.upserts.assign(rows.begin() + next, rows.begin() + next + take);
      next += take;
      fresh.push_back(std::move(w));
    }
  }

  std::vector<FileGroupWrite> plan;
  for (auto& [key, w] : existing) plan.push_back(std::move(w));
  for (auto& w : fresh) plan.push_back(std::move(w));
  std::string token = NewWriteToken();
  for (auto& w : plan) {
    // Merge-on-read: updates and deletes of an existing group go to a new log file of its latest
    // slice; a group that takes inserts (a small file, so without log files) gets a new base.
    const bool existing_group = !w.prev_base_instant.empty();
    w.append_log = settings.merge_on_read && existing_group && packed.count({w.partition, w.file_id}) == 0;
    w.new_path = JoinPath(w.partition, w.append_log ? LogFileName(w.file_id, instant_time, 1, token)
                                                    : BaseFileName(w.file_id, token, instant_time));
  }
  return plan;
}

}  // namespace lakeshore
