#include "table/file_system_view.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <tuple>

#include "lakeshore/storage/storage.h"
#include "table/file_naming.h"

namespace lakeshore {

namespace {

/// What the completed commits say about one file group, before slices are formed.
struct GroupEvents {
  struct Log {
    std::string path;
    std::string name_instant;  ///< the instant in the log file's name
    std::string completion;    ///< completion time of the commit that wrote it
    int64_t version = 0;
    std::string write_token;
  };
  std::map<std::string, FileSlice> slices;  ///< by base instant: base files and ends
  std::vector<Log> logs;
};

/// The slice a log file joins. Layout 1 names the base instant in the log file's name; layout 2
/// names the deltacommit that wrote it, and the log joins the newest slice whose base instant
/// is not after that deltacommit's completion (Hudi 1.x's completion-time file slicing).
FileSlice& SliceOfLog(GroupEvents& g, const GroupEvents::Log& log, TimelineLayout layout) {
  const std::string& bound = layout == TimelineLayout::kV1 ? log.name_instant : log.completion;
  auto it = g.slices.upper_bound(bound);
  if (layout == TimelineLayout::kV1) {
    auto exact = g.slices.find(log.name_instant);
    if (exact != g.slices.end()) return exact->second;
  } else if (it != g.slices.begin() && !std::prev(it)->second.retired) {
    return std::prev(it)->second;
  }
  // No base yet (a log-only file group): the log starts a slice of its own.
  FileSlice& slice = g.slices[log.name_instant];
  slice.base_instant = log.name_instant;
  slice.completion_time = log.completion;
  return slice;
}

}  // namespace

FileSystemView FileSystemView::Build(const std::vector<CompletedCommit>& commits,
                                     const std::string& as_of_completion, TimelineLayout layout) {
  std::map<std::string, std::map<std::string, GroupEvents>> events;
  for (const auto& commit : commits) {
    if (!as_of_completion.empty() && commit.instant.completion_time > as_of_completion) continue;
    if (!actions::WritesData(commit.instant.action)) continue;
    for (const auto& stat : commit.metadata.write_stats) {
      GroupEvents& g = events[stat.partition][stat.file_id];
      if (stat.retired) {
        FileSlice& end = g.slices[commit.instant.time];
        end.base_instant = commit.instant.time;
        end.completion_time = commit.instant.completion_time;
        end.retired = true;
        continue;
      }
      // A file's name says which slice it belongs to: a base file starts the slice of its
      // instant; a log file joins a slice (see SliceOfLog).
      const std::optional<DataFileName> name = ParseDataFileName(BaseName(stat.path));
      if (name && name->is_log) {
        g.logs.push_back({stat.path, name->instant_time, commit.instant.completion_time, name->log_version,
                          name->write_token});
        continue;
      }
      const std::string base_instant = name ? name->instant_time : commit.instant.time;
      FileSlice& slice = g.slices[base_instant];
      slice.base_instant = base_instant;
      slice.completion_time = commit.instant.completion_time;
      slice.base_file = BaseFile{stat.path, stat.file_size, stat.num_records, stat.min_record_key, stat.max_record_key};
    }
    // A replacecommit ends the file groups it replaced.
    for (const auto& [partition, ids] : commit.metadata.replaced_file_ids) {
      for (const auto& id : ids) {
        auto p = events.find(partition);
        if (p == events.end() || p->second.count(id) == 0) continue;
        FileSlice& end = p->second[id].slices[commit.instant.time + "~replaced"];
        end.base_instant = commit.instant.time;
        end.completion_time = commit.instant.completion_time;
        end.retired = true;
      }
    }
  }
  FileSystemView view;
  for (auto& [partition, groups] : events) {
    for (auto& [file_id, g] : groups) {
      std::sort(g.logs.begin(), g.logs.end(), [&](const GroupEvents::Log& a, const GroupEvents::Log& b) {
        const auto& ka = layout == TimelineLayout::kV1 ? a.name_instant : a.completion;
        const auto& kb = layout == TimelineLayout::kV1 ? b.name_instant : b.completion;
        return std::tie(ka, a.version, a.write_token) < std::tie(kb, b.version, b.write_token);
      });
      for (const auto& log : g.logs) {
        FileSlice& slice = SliceOfLog(g, log, layout);
        if (std::find(slice.log_files.begin(), slice.log_files.end(), log.path) == slice.log_files.end()) {
          slice.log_files.push_back(log.path);
        }
      }
      FileGroup& group = view.partitions_[partition][file_id];
      group.partition = partition;
      group.file_id = file_id;
      for (auto& [base, slice] : g.slices) group.slices.push_back(std::move(slice));
      // A group's end (retired or replaced) stays its last slice.
      std::stable_partition(group.slices.begin(), group.slices.end(), [](const FileSlice& s) { return !s.retired; });
    }
  }
  return view;
}

std::vector<const FileGroup*> FileSystemView::LiveFileGroups(
    const std::function<bool(const std::string&)>& keep) const {
  std::vector<const FileGroup*> out;
  for (const auto& [partition, groups] : partitions_) {
    if (keep && !keep(partition)) continue;
    for (const auto& [id, group] : groups)
      if (group.is_live()) out.push_back(&group);
  }
  return out;
}

std::vector<const FileGroup*> FileSystemView::LiveFileGroupsIn(const std::string& partition) const {
  std::vector<const FileGroup*> out;
  auto it = partitions_.find(partition);
  if (it == partitions_.end()) return out;
  for (const auto& [id, group] : it->second)
    if (group.is_live()) out.push_back(&group);
  return out;
}

const FileGroup* FileSystemView::Find(const std::string& partition, const std::string& file_id) const {
  auto it = partitions_.find(partition);
  if (it == partitions_.end()) return nullptr;
  auto g = it->second.find(file_id);
  return g == it->second.end() ? nullptr : &g->second;
}

std::vector<std::string> FileSystemView::Partitions() const {
  std::vector<std::string> out;
  for (const auto& [p, groups] : partitions_) out.push_back(p);
  return out;
}

Status FileSystemView::CheckKnownPartitions(const std::vector<std::string>& partitions, const std::string& what) const {
  for (const auto& partition : partitions) {
    if (partitions_.count(partition)) continue;
    std::string known;
    int shown = 0;
    for (const auto& [p, groups] : partitions_) {
      if (shown++ == 5) break;
      known += (known.empty() ? "" : ", ") + ("'" + p + "'");
    }
    return Status::Invalid(what, ": partition '", partition, "' was never written (",
                           known.empty() ? "the table holds no data" : "its partitions are paths such as " + known,
                           ")");
  }
  return Status::OK();
}

std::vector<const FileGroup*> FileSystemView::AllFileGroups() const {
  std::vector<const FileGroup*> out;
  for (const auto& [p, groups] : partitions_)
    for (const auto& [id, group] : groups) out.push_back(&group);
  return out;
}

}  // namespace lakeshore
