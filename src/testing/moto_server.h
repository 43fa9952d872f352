// A moto S3 server on 127.0.0.1 for tests: started by the test binary itself on first use,
// stopped when the tests end (and, via PR_SET_PDEATHSIG, if the test binary dies).
#pragma once

#include <string>

#include "lakeshore/status.h"
#include "lakeshore/storage/storage.h"

namespace lakeshore::testing {

/// The process-wide moto server. Python: $LAKESHORE_PYTHON, else /work/main/.venv/bin/python,
/// else python3 (`-m moto.server -H 127.0.0.1 -p PORT`, PORT a free port).
class MotoServer {
 public:
  /// The shared server, started (and waited for, up to 60 s) on first call. An error says why
  /// it could not start (no python, no moto, timeout) and names the server's log file; later
  /// calls return the same error without retrying. Make the first call from the main thread
  /// (a test's SetUp): the server gets SIGTERM when the thread that started it exits.
  static Result<MotoServer*> Shared();
  /// Stops the shared server if it runs (registered as a gtest environment teardown).
  static void StopShared();

  /// "127.0.0.1:PORT".
  const std::string& endpoint() const { return endpoint_; }
  /// Creates `bucket` (Arrow's S3FileSystem::CreateDir with bucket creation allowed); an
  /// existing bucket is fine.
  Status CreateBucket(const std::string& bucket) const;
  /// `s3://bucket/prefix?endpoint_override=...&scheme=http&region=us-east-1`.
  std::string Uri(const std::string& bucket, const std::string& prefix) const;
  /// Options with moto's dummy credentials.
  StorageOptions Options() const;

 private:
  MotoServer(int pid, std::string endpoint, std::string log)
      : pid_(pid), endpoint_(std::move(endpoint)), log_(std::move(log)) {}
  static Result<MotoServer*> Start();
  void Stop();

  int pid_;
  std::string endpoint_;
  std::string log_;  // the server's output, removed after a clean stop
};

}  // namespace lakeshore::testing
