// Internal: the contents of Hudi instant files as Lakeshore writes and reads them, by action and
// state (layout 2: Avro object container files with Hudi's schemas; layout 1: Hudi's JSON).
//
//   commit, deltacommit, replacecommit:  requested empty; inflight HoodieCommitMetadata with a
//     stat per planned file; completed HoodieCommitMetadata (or HoodieReplaceCommitMetadata)
//   rollback:  requested HoodieRollbackPlan; inflight empty; completed HoodieRollbackMetadata
//   compaction:  requested HoodieCompactionPlan (CommitMetadata::compaction); inflight empty;
//     completed as a commit (operationType COMPACT, `compacted` true)
//   restore:  requested HoodieRestorePlan; inflight empty; completed HoodieRestoreMetadata
// Every action decodes to CommitMetadata, the one in-memory form the services use.
#pragma once

#include <string>
#include <string_view>

#include "lakeshore/status.h"
#include "timeline/commit_metadata.h"
#include "timeline/instant.h"

namespace lakeshore {

/// How the files of one table's timeline are encoded. Hudi names files in rollback plans and
/// metadata by absolute path: `table_root` (Storage::ExternalPath("")) turns them into the
/// relative paths Lakeshore uses, and back.
struct InstantCodec {
  TimelineLayout layout = TimelineLayout::kV2;
  std::string table_root;

  /// The bytes of `instant`'s file in its state. Layout 2 only (Lakeshore writes version 9).
  Result<std::string> Encode(const Instant& instant, const CommitMetadata& metadata) const;

  /// Parses `instant`'s file `content`. Write actions → write stats (CommitMetadata::FromHoodie);
  /// a rollback plan or its metadata → `rollback` (the target instant) and
  /// `planned_files` (relative; a path outside the table → kPathOutsideTable); other actions
  /// (clean, savepoint, indexing, ...) → empty metadata. `source` names the file in errors.
  Result<CommitMetadata> Decode(const Instant& instant, std::string_view content, const std::string& source) const;
};

}  // namespace lakeshore
