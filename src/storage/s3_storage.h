// S3 backend of Storage: Arrow's S3FileSystem for reads, writes and listings, plus SigV4-signed
// libcurl requests for what Arrow lacks (conditional PUT, multi-object delete).
#pragma once

#include <memory>
#include <string>

#include <arrow/filesystem/s3fs.h>

#include "lakeshore/storage/storage.h"
#include "storage/s3_request_internal.h"

namespace lakeshore {

/// Storage over `s3://bucket/prefix`. Query parameters: `endpoint_override=host:port`
/// (path-style requests to an S3-compatible server), `scheme=http|https`, `region=...`.
/// The region is the URI's, else StorageOptions::s3_region, else AWS_REGION, AWS_DEFAULT_REGION,
/// us-east-1. Credentials: StorageOptions, else Arrow's default AWS chain (AWS_* env vars,
/// profiles, instance roles).
///
/// - WriteFile: under 16 MiB one signed PUT (Arrow's output stream always makes a three-request
///   multipart upload); larger files through Arrow's output stream (parallel multipart upload,
///   aborted on error). Either way the object appears whole or not at all.
/// - PutIfAbsent: `PUT` with `If-None-Match: *`; 200 → true, 412 → false. A 409
///   (ConditionalRequestConflict: a concurrent conditional write was in progress) is retried,
///   since it means "no decision yet". After an ambiguous failure (transport error or 5xx, where
///   the object may have been written), a 412 on retry is resolved by reading the object back:
///   identical content counts as this call's creation.
/// - DeleteFiles: S3 reports missing keys as deleted, so existence is checked first: a HEAD per
///   path in folders with at most 16 paths to delete, else one listing of the folder (a page per
///   1000 entries); then multi-object deletes of up to 1000 keys. A file removed by someone else
///   between the check and the delete is counted as deleted by this call.
/// - DeleteDirIfEmpty: S3 folders are implied by keys; always false, no request.
/// - ReadFile: one GET of the whole object, so an overwrite racing with it yields the old or
///   the new content. OpenInputFile (Arrow's ranged reads) is consistent only for objects not
///   replaced while open; Lakeshore never overwrites data files.
/// - mtimes are S3's LastModified (second resolution), a whole second reported as its last
///   millisecond: a file never looks older than it is.
class S3Storage : public Storage {
 public:
  /// Parses `uri`, initializes Arrow's S3 subsystem once per process (thread-safe) and
  /// connects. No request is made. Invalid for a malformed URI or an unknown query parameter.
  static Result<std::shared_ptr<Storage>> Make(const std::string& uri, const StorageOptions& options);

  std::string root_uri() const override { return root_uri_; }
  std::string ExternalPath(std::string_view path) const override {
    return "s3://" + bucket_ + "/" + (prefix_.empty() ? std::string(path) : JoinPath(prefix_, path));
  }
  Result<std::shared_ptr<arrow::Buffer>> ReadFile(std::string_view path) override;
  Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInputFile(
      std::string_view path, std::optional<int64_t> size_hint) override;
  Status WriteFile(std::string_view path, std::shared_ptr<arrow::Buffer> data) override;
  Result<bool> PutIfAbsent(std::string_view path, std::shared_ptr<arrow::Buffer> data) override;
  Result<std::optional<FileEntry>> GetFileInfo(std::string_view path) override;
  Result<std::vector<FileEntry>> List(std::string_view prefix, bool recursive) override;
  Result<DeleteOutcome> DeleteFiles(const std::vector<std::string>& paths) override;
  Result<bool> DeleteDirIfEmpty(std::string_view path) override;

 private:
  S3Storage() = default;
  // "bucket/prefix/rel" for Arrow, and "prefix/rel" as the object key.
  std::string ArrowPath(const std::string& rel) const;
  std::string Key(const std::string& rel) const;
  Status DeleteBatch(const std::vector<std::string>& keys);
  // One HEAD: whether an object is at `rel`.
  Result<bool> ObjectExists(const std::string& rel) const;
  // Sends one request, retrying transport errors, 5xx, 429 and `also_retry` with backoff;
  // returns the last response. Sets *ambiguous if an attempt may have taken effect unseen.
  Result<s3_internal::HttpResponse> SendWithRetries(const std::string& method, const std::string& key,
                                                    const std::string& query,
                                                    const std::vector<s3_internal::HttpHeader>& headers,
                                                    std::string_view body, long also_retry,
                                                    bool* ambiguous) const;
  Result<std::vector<FileEntry>> ListNormalized(const std::string& rel_prefix, bool recursive);

  std::shared_ptr<arrow::fs::S3FileSystem> fs_;
  std::unique_ptr<s3_internal::S3RequestClient> requests_;
  std::string bucket_;
  std::string prefix_;  // no leading or trailing '/', may be empty
  std::string root_uri_;
};

/// Initializes Arrow's S3 subsystem if needed (thread-safe). Fails once it was finalized.
Status EnsureS3Ready();

}  // namespace lakeshore
