// The file system view: partitions -> file groups -> file slices, as of an instant, built
// from commit metadata on the timeline (never from listing storage).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "timeline/commit_metadata.h"
#include "timeline/instant.h"

namespace lakeshore {

/// A base file of a slice.
struct BaseFile {
  std::string path;  ///< relative to the table root
  int64_t size = 0;
  int64_t num_records = 0;
  std::string min_record_key;
  std::string max_record_key;
};

/// One version of a file group: a base instant with its base file (log files on top come with
/// merge-on-read). A retired slice marks the end of a file group whose records were all deleted.
struct FileSlice {
  std::string base_instant;
  std::string completion_time;
  std::optional<BaseFile> base_file;
  std::vector<std::string> log_files;
  bool retired = false;
};

/// One fileId in one partition, with its slices oldest first.
struct FileGroup {
  std::string partition;
  std::string file_id;
  std::vector<FileSlice> slices;

  /// The newest slice. Never null for a group in a view.
  const FileSlice& latest() const { return slices.back(); }
  /// True when the latest slice is not retired (the group holds live records).
  bool is_live() const { return !slices.back().retired; }
};

/// A completed instant with its parsed metadata, the unit the view is built from.
struct CompletedCommit {
  Instant instant;
  CommitMetadata metadata;
};

/// Partitions -> file groups -> slices.
class FileSystemView {
 public:
  /// Builds the view from completed commits, applying those whose completion time is
  /// <= `as_of_completion` (empty: all). A base file starts the slice of the instant in its
  /// name; a log file joins the slice its name names (layout 1) or the newest slice based
  /// before its commit completed (layout 2); a replacecommit ends the groups it replaced.
  /// Cost: linear in the stats (plus a sort of each group's log files).
  static FileSystemView Build(const std::vector<CompletedCommit>& commits,
                              const std::string& as_of_completion = "",
                              TimelineLayout layout = TimelineLayout::kV2);

  /// Live file groups (latest slice not retired) of every partition accepted by `keep`
  /// (null: all), ordered by partition then file id.
  std::vector<const FileGroup*> LiveFileGroups(
      const std::function<bool(const std::string&)>& keep = nullptr) const;
  /// Live file groups of one partition.
  std::vector<const FileGroup*> LiveFileGroupsIn(const std::string& partition) const;
  /// The file group, or null.
  const FileGroup* Find(const std::string& partition, const std::string& file_id) const;
  /// Partitions that have at least one file group (live or not).
  std::vector<std::string> Partitions() const;
  /// Every file group, live or retired.
  std::vector<const FileGroup*> AllFileGroups() const;
  /// kInvalid naming the first of `partitions` (partition paths) no file group was ever written
  /// in, with a few that were: what a user names to drop or cluster must be a partition of the
  /// table (a misspelt value, or a value where a path is asked for, would otherwise do nothing,
  /// silently). A partition dropped before passes, as Hudi takes it again. `what` says what the
  /// partitions were named for.
  Status CheckKnownPartitions(const std::vector<std::string>& partitions, const std::string& what) const;

 private:
  std::map<std::string, std::map<std::string, FileGroup>> partitions_;
};

}  // namespace lakeshore
