// Savepoints (Hudi's savepoint action): a completed write instant marked to be kept. A savepoint
// is an instant of its own at the instant time of the commit it savepoints — Hudi starts it
// inflight (`<t>.savepoint.inflight`, empty) and completes it with HoodieSavepointMetadata
// naming, per partition, the data files of the latest slices as of that commit. While it
// exists, archival keeps that commit and everything after it on the active timeline (and the
// cleaner of the next issue keeps its files); restore rolls the table back to one.
#pragma once

#include <string>
#include <vector>

#include "actions/table_context.h"
#include "lakeshore/table/table.h"

namespace lakeshore {

/// Savepoints `instant_time`, a completed commit, deltacommit or replacecommit on the active
/// timeline, recording `user` and `comment`. Under the table lock. A pending instant, one not on
/// the active timeline, or one already savepointed → Invalid naming it. A savepoint a crash left
/// inflight is completed. Returns it.
Result<SavepointView> CreateSavepoint(TableContext& ctx, const std::string& instant_time, const std::string& user,
                                      const std::string& comment);

/// Removes the savepoint of `instant_time` (its completed and inflight files). None → Invalid.
Status DeleteSavepoint(TableContext& ctx, const std::string& instant_time);

/// The completed savepoints, oldest first, with what their metadata records.
Result<std::vector<SavepointView>> ListSavepoints(TableContext& ctx);

}  // namespace lakeshore
