// Names of data files: `<fileId>_<writeToken>_<time>.parquet` for base files and
// `<fileId>_<baseTime>_<time>.log.parquet` for merge-on-read log files.
#pragma once

#include <optional>
#include <string>

namespace lakeshore {

/// A new random file id (a UUID v4 in hex with dashes; never contains '_').
std::string NewFileId();
/// A new random write token (8 hex digits) telling apart attempts of the same write.
std::string NewWriteToken();

/// `<fileId>_<writeToken>_<time>.parquet`.
std::string BaseFileName(const std::string& file_id, const std::string& write_token,
                         const std::string& instant_time);

/// The parts of a data file name.
struct DataFileName {
  std::string file_id;
  std::string token_or_base;  ///< write token (base file) or base instant (log file)
  std::string instant_time;
  bool is_log = false;
};

/// Parses a data file name (no folder); nullopt for anything else.
std::optional<DataFileName> ParseDataFileName(const std::string& name);

}  // namespace lakeshore
