// Where a blob a record references may live: never where a vacuum of a table may delete it.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lakeshore/status.h"

namespace lakeshore {

/// Checks that the files blobs reference lie outside every table, or inside one under a folder
/// directly below its root that a vacuum never considers and readers never enter: a name
/// starting with '_' or '.' (IsHiddenName with the table's partition columns), but not
/// `.hoodie` (the timeline and metadata table, which table services rewrite and delete),
/// `_delta_log`, `_change_data*`, `_delta_index*` or a partition folder. A blob folder deeper
/// in (`city=oslo/_b/`) is refused too: hudi-rs drops a partition holding a folder. A vacuum
/// deletes what the timeline does not name: a referenced blob it may consider would go, leaving
/// the record pointing at nothing.
///
/// The table is the innermost one holding the file: this table, or for a local file another
/// table (a folder with `.hoodie/hoodie.properties` or `_delta_log/`, what a vacuum takes for a
/// table) it lies in, whose own vacuum would delete
/// it. (On object storage only this table is checked: finding others would cost requests.)
///
/// Locations are compared as places, not as text:
/// - URI schemes are case-insensitive; `file:` and `local:` URIs (`file:/p`, `file:///p`,
///   `file://localhost/p`) are local paths, percent-decoded; `s3a:` and `s3n:` are `s3:`, `gcs:`
///   is `gs:`; a URI's path is percent-decoded (a '%' that escapes nothing stays itself: an
///   object key may hold one) and its query (`?...`) dropped; an escaped NUL (`%00`) is refused;
/// - a local path has its symbolic links resolved (as far as it exists) before its ".."
///   segments, as the operating system reads it; "." and ".." of a URI are resolved as text.
/// A reference that is neither an absolute path nor a URI (it would mean different files to
/// readers in different folders), holds a NUL byte, or names a folder (`/`, `.`, `..`) is
/// refused. Cost per blob: a parse, one lstat of a local file, and per distinct folder its
/// resolution and two lstats per ancestor.
class BlobPlacement {
 public:
  /// For the table at `table_root` ("" checks only the reference's form).
  static Result<BlobPlacement> For(const std::string& table_root, std::vector<std::string> partition_columns);

  /// kInvalid, naming `blob_path`, when a vacuum may delete that file, or the reference is
  /// malformed (see the class comment).
  Status Check(std::string_view blob_path);

 private:
  BlobPlacement() = default;
  /// `text` as a comparable place (see the class comment); `local` tells a local path.
  Result<std::string> Place(std::string_view text, bool* local);
  /// The innermost table root holding the local folder `folder` (resolved), or "".
  const std::string& TableAround(const std::string& folder);

  std::string root_;  ///< the table's place; "" checks only the form
  std::vector<std::string> partition_columns_;
  std::unordered_map<std::string, std::string> folders_;  ///< local folder → its resolved place
  std::unordered_map<std::string, std::string> tables_;   ///< resolved folder → TableAround
};

}  // namespace lakeshore
