// Names of data files, as Hudi names them: `<fileId>_<writeToken>_<instant>.parquet` for base
// files and `.<fileId>_<baseInstant>.log.<version>_<writeToken>[.cdc]` for merge-on-read log
// files.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace lakeshore {

/// A new random file id (a UUID v4 in hex with dashes; never contains '_').
std::string NewFileId();
/// A new random write token telling apart attempts of the same write, in Hudi's
/// `<taskPartitionId>-<stageId>-<taskAttemptId>` form (three numbers: Hudi's log file name pattern
/// requires it).
std::string NewWriteToken();

/// `<fileId>_<writeToken>_<time>.parquet`.
std::string BaseFileName(const std::string& file_id, const std::string& write_token,
                         const std::string& instant_time);

/// `.<fileId>_<instant>.log.<version>_<writeToken>`: a log file as Hudi 1.x names it, after the
/// deltacommit that writes it (table versions 8 and 9).
std::string LogFileName(const std::string& file_id, const std::string& instant_time, int64_t version,
                        const std::string& write_token);

/// The parts of a data file name.
struct DataFileName {
  std::string file_id;
  /// Base file: the instant that wrote it. Log file: the base instant of its file slice.
  std::string instant_time;
  std::string write_token;  ///< "" for a log file named without one
  bool is_log = false;
  int64_t log_version = 0;  ///< log files: 1, 2, ... within the slice
  bool is_cdc = false;      ///< a change-data log file
};

/// Parses a data file name (no folder): a Parquet or HFile (the metadata table's) base file or a
/// log file; nullopt for anything else. Instant times are as
/// IsInstantTimeToken takes them; file ids and write tokens contain no '_'.
std::optional<DataFileName> ParseDataFileName(std::string_view name);

}  // namespace lakeshore
