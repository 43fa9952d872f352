#include "table/file_system_view.h"

namespace lakeshore {

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
      FileSlice slice;
      slice.base_instant = commit.instant.time;
      slice.completion_time = commit.instant.completion_time;
      slice.retired = stat.retired;
      if (!stat.retired) {
        slice.base_file = BaseFile{stat.path, stat.file_size, stat.num_records,
                                   stat.min_record_key, stat.max_record_key};
      }
      group.slices.push_back(std::move(slice));
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
