// What a completed write instant records: one WriteStat per file it wrote.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "format/metadata_record.h"
#include "lakeshore/status.h"
#include "timeline/instant.h"

namespace lakeshore {

/// One file written (or one file group retired) by an instant.
struct WriteStat {
  std::string partition;   ///< partition path, "" when unpartitioned
  std::string file_id;
  std::string path;        ///< the new base file, relative to the table root; "" if retired
  std::string prev_base_instant;  ///< base instant of the slice this replaces, "" for new groups
  int64_t num_records = 0;
  int64_t num_inserts = 0;
  int64_t num_updates = 0;
  int64_t num_deletes = 0;
  int64_t file_size = 0;
  std::string min_record_key;
  std::string max_record_key;
  bool retired = false;    ///< every record was deleted: the file group ends here
  /// In memory only, never serialized: a new log file's record statistics as its write produced
  /// them (WrittenLogFile), for the metadata table's column_stats, as Hudi keeps them in
  /// HoodieDeltaWriteStat's transient recordsStats. Absent: the metadata writer reads the file.
  std::optional<std::vector<format::FileColumnStats>> column_stats;
};

/// What a rollback instant rolls back and what it did: Hudi's HoodieRollbackPlan
/// (instantToRollback, filesToBeDeleted → CommitMetadata::planned_files) and
/// HoodieRollbackMetadata (instantsRollback, totalFilesDeleted).
struct RollbackRecord {
  Instant target;                  ///< time and action of the instant rolled back
  int64_t files_deleted = 0;       ///< completed: files removed by this rollback
  int64_t files_already_gone = 0;  ///< completed: named files that were not there (not recorded by Hudi)
  bool target_had_completed = false;  ///< completed: nothing was deleted (not recorded by Hudi)
};

/// What a restore instant rolls back: Hudi's HoodieRestorePlan (instantsToRollback,
/// savepointToRestoreTimestamp) and HoodieRestoreMetadata.
struct RestoreRecord {
  std::string savepoint;        ///< the savepointed instant the table goes back to
  std::vector<Instant> targets;  ///< the instants rolled back, newest first (time and action)
};

/// One file slice a table service plan names (Hudi's HoodieCompactionOperation, HoodieSliceInfo).
struct PlannedSlice {
  std::string partition;
  std::string file_id;
  std::string base_instant;        ///< the slice's base instant
  std::string base_file;           ///< relative path of its base file; "" for a log-only slice
  std::vector<std::string> log_files;  ///< relative paths, in the slice's order
};

/// The content of a completed commit (and, with an empty stat list, of its inflight plan).
struct CommitMetadata {
  std::string operation;               ///< insert, upsert, delete, bulk_insert, rollback, ...
  std::vector<WriteStat> write_stats;
  /// Paths of every data file the write may create: the markers rollback deletes.
  std::vector<std::string> planned_files;
  std::map<std::string, std::string> extra;
  /// A replacecommit's file groups that it replaced: partition → file ids.
  std::map<std::string, std::vector<std::string>> replaced_file_ids;
  /// Set for rollback instants (plans and metadata).
  std::optional<RollbackRecord> rollback;
  /// Set for restore instants (plans and metadata).
  std::optional<RestoreRecord> restore;
  /// A pending clustering's input file groups (its requested HoodieRequestedReplaceMetadata's
  /// clustering plan): partition → file ids. Writers leave them alone until it completes.
  std::map<std::string, std::vector<std::string>> clustering_file_ids;
  /// A requested compaction's plan (HoodieCompactionPlan): the slices it merges.
  std::vector<PlannedSlice> compaction;
  /// A requested clustering's plan (HoodieClusteringPlan): its input groups, each rewritten into
  /// `num_output_groups` new file groups sorted by `clustering_sort_columns`. Its file ids are
  /// also in clustering_file_ids.
  struct ClusteringGroup {
    std::vector<PlannedSlice> slices;
    int64_t num_output_groups = 1;
  };
  std::vector<ClusteringGroup> clustering_groups;
  std::vector<std::string> clustering_sort_columns;

  /// Parses Hudi's HoodieCommitMetadata or HoodieReplaceCommitMetadata: Jackson JSON in
  /// timeline layout 1, an Avro container file in layout 2. Empty content is empty metadata
  /// (Hudi writes empty requested files). Each HoodieWriteStat becomes a WriteStat
  /// (partitionPath, fileId, path, prevCommit with Hudi's "null" as "", numWrites, numInserts,
  /// numUpdateWrites, numDeletes, fileSizeInBytes); operationType becomes `operation`;
  /// extraMetadata `extra`. A stat path that is not a plain relative path inside the table →
  /// kPathOutsideTable; anything malformed → kCorruptMetadata naming `source`.
  static Result<CommitMetadata> FromHoodie(std::string_view content, TimelineLayout layout,
                                           const std::string& source);
};

}  // namespace lakeshore
