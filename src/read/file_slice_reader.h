// Reading one file slice: its base file, with the log files of a merge-on-read slice merged on
// top under the table's record merge mode (Hudi's HoodieFileGroupReader).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <arrow/table.h>

#include "table/file_system_view.h"
#include "table/hoodie_table_config.h"
#include "lakeshore/storage/storage.h"

namespace lakeshore {

/// What a slice read needs to know about the table and the read.
struct SliceReadSpec {
  /// The table's full schema (meta columns first): the result's schema.
  std::shared_ptr<arrow::Schema> schema;
  RecordMergeMode merge_mode = RecordMergeMode::kEventTimeOrdering;
  /// The ordering (precombine) field; "" when none.
  std::string ordering_field;
  /// True for a log block written by an instant the read may see (completed, and not after
  /// the read's bound). Blocks of other instants are skipped, as are corrupt blocks and the
  /// blocks a rollback command block names.
  std::function<bool(const std::string& instant_time)> instant_is_visible;
  /// Table version 8 and later: each log file is written whole by the deltacommit its name
  /// carries, never appended to, so a corrupt stretch in one of a visible instant is damage
  /// (kCorruptMetadata naming it). Older tables append blocks to log files, and a crashed
  /// append leaves a corrupt stretch readers skip, as Hudi's do.
  bool log_files_written_whole = false;
  /// Read-optimized: the base file only.
  bool base_only = false;
  /// The columns the read returns (empty: all of `schema`). The result then holds these and
  /// what merging needs (the key, the ordering field), in schema order; the base file is read
  /// projected to them.
  std::vector<std::string> columns;
};

/// Reads `slice` as `spec` says. Without log files (or base_only) this is the base file
/// conformed to `spec.schema`. Otherwise each record key keeps one version, merged as Hudi's
/// readers merge (HoodieFileGroupReader, hudi-rs): the log blocks' versions among themselves in
/// log order, then that result with the base file's version. Under COMMIT_TIME_ORDERING the
/// later one wins each time. Under EVENT_TIME_ORDERING the version with the larger ordering
/// value wins, ties going to the later write; a delete (delete block, or _hoodie_is_deleted)
/// loses to a kept version with a larger ordering value (of the same kind), and a delete
/// without one (a "commit-time" delete) always wins, and always gives way to a later log
/// version, which then meets the base version by ordering value again (Hudi's rule: a key
/// deleted and written again with a smaller ordering value in one file group shows the base
/// version). Rows come out as the base's surviving rows in file order, then the log rows.
/// kUnsupportedFeature for a CUSTOM merge mode or a slice without `_hoodie_record_key`.
/// Cost: reads the base file and every log file of the slice once.
Result<std::shared_ptr<arrow::Table>> ReadFileSlice(Storage& storage, const FileSlice& slice,
                                                    const SliceReadSpec& spec);


}  // namespace lakeshore
