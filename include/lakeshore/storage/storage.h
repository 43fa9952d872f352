// Storage: the only code that touches bytes. A table (or any tree) is one Storage rooted at its
// top folder; every path given to or returned by a Storage is relative to that root.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <arrow/buffer.h>
#include <arrow/io/interfaces.h>

#include "lakeshore/clock.h"
#include "lakeshore/status.h"

namespace lakeshore {

/// One entry of a listing. `path` is relative to the storage root, '/'-separated, without a
/// leading or trailing '/'.
struct FileEntry {
  std::string path;
  int64_t size = 0;       ///< bytes; 0 for directories
  int64_t mtime_ms = 0;   ///< last modification, UTC ms since the epoch
  bool is_dir = false;
  /// Local storage: a symbolic link to a regular file, listed with its target's size and time
  /// (readers read through it, as Spark's, delta-rs's and Hudi's do). DeleteFiles never removes
  /// one, and a vacuum never plans to. Links to folders, and dangling links, are not listed.
  bool is_link = false;
  /// A link's target as a path relative to the root, when it lies in the tree; else "". A
  /// vacuum keeps a link's target as it keeps the link: a live link leads to it.
  std::string link_target;
};

/// What a batched delete did. A path that was already missing is success, counted apart so a
/// caller never reports a file it did not delete as deleted by it.
struct DeleteOutcome {
  int64_t deleted = 0;
  int64_t already_gone = 0;
  std::vector<std::string> deleted_paths;  ///< the paths this call removed
  /// Paths not deleted because they are symbolic links or lie behind one (local storage):
  /// a delete never leaves the tree through a link, and never removes a link, which may lead
  /// to files still in use.
  std::vector<std::string> refused_paths;
};

/// Options for Storage::Open.
struct StorageOptions {
  /// Clock for any time the storage itself stamps (the in-memory backend's mtimes).
  std::shared_ptr<Clock> clock = Clock::System();
  /// S3 only: access key and secret; empty means AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY.
  std::string s3_access_key;
  std::string s3_secret_key;
  std::string s3_region;  ///< empty means AWS_REGION / AWS_DEFAULT_REGION / us-east-1
  /// Local only: folders whose files need not survive a power loss, so they are not fsynced:
  /// coordination files that matter only while the process that wrote them lives (the table
  /// lock's objects, writer heartbeats). Every other file is fsynced before it is visible.
  std::vector<std::string> unsynced_folders = {".hoodie/.aux/lakeshore/lock", ".hoodie/.heartbeat"};
};

/// A tree of files under one root: local folder, in-memory tree or S3 prefix.
///
/// Contract for every backend:
/// - Paths are relative ("a/b.parquet"); ".." segments, absolute paths and empty segments are
///   refused with ErrorKind::kPathOutsideTable (see NormalizeRelativePath).
/// - WriteFile replaces atomically: a reader sees the old or the new content, never a prefix.
/// - PutIfAbsent is atomic across processes: of concurrent callers exactly one gets true.
/// - DeleteFiles of a missing path is success (counted in already_gone).
/// - Listing a missing folder returns no entries, not an error.
/// - Symbolic links (local storage) are neither listed nor followed by a listing, and deletes
///   refuse them and every path behind them (DeleteOutcome::refused_paths); reads and writes
///   go through them.
/// "Mutating" calls (counted by FaultInjectionStorage) are WriteFile, PutIfAbsent, DeleteFiles
/// and DeleteDirIfEmpty.
class Storage {
 public:
  virtual ~Storage() = default;

  /// Opens the storage rooted at `uri`: a plain path, `file:///abs/path`, `mem://name[/prefix]` (a
  /// process-wide named in-memory tree) or
  /// `s3://bucket/prefix?endpoint_override=host:port&scheme=http&region=...`.
  static Result<std::shared_ptr<Storage>> Open(const std::string& uri,
                                               const StorageOptions& options = {});

  /// The name other tools open the file `path` (relative to the root) by: an absolute local
  /// path, or `s3://bucket/key` (without the endpoint options of root_uri()), or for other
  /// backends root_uri() + "/" + path.
  virtual std::string ExternalPath(std::string_view path) const;

  /// The root as a URI (for messages and for reopening).
  virtual std::string root_uri() const = 0;

  /// Reads the whole file. IOError naming the path if it is missing.
  virtual Result<std::shared_ptr<arrow::Buffer>> ReadFile(std::string_view path) = 0;

  /// Opens the file for random access (Parquet footers, page reads). `size_hint`, if known,
  /// spares a metadata round trip on object stores.
  virtual Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInputFile(
      std::string_view path, std::optional<int64_t> size_hint = std::nullopt) = 0;

  /// Creates or atomically replaces `path` with `data`, creating parent folders. Mutating.
  virtual Status WriteFile(std::string_view path, std::shared_ptr<arrow::Buffer> data) = 0;

  /// A stream that creates or atomically replaces `path` when it is closed: nothing is
  /// visible before Close, and a stream dropped without Close leaves nothing behind. For large
  /// files (Parquet base files): a backend may stream to the medium instead of buffering the
  /// whole file. The default buffers in memory and calls WriteFile on Close, so it counts as
  /// one mutating call at Close.
  virtual Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutputStream(std::string_view path);

  /// Creates `path` with `data` only if no file is there. Returns true if this call created
  /// it, false if it already existed (content untouched). Atomic across processes. Mutating.
  virtual Result<bool> PutIfAbsent(std::string_view path, std::shared_ptr<arrow::Buffer> data) = 0;

  /// The entry for `path`, or nullopt if nothing is there.
  virtual Result<std::optional<FileEntry>> GetFileInfo(std::string_view path) = 0;

  /// Lists the entries under the folder `prefix` ("" is the root). Recursive lists files only
  /// (folders are implied by their files, except empty local folders, which are listed with
  /// is_dir=true); non-recursive lists direct children, folders included. Order unspecified.
  virtual Result<std::vector<FileEntry>> List(std::string_view prefix, bool recursive) = 0;

  /// Decides, per listed file path, whether its size and modification time are needed.
  using NeedsDetails = std::function<bool(std::string_view path)>;

  /// Like List, but a backend that pays per file for size and modification time (local: one
  /// fstatat each) leaves out the regular files `needs_details` rejects (the caller counts them
  /// as it is asked, if it needs to). What it returns comes with details. Folders, and files it
  /// cannot tell are regular without a stat, are always returned. A vacuum lists this way, since
  /// files in use need no stat and nothing but their count: the cost follows the candidates, not
  /// the table. Default: List (everything returned).
  virtual Result<std::vector<FileEntry>> ListSkippingDetails(std::string_view prefix, bool recursive,
                                                             const NeedsDetails& needs_details);

  /// Deletes files; missing ones count as already_gone. Backends batch (S3 multi-object
  /// delete of up to 1000 keys). Mutating (one call counts once).
  virtual Result<DeleteOutcome> DeleteFiles(const std::vector<std::string>& paths) = 0;

  /// Removes the folder `path` if it is empty; a non-empty or missing folder is left alone and
  /// is not an error. Returns true if a folder was removed. No-op (false) on object stores and
  /// in memory, where folders are implied by their files. Mutating.
  virtual Result<bool> DeleteDirIfEmpty(std::string_view path) = 0;

  /// Test hook: sets the modification time of the file `path` to `mtime_ms` (UTC ms), so
  /// retention tests can make files old. Local (utimensat) and in-memory backends support it;
  /// the default (S3, whose LastModified cannot be set) returns NotImplemented. Not counted as
  /// mutating. IOError naming the path if it is missing.
  virtual Status SetModificationTimeForTesting(std::string_view path, int64_t mtime_ms);

  /// Convenience: true if a file exists at `path`.
  Result<bool> Exists(std::string_view path);
  /// Convenience: WriteFile from a string.
  Status WriteString(std::string_view path, std::string_view content);
  /// Convenience: PutIfAbsent from a string.
  Result<bool> PutIfAbsentString(std::string_view path, std::string_view content);
  /// Convenience: ReadFile into a string.
  Result<std::string> ReadString(std::string_view path);
};

/// Releases process-wide resources of the storage backends: finalizes Arrow's S3 subsystem if
/// it was initialized. Call once before a program that may have opened `s3://` storage exits
/// (the AWS SDK may crash at exit otherwise); later S3 calls fail with an error. Safe to call
/// when S3 was never used. (pyarrow registers the same finalization at exit for Python.)
Status FinalizeStorage();

/// Checks and normalizes a relative path: strips a leading "./" and trailing "/", refuses
/// absolute paths, ".." and empty segments (ErrorKind::kPathOutsideTable naming the path).
/// "" (the root) is allowed only when `allow_root`.
Result<std::string> NormalizeRelativePath(std::string_view path, bool allow_root = false);

/// `path` with "." and empty segments removed and ".." segments resolved, as Hadoop's Path
/// (URI normalization) reads paths: "p=1//a", "p=1/./a" and "p=1/x/../a" are all "p=1/a". An
/// absolute path keeps its leading '/'. nullopt if ".." climbs above the start. Unlike
/// NormalizeRelativePath, which refuses such paths from callers, this relates foreign
/// spellings (Delta logs, inventories) to the one a listing returns.
std::optional<std::string> LexicallyNormalPath(std::string_view path);

/// What follows `.<name>` in the name of a file staged before its rename into place (then
/// `<pid>.<n>.<r>`), and of a folder staged so. The word is Lakeshore's: a vacuum deletes what
/// is named so, and no other tool names a file `.x.lakeshore-staged.1.2.3` by chance, where
/// `.x.tmp.1.2.3` was a user's file reaped.
inline constexpr std::string_view kStagedFileMarker = ".lakeshore-staged.";
inline constexpr std::string_view kStagedFolderMarker = ".lakeshore-staged-dir.";

/// True for the name of a staged write that a backend made and has not published yet (or that a
/// crash left behind): `.<name>.lakeshore-staged.<pid>.<n>.<r>` files and
/// `.<name>.lakeshore-staged-dir.<pid>.<n>.<r>` folders (three runs of digits). Listings return
/// them like any file; vacuum deletes them once past retention. O(length).
bool IsStagedWriteName(std::string_view name);

/// Joins two relative paths with '/', either may be empty.
std::string JoinPath(std::string_view a, std::string_view b);

/// The parent folder of a relative path ("" for a top-level name).
std::string ParentPath(std::string_view path);

/// The last segment of a path.
std::string_view BaseName(std::string_view path);

}  // namespace lakeshore
