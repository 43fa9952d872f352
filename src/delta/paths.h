// Internal: the path rules of the Delta log (URL-encoded paths, absolute URIs, deletion
// vector file names derived from Z85-encoded UUIDs).
#pragma once

#include <mutex>
#include <optional>
#include <unordered_map>
#include <string>
#include <string_view>

#include "lakeshore/delta/actions.h"
#include "lakeshore/status.h"

namespace lakeshore::delta {


/// Decodes Z85 (ZeroMQ base85): every 5 characters give 4 bytes, big-endian. Input length not
/// a multiple of 5 or a character outside the alphabet → Invalid.
Result<std::string> Z85Decode(std::string_view text);

/// Relates decoded log paths to one table root: the same file spelled in any of the ways
/// writers spell it maps to the one relative path a listing returns. Thread-safe.
class TablePathResolver {
 public:
  explicit TablePathResolver(std::string root_uri);

  /// The path of `path` relative to the root:
  /// - a relative path is resolved against the root and normalized (LexicallyNormalPath);
  /// - `file:/x`, `file:///x`, `file://localhost/x` and `/x` are the same local path, compared
  ///   lexically and then, if that fails, through symbolic links (realpath of both sides), so
  ///   a table opened through a link still recognizes absolute paths written through the
  ///   target, and the other way round;
  /// - object URIs compare canonically (s3a/s3n as s3, no query string), with `//` and `/./`
  ///   collapsed in the root part too.
  /// kPathOutsideTable if the file is certainly elsewhere (another bucket, another folder, ".."
  /// above the root). kUnsupportedFeature if it cannot be told with certainty (a scheme that
  /// cannot be compared, a file URI with a host, a link that cannot be resolved): a vacuum must
  /// stop then, never drop the path from the files in use. Cost: O(length) for paths already
  /// normal and relative; a realpath per missing component only for local absolute paths that
  /// are not lexically under the root.
  Result<std::string> Relativize(const std::string& path) const;

 private:
  Status Outside(const std::string& path) const;
  Status Uncertain(const std::string& path, const std::string& why) const;
  static std::optional<std::string> Below(const std::string& root, const std::string& full);
  /// realpath of `normal` (absolute, lexically normal), its folder resolved once per folder.
  Result<std::string> RealPathCached(const std::string& normal, const std::string& path) const;

  std::string root_uri_;
  bool local_ = false;
  bool comparable_ = true;
  std::string root_authority_;  ///< "s3://bucket" for object stores, "" for local
  std::string root_;            ///< the root's path, lexically normal, starting with '/'
  mutable std::once_flag real_root_once_;
  mutable Result<std::string> real_root_;
  mutable std::mutex real_folders_mu_;
  mutable std::unordered_map<std::string, Result<std::string>> real_folders_;
};

/// True for a relative reference: a path with no URI scheme that does not start with '/'.
bool IsRelativeReference(std::string_view path);

/// A path as a Delta log writes it (a URI reference, URL-encoded once), decoded. A relative
/// reference whose decoded text would read as a URI with a scheme (`x%3Ay.parquet` is the file
/// `x:y.parquet`, not scheme `x`) comes back as `./x:y.parquet`, which Relativize takes as
/// the relative path it is. A malformed `%` escape → Invalid. O(length).
Result<std::string> DecodeLogPath(std::string_view raw);

/// TablePathResolver(root_uri).Relativize(path), for single paths.
Result<std::string> RelativizeToTable(const std::string& path, const std::string& root_uri);

/// The file of a deletion vector relative to the table root: for "u",
/// `<prefix>/deletion_vector_<uuid>.bin`; for "p", the relativized absolute path (outside the
/// table → kPathOutsideTable); for "i", nullopt (inline, no file). An unknown storage type or
/// an undecodable UUID → kCorruptMetadata.
Result<std::optional<std::string>> DeletionVectorPath(const DeletionVectorDescriptor& dv,
                                                      const std::string& root_uri);
/// The same, relating "p" paths through `resolver` (one resolver for a whole log).
Result<std::optional<std::string>> DeletionVectorPath(const DeletionVectorDescriptor& dv,
                                                      const TablePathResolver& resolver);

}  // namespace lakeshore::delta
