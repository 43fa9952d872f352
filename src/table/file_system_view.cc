#include "table/file_system_view.h"

#include <algorithm>
#include <iterator>

#include "lakeshore/storage/storage.h"
#include "table/file_naming.h"

namespace lakeshore {

namespace {

/// The slice of `group` with base instant `base_instant`, created (in base-instant order) if
/// the group has none.
FileSlice& SliceAt(FileGroup& group, const std::string& base_instant, const std::string& completion) {
  for (auto it = group.slices.rbegin(); it != group.slices.rend(); ++it) {
    if (it->base_instant == base_instant && !it->retired) return *it;
  }
  FileSlice slice;
  slice.base_instant = base_instant;
  slice.completion_time = completion;
  auto pos = group.slices.end();
  while (pos != group.slices.begin() && std::prev(pos)->base_instant > base_instant) --pos;
  return *group.slices.insert(pos, std::move(slice));
}

}  // namespace

FileSystemView FileSystemView::Build(const std::vector<CompletedCommit>& commits,
                                     const std::string& as_of_completion) {
  FileSystemView view;
  for (const auto& commit : commits) {
    if (!as_of_completion.empty() && commit.instant.completion_time > as_of_completion) continue;
    if (!actions::WritesData(commit.instant.action)) continue;
    for (const auto& stat : commit.metadata.write_stats) {
      FileGroup& group = view.partitions_[stat.partition][stat.file_id];
      group.partition = stat.partition;
      group.file_id = stat.file_id;
      if (stat.retired) {
        FileSlice slice;
        slice.base_instant = commit.instant.time;
        slice.completion_time = commit.instant.completion_time;
        slice.retired = true;
        group.slices.push_back(std::move(slice));
        continue;
      }
      // A file's name says which slice it belongs to: a base file starts the slice of its
      // instant; a log file joins the slice of its base instant.
      const std::optional<DataFileName> name = ParseDataFileName(BaseName(stat.path));
      const std::string base_instant = name ? name->instant_time : commit.instant.time;
      FileSlice& slice = SliceAt(group, base_instant, commit.instant.completion_time);
      if (name && name->is_log) {
        if (std::find(slice.log_files.begin(), slice.log_files.end(), stat.path) == slice.log_files.end()) {
          slice.log_files.push_back(stat.path);
        }
      } else {
        slice.base_file = BaseFile{stat.path, stat.file_size, stat.num_records,
                                   stat.min_record_key, stat.max_record_key};
        slice.completion_time = commit.instant.completion_time;
      }
    }
    // A replacecommit ends the file groups it replaced.
    for (const auto& [partition, ids] : commit.metadata.replaced_file_ids) {
      auto p = view.partitions_.find(partition);
      if (p == view.partitions_.end()) continue;
      for (const auto& id : ids) {
        auto g = p->second.find(id);
        if (g == p->second.end() || !g->second.is_live()) continue;
        FileSlice end;
        end.base_instant = commit.instant.time;
        end.completion_time = commit.instant.completion_time;
        end.retired = true;
        g->second.slices.push_back(std::move(end));
      }
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

std::vector<const FileGroup*> FileSystemView::AllFileGroups() const {
  std::vector<const FileGroup*> out;
  for (const auto& [p, groups] : partitions_)
    for (const auto& [id, group] : groups) out.push_back(&group);
  return out;
}

}  // namespace lakeshore
