// Assigning incoming records to file groups: updates go where the index found them, inserts
// fill small file groups first, then new file groups of the target size.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lakeshore/table/table.h"
#include "table/file_system_view.h"
#include "write/file_group_write.h"
#include "write/write_input.h"

namespace lakeshore {

struct WritePlanSettings {
  int64_t max_file_size_bytes = 120LL << 20;
  int64_t small_file_limit_bytes = 100LL << 20;  ///< 0: no small-file packing
  /// Bytes per record assumed when neither the table (no statistics yet) nor the input (empty)
  /// tells; otherwise the input's in-memory size per row is used, an upper bound.
  int64_t record_size_estimate_bytes = 1024;
  /// A bulk insert splits each partition's rows into up to this many new file groups (of at
  /// least bulk_insert_min_file_rows rows each), so the cores encode files side by side, as
  /// Spark's bulk insert writes a file per task. 1: one file per max_file_size_bytes.
  int bulk_insert_parallelism = 1;
  int64_t bulk_insert_min_file_rows = 250000;
  /// A merge-on-read table: updates and deletes of existing file groups become log files.
  bool merge_on_read = false;
};

/// Plans the file group writes of one instant.
///
/// `tags[r]` is the file id holding input row r's key (upsert and delete; ignored otherwise);
/// `more_copies` the further groups of its partition holding it, which the row's update or
/// delete goes to as well.
/// Inserts (untagged upsert rows, insert rows) go to small file groups of their partition
/// while they have room by the average record size, then to new file groups of about
/// max_file_size_bytes; bulk inserts skip small-file packing and keep their input order. Deletes of
/// untagged keys are dropped (nothing to delete). New base file paths carry `instant_time`.
/// On a merge-on-read table (settings.merge_on_read) an existing group's updates and deletes
/// are appended as a new log file (`append_log`, a Hudi 1.x log file name) unless the group
/// also takes inserts; slices with log files never take inserts.
/// Inserts never go to the `frozen` file groups (partition, file id): those a pending
/// clustering will replace.
std::vector<FileGroupWrite> PlanFileGroupWrites(WriteOperation op, const WriteInput& input,
                                                const std::vector<std::optional<std::string>>& tags,
                                                const FileSystemView& view, const WritePlanSettings& settings,
                                                const std::string& instant_time,
                                                const std::set<std::pair<std::string, std::string>>& frozen = {},
                                                const std::vector<std::pair<int64_t, std::string>>& more_copies = {});

/// Base files below this size do not count towards AverageRecordSize.
inline constexpr int64_t kRecordSizeEstimationMinFileBytes = 8LL << 20;

/// Average bytes per record over the live base files of `view` of at least
/// kRecordSizeEstimationMinFileBytes (a smaller file is mostly its footer: one row weighs
/// ~430 KB), or `fallback` when there are none.
int64_t AverageRecordSize(const FileSystemView& view, int64_t fallback);

}  // namespace lakeshore
