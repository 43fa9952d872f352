// Test-only: a small DSL for Delta vacuum scenarios. A scenario owns a fresh local table
// folder and a manual clock; every file and commit it writes gets the clock's time as its
// modification time, so tests say "create, delete, advance the clock, vacuum, check".
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lakeshore/clock.h"
#include "lakeshore/engine/engine.h"
#include "lakeshore/storage/storage.h"
#include "lakeshore/vacuum.h"

namespace lakeshore::testing {

inline constexpr int64_t kHourMs = 3600LL * 1000;
inline constexpr int64_t kDayMs = 24 * kHourMs;

/// A deletion vector for a scenario action: {"storageType", "pathOrInlineDv", ...}.
nlohmann::json DvJson(const std::string& storage_type, const std::string& payload,
                      std::optional<int> offset = 4);

/// Z85-encodes bytes (length a multiple of 4); the inverse of the reader's decoder.
std::string Z85Encode(const std::string& bytes);
/// The 20-character Z85 form of a UUID given in canonical text form.
std::string Z85Uuid(const std::string& canonical_uuid);

class DeltaScenario {
 public:
  /// A fresh table under the temp folder named after `name`; the clock starts at the real
  /// current time (so commits written by the vacuum itself sort sensibly).
  explicit DeltaScenario(const std::string& name);
  ~DeltaScenario();

  /// Commit 0: protocol and metaData.
  void Create(std::vector<std::string> partition_columns = {},
              nlohmann::json configuration = nlohmann::json::object(),
              nlohmann::json protocol = {{"minReaderVersion", 1}, {"minWriterVersion", 2}});
  /// Writes the next commit with these action lines (a commitInfo is prepended).
  int64_t Commit(const std::vector<nlohmann::json>& actions, const std::string& operation = "WRITE");
  /// Writes raw bytes as the next commit (corrupt-input tests).
  void CommitRaw(const std::string& bytes);

  /// Creates a data file of `size` bytes, stamped now (no commit).
  void Put(const std::string& path, int64_t size = 10);
  /// Put + commit an add. `log_path` overrides the (encoded) path written into the log.
  void Add(const std::string& path, std::optional<nlohmann::json> dv = std::nullopt,
           std::optional<std::string> log_path = std::nullopt);
  /// Commits a remove with deletionTimestamp = now.
  void Remove(const std::string& path, std::optional<nlohmann::json> dv = std::nullopt,
              std::optional<std::string> log_path = std::nullopt,
              const std::string& operation = "DELETE");
  /// Creates an empty folder stamped now.
  void MakeDir(const std::string& path);

  /// Writes a checkpoint of the current state at the latest version (Parquet, via the reader's
  /// own schema shape). `parts` > 1 writes a multi-part checkpoint; `v2_sidecars` writes a
  /// UUID-named JSON v2 checkpoint whose file actions live in one sidecar.
  void Checkpoint(int parts = 1, bool v2_sidecars = false, bool write_last_checkpoint = true);

  void Advance(int64_t ms) { clock_->Advance(ms); }
  int64_t now() const { return clock_->NowMs(); }
  int64_t version() const { return version_; }

  /// Runs a vacuum with this scenario's clock and engine.
  Result<VacuumReport> Vacuum(VacuumOptions options = {});
  bool Exists(const std::string& path) const;
  std::string root() const { return root_; }
  std::shared_ptr<Storage> storage() const { return storage_; }
  std::shared_ptr<ManualClock> clock() const { return clock_; }
  /// The table's files (excluding `_delta_log`), sorted — to assert "nothing changed".
  std::vector<std::string> DataFiles() const;
  /// Sets the mtime of `path` to the clock's now (as a copy of the table would).
  void Stamp(const std::string& path) const;

 private:
  std::string root_;
  std::shared_ptr<Storage> storage_;
  std::shared_ptr<ManualClock> clock_;
  std::shared_ptr<Engine> engine_;
  int64_t version_ = -1;
  bool in_commit_timestamps_ = false;  // delta.enableInCommitTimestamps at Create
  int64_t last_ict_ = 0;
  // The state as the scenario wrote it, for checkpoints: key → action line.
  std::vector<nlohmann::json> protocol_and_metadata_;
  std::vector<std::pair<std::string, nlohmann::json>> adds_;
  std::vector<std::pair<std::string, nlohmann::json>> removes_;
};

}  // namespace lakeshore::testing
