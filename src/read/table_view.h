// The file system view a read or a write of one table works from.
#pragma once

#include <string>
#include <vector>

#include "actions/table_context.h"
#include "table/file_system_view.h"
#include "timeline/timeline.h"

namespace lakeshore {

/// The view of the table as of completion time `bound` ("" = latest). Normally built from the
/// completed commits' write stats (`commits`). A table whose timeline has archived instants
/// (TableContext::has_unread_archive: layout 1's) has commits this build cannot read, so its view is
/// built as Hudi's readers build it: from a listing of the data files, each kept when the instant
/// in its name completed by `bound` or is older than the active timeline (archived, so
/// completed), with the active replacecommits applied. Cost: one recursive listing then.
Result<FileSystemView> TableView(TableContext& ctx, const Timeline& timeline,
                                 const std::vector<CompletedCommit>& commits, const std::string& bound);

}  // namespace lakeshore
