#include "read/table_view.h"

#include <map>

#include "table/file_naming.h"

namespace lakeshore {
namespace {

/// Commits standing for the data files of a listing: one per instant named by a visible file.
Result<std::vector<CompletedCommit>> CommitsFromListing(TableContext& ctx, const Timeline& timeline,
                                                        const std::vector<CompletedCommit>& commits,
                                                        const std::string& bound) {
  std::string first_active;
  std::map<std::string, std::string> completion_of;  // completed instant → completion time
  for (const auto& i : timeline.instants()) {
    if (first_active.empty() || i.time < first_active) first_active = i.time;
    if (i.is_completed()) completion_of[i.time] = i.completion_time;
  }
  ARROW_ASSIGN_OR_RAISE(auto entries, ctx.storage->List("", /*recursive=*/true));
  std::map<std::string, CompletedCommit> by_instant;
  for (const auto& e : entries) {
    if (e.is_dir || e.path.rfind(".hoodie", 0) == 0) continue;
    const std::optional<DataFileName> name = ParseDataFileName(BaseName(e.path));
    if (!name || name->is_cdc) continue;
    std::string completion;
    auto done = completion_of.find(name->instant_time);
    if (done != completion_of.end()) {
      completion = done->second;
    } else if (!first_active.empty() && name->instant_time < first_active) {
      completion = name->instant_time;  // archived: completed before the active timeline
    } else {
      continue;  // pending or failed
    }
    if (!bound.empty() && completion > bound) continue;
    CompletedCommit& c = by_instant[name->instant_time];
    c.instant = Instant{name->instant_time, actions::kCommit, InstantState::kCompleted, completion};
    WriteStat stat;
    stat.partition = ParentPath(e.path);
    stat.file_id = name->file_id;
    stat.path = e.path;
    stat.file_size = e.size;
    c.metadata.write_stats.push_back(std::move(stat));
  }
  std::vector<CompletedCommit> out;
  for (auto& [time, c] : by_instant) out.push_back(std::move(c));
  // The active replacecommits end the groups they replaced, as in hudi-rs.
  for (const auto& c : commits) {
    if (c.metadata.replaced_file_ids.empty()) continue;
    CompletedCommit replace;
    replace.instant = c.instant;
    replace.metadata.replaced_file_ids = c.metadata.replaced_file_ids;
    out.push_back(std::move(replace));
  }
  std::stable_sort(out.begin(), out.end(), [](const CompletedCommit& a, const CompletedCommit& b) {
    return a.instant.completion_time < b.instant.completion_time;
  });
  return out;
}

}  // namespace

Result<FileSystemView> TableView(TableContext& ctx, const Timeline& timeline,
                                 const std::vector<CompletedCommit>& commits, const std::string& bound) {
  if (!ctx.has_unread_archive) return FileSystemView::Build(commits, bound, ctx.timeline_location.layout);
  ARROW_ASSIGN_OR_RAISE(auto listed, CommitsFromListing(ctx, timeline, commits, bound));
  return FileSystemView::Build(listed, bound, ctx.timeline_location.layout);
}

}  // namespace lakeshore
