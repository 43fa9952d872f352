// Where a blob a record references may live: never where a vacuum of its table may delete it.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lakeshore/status.h"

namespace lakeshore {

/// Checks that the files blobs reference lie outside the table at a root, or inside it under a
/// folder a vacuum never considers (IsHiddenName with the table's partition columns: a name
/// starting with '_' or '.', but not `_change_data*`, `_delta_index*` or a partition folder).
/// A vacuum deletes what the timeline does not name: a referenced blob it may consider would
/// go, leaving the record pointing at nothing.
///
/// Locations are compared as places, not as text: `file:` URIs (`file:/p`, `file:///p`,
/// `file://localhost/p`) are local paths, percent-decoded; a local path is made absolute and its
/// symbolic links resolved (as far as it exists); a URI's query (`?...`) is dropped; "." and
/// ".." segments are resolved. Cost per blob: a parse, one lstat of a local file, and the
/// resolution of its folder once per distinct folder.
class BlobPlacement {
 public:
  /// For the table at `table_root` ("" checks nothing).
  static Result<BlobPlacement> For(const std::string& table_root, std::vector<std::string> partition_columns);

  /// kInvalid, naming `blob_path`, when a vacuum of the table may delete that file.
  Status Check(std::string_view blob_path);

 private:
  BlobPlacement() = default;
  /// `text` as a comparable place (see the class comment).
  Result<std::string> Place(std::string_view text);

  std::string root_;  ///< the table's place; "" checks nothing
  std::vector<std::string> partition_columns_;
  std::unordered_map<std::string, std::string> folders_;  ///< local folder → its resolved place
};

}  // namespace lakeshore
