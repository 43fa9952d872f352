#include "lakeshore/delta/delta_log.h"

#include <algorithm>
#include <limits>
#include <cstdio>
#include <deque>
#include <map>
#include <cctype>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "common/parse_number.h"
#include "common/side_by_side.h"
#include "delta/action_reader.h"
#include "delta/paths.h"

namespace lakeshore::delta {
namespace {

std::string Padded(int64_t value, int width) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%0*lld", width, static_cast<long long>(value));
  return buf;
}

std::string LogPath(const std::string& name) { return std::string(kDeltaLogDir) + "/" + name; }

std::string MultiPartName(int64_t version, int part, int parts) {
  return Padded(version, 20) + ".checkpoint." + Padded(part, 10) + "." + Padded(parts, 10) + ".parquet";
}

/// The logical identity of a file in the state: its path and its deletion vector id.
std::string FileKey(const std::string& path, const std::optional<DeletionVectorDescriptor>& dv) {
  return dv ? path + '\x1f' + dv->UniqueId() : path;
}

/// Where a sidecar action's file is, relative to the table root: a relative path is relative
/// to `_delta_log/_sidecars/` (where the protocol keeps every sidecar; delta-rs reads
/// `sub/x.parquet` there too), an absolute path or URI is related to the table.
std::string SidecarPath(const SidecarFile& sidecar, const std::string& root_uri) {
  const std::string& path = sidecar.path;
  if (IsRelativeReference(path)) {
    const std::string below = LogPath("_sidecars/" + path);
    auto normal = LexicallyNormalPath(below);
    if (normal && normal->rfind(LogPath("_sidecars/"), 0) == 0) return *normal;
    auto rel = RelativizeToTable(below, root_uri);  // `..` out of `_sidecars`: where it leads
    return rel.ok() ? *rel : below;                 // outside the table: reading it fails, naming it
  }
  auto rel = RelativizeToTable(path, root_uri);
  return rel.ok() ? *rel : path;
}

/// What a file name in `_delta_log` is (hand-parsed: listing a long log calls this per file).
struct LogFileName {
  enum Kind { kOther, kCommit, kClassic, kMultiPart, kUuidNamed } kind = kOther;
  int64_t version = 0;
  int part = 0, parts = 0;
};

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// What `name` is; kOther for names that are not log files. A log file name whose numbers do
/// not fit (a version beyond int64, a part outside 1..parts) → kCorruptMetadata naming it.
Result<LogFileName> ParseLogFileName(std::string_view name) {
  LogFileName out;
  if (name.size() < 21 || !AllDigits(name.substr(0, 20)) || name[20] != '.') return out;
  auto corrupt = [&](const char* why) {
    return CorruptMetadata("Delta log file '" + std::string(kDeltaLogDir) + "/" + std::string(name) + "': " + why);
  };
  std::optional<int64_t> version = ParseInt64(name.substr(0, 20));
  if (!version) return corrupt("its version number does not fit in 64 bits");
  std::string_view rest = name.substr(21);
  if (rest == "json") return LogFileName{LogFileName::kCommit, *version};
  constexpr std::string_view kCheckpoint = "checkpoint.";
  if (rest.substr(0, kCheckpoint.size()) != kCheckpoint) return out;
  rest.remove_prefix(kCheckpoint.size());
  if (rest == "parquet") return LogFileName{LogFileName::kClassic, *version};
  // <part:10>.<parts:10>.parquet
  if (rest.size() == 10 + 1 + 10 + 8 && AllDigits(rest.substr(0, 10)) && rest[10] == '.' &&
      AllDigits(rest.substr(11, 10)) && rest.substr(21) == ".parquet") {
    std::optional<int32_t> part = ParseInt32(rest.substr(0, 10));
    std::optional<int32_t> parts = ParseInt32(rest.substr(11, 10));
    if (!part || !parts || *part < 1 || *part > *parts) {
      return corrupt("its checkpoint part number is not within 1..parts");
    }
    return LogFileName{LogFileName::kMultiPart, *version, *part, *parts};
  }
  // <uuid:36>.json|parquet
  if (rest.size() > 37 && rest[36] == '.' &&
      std::all_of(rest.begin(), rest.begin() + 36, [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) || c == '-'; }) &&
      (rest.substr(37) == "json" || rest.substr(37) == "parquet")) {
    return LogFileName{LogFileName::kUuidNamed, *version};
  }
  return out;
}

}  // namespace

std::string DeltaLog::CommitPath(int64_t version) { return LogPath(Padded(version, 20) + ".json"); }

Result<std::shared_ptr<DeltaLog>> DeltaLog::Open(std::shared_ptr<Storage> table,
                                                 std::shared_ptr<Engine> engine) {
  // A writer that checkpoints between the listing and the read of `_last_checkpoint` leaves
  // it naming a checkpoint (or parts) the listing lacks: listed once more, the log then holds
  // it. Still missing, or anything else found corrupt twice: the log is damaged, and the error
  // says where.
  for (int attempt = 0;; ++attempt) {
    std::shared_ptr<DeltaLog> log(new DeltaLog(table, engine));
    ARROW_ASSIGN_OR_RAISE(auto entries, log->table_->List(kDeltaLogDir, /*recursive=*/false));
    Status indexed = log->Index(entries);
    if (attempt == 0 && (IsError(indexed, ErrorKind::kCorruptMetadata) || (indexed.ok() && log->NamedCheckpointUnlisted()))) {
      continue;
    }
    ARROW_RETURN_NOT_OK(indexed);
    return log;
  }
}

bool DeltaLog::NamedCheckpointUnlisted() const {
  if (!last_checkpoint_version_) return false;
  return std::none_of(complete_checkpoints_.begin(), complete_checkpoints_.end(),
                      [&](const Checkpoint& c) { return c.version >= *last_checkpoint_version_; });
}

Status DeltaLog::Index(const std::vector<FileEntry>& entries) {
  // version -> parts -> part numbers present
  std::map<int64_t, std::map<int, std::vector<int>>> multipart;
  std::map<int64_t, int64_t> multipart_mtime;  // the newest part's, per version
  bool has_last_checkpoint = false;
  for (const auto& e : entries) {
    if (e.is_dir) continue;
    std::string_view name = BaseName(e.path);
    if (name == "_last_checkpoint") {
      has_last_checkpoint = true;
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(LogFileName parsed, ParseLogFileName(name));
    switch (parsed.kind) {
      case LogFileName::kCommit:
        commits_.push_back({parsed.version, e.path, e.size, e.mtime_ms});
        break;
      case LogFileName::kClassic:
        complete_checkpoints_.push_back({parsed.version, Checkpoint::Kind::kClassic, {e.path}, e.mtime_ms});
        break;
      case LogFileName::kUuidNamed:
        complete_checkpoints_.push_back({parsed.version, Checkpoint::Kind::kUuidNamed, {e.path}, e.mtime_ms});
        break;
      case LogFileName::kMultiPart:
        multipart[parsed.version][parsed.parts].push_back(parsed.part);
        multipart_mtime[parsed.version] = std::max(multipart_mtime[parsed.version], e.mtime_ms);
        break;
      case LogFileName::kOther:
        break;
    }
  }
  for (auto& [version, by_parts] : multipart) {
    for (auto& [parts, present] : by_parts) {
      // Every part number is within 1..parts (ParseLogFileName), so the checkpoint is complete
      // exactly when each appears; the claimed count is never looped over.
      std::sort(present.begin(), present.end());
      present.erase(std::unique(present.begin(), present.end()), present.end());
      if (static_cast<int64_t>(present.size()) < parts) {
        int first_missing = 1;
        while (static_cast<size_t>(first_missing) <= present.size() &&
               present[static_cast<size_t>(first_missing - 1)] == first_missing) {
          ++first_missing;
        }
        incomplete_checkpoints_.push_back({version, LogPath(MultiPartName(version, first_missing, parts))});
        continue;
      }
      Checkpoint cp{version, Checkpoint::Kind::kMultiPart, {}, multipart_mtime[version]};
      for (int p : present) cp.parts.push_back(LogPath(MultiPartName(version, p, parts)));
      complete_checkpoints_.push_back(std::move(cp));
    }
  }
  std::sort(commits_.begin(), commits_.end(),
            [](const CommitFile& a, const CommitFile& b) { return a.version < b.version; });
  std::stable_sort(complete_checkpoints_.begin(), complete_checkpoints_.end(),
                   [](const Checkpoint& a, const Checkpoint& b) { return a.version < b.version; });
  for (const auto& c : commits_) latest_version_ = std::max(latest_version_, c.version);
  for (const auto& c : complete_checkpoints_) latest_version_ = std::max(latest_version_, c.version);
  if (latest_version_ == std::numeric_limits<int64_t>::max()) {
    // No version can follow it (a replay counting past it, or the next commit, would overflow).
    std::string file = !complete_checkpoints_.empty() && complete_checkpoints_.back().version == latest_version_
                           ? complete_checkpoints_.back().parts.front()
                           : commits_.back().path;
    return CorruptMetadata("Delta log file '" + file + "' has version " + std::to_string(latest_version_) +
                           ", the largest a version can be: no table reaches it by commits");
  }

  if (has_last_checkpoint) {
    std::string path = LogPath("_last_checkpoint");
    ARROW_ASSIGN_OR_RAISE(auto text, table_->ReadString(path));
    // A single small JSON document (not newline-delimited action data): nlohmann fits it.
    auto doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("version") ||
        !doc["version"].is_number_integer()) {
      return CorruptMetadata("Delta log file '" + path + "' is not a valid _last_checkpoint document");
    }
    last_checkpoint_version_ = doc["version"].get<int64_t>();
    if (doc.contains("v2Checkpoint") && doc["v2Checkpoint"].is_object() &&
        doc["v2Checkpoint"].contains("path") && doc["v2Checkpoint"]["path"].is_string()) {
      last_checkpoint_v2_path_ = doc["v2Checkpoint"]["path"].get<std::string>();
    }
    const bool newer_listed = std::any_of(complete_checkpoints_.begin(), complete_checkpoints_.end(),
                                          [&](const Checkpoint& c) { return c.version > *last_checkpoint_version_; });
    if (doc.contains("parts") && doc["parts"].is_number_integer() && !newer_listed) {
      int64_t parts = doc["parts"].get<int64_t>();
      if (parts < 1 || parts > static_cast<int64_t>(entries.size())) {
        return CorruptMetadata("'" + path + "' names a checkpoint of " + std::to_string(parts) +
                               " parts, but the log holds " + std::to_string(entries.size()) + " files");
      }
      std::unordered_set<std::string> listed;
      for (const auto& e : entries) listed.insert(e.path);
      for (int p = 1; p <= static_cast<int>(parts); ++p) {
        std::string part = LogPath(MultiPartName(*last_checkpoint_version_, p, static_cast<int>(parts)));
        if (!listed.count(part)) {
          return CorruptMetadata("checkpoint part '" + part + "' named by '" + path +
                                 "' is missing");
        }
      }
    }
  }
  if (latest_version_ < 0) {
    return CorruptMetadata("no Delta commit or checkpoint found under '" + table_->root_uri() +
                           "/" + kDeltaLogDir + "'");
  }
  return Status::OK();
}

const CommitFile* DeltaLog::FindCommit(int64_t version) const {
  auto it = std::lower_bound(commits_.begin(), commits_.end(), version,
                             [](const CommitFile& c, int64_t v) { return c.version < v; });
  return it != commits_.end() && it->version == version ? &*it : nullptr;
}

Result<std::optional<Checkpoint>> DeltaLog::ChooseCheckpoint() const {
  if (last_checkpoint_version_) {
    int64_t v = *last_checkpoint_version_;
    // A newer complete checkpoint serves too (the log's cleanup may have removed the named one).
    bool present = std::any_of(complete_checkpoints_.begin(), complete_checkpoints_.end(),
                               [&](const Checkpoint& c) { return c.version >= v; });
    if (!present) {
      for (const auto& [version, missing] : incomplete_checkpoints_) {
        if (version == v) return CorruptMetadata("checkpoint part '" + missing + "' is missing");
      }
      return CorruptMetadata("'" + LogPath("_last_checkpoint") + "' names checkpoint version " +
                             std::to_string(v) + " but no checkpoint file of that version exists");
    }
    if (last_checkpoint_v2_path_) {
      std::string name(BaseName(*last_checkpoint_v2_path_));
      bool found = std::any_of(complete_checkpoints_.begin(), complete_checkpoints_.end(),
                               [&](const Checkpoint& c) { return c.parts.size() == 1 && BaseName(c.parts[0]) == name; });
      if (!found) return CorruptMetadata("v2 checkpoint '" + LogPath(name) + "' named by _last_checkpoint is missing");
    }
  }
  if (complete_checkpoints_.empty()) return std::optional<Checkpoint>();
  // The newest version; among several checkpoints of one version prefer UUID-named (v2).
  const Checkpoint* best = &complete_checkpoints_.back();
  for (const auto& c : complete_checkpoints_) {
    if (c.version == best->version && c.kind == Checkpoint::Kind::kUuidNamed) best = &c;
  }
  return std::optional<Checkpoint>(*best);
}

namespace {

/// Dates each tombstone of `actions` written without a deletionTimestamp (optional in the
/// protocol) `written_ms`: when its action was written at the latest. Spark and delta-rs take
/// such a tombstone as expired at once (time 0), so a vacuum deleted a file a version within the
/// retention still read; dated by its commit, it expires with the commit's retention.
void DateUndatedTombstones(ActionSet& actions, int64_t written_ms) {
  for (auto& r : actions.removes) {
    if (!r.deletion_timestamp) r.deletion_timestamp = written_ms;
  }
}

/// The latest time `commit` can have been written: its file's modification time, or the time
/// its commitInfo states (in-commit timestamp or timestamp) when later.
int64_t CommitWrittenMs(const CommitFile& commit, const ActionSet& actions) {
  int64_t when = commit.mtime_ms;
  if (actions.commit_info) {
    when = std::max(when, actions.commit_info->timestamp.value_or(INT64_MIN));
    when = std::max(when, actions.commit_info->in_commit_timestamp.value_or(INT64_MIN));
  }
  return when;
}

}  // namespace

Result<ActionSet> DeltaLog::ReadCommit(int64_t version) const {
  const CommitFile* commit = FindCommit(version);
  if (commit == nullptr) {
    return CorruptMetadata("Delta commit '" + CommitPath(version) + "' is missing");
  }
  ARROW_ASSIGN_OR_RAISE(auto actions, ReadActionFile(*table_, commit->path));
  DateUndatedTombstones(actions, CommitWrittenMs(*commit, actions));
  return actions;
}

Result<std::vector<ActionSet>> DeltaLog::ReadCommits(const std::vector<int64_t>& versions) const {
  // Each commit is read and parsed by its own task: parsing is one pass over the bytes.
  const auto n = static_cast<int64_t>(versions.size());
  std::vector<std::string> sources(versions.size());
  for (size_t i = 0; i < versions.size(); ++i) {
    const CommitFile* commit = FindCommit(versions[i]);
    if (commit == nullptr) return CorruptMetadata("Delta commit '" + CommitPath(versions[i]) + "' is missing");
    sources[i] = commit->path;
  }
  return engine_->Map<ActionSet>(n, [&](int64_t i) -> Result<ActionSet> {
    ARROW_ASSIGN_OR_RAISE(auto actions, ReadActionFile(*table_, sources[static_cast<size_t>(i)]));
    DateUndatedTombstones(actions, CommitWrittenMs(*FindCommit(versions[static_cast<size_t>(i)]), actions));
    return actions;
  });
}

std::vector<std::pair<int64_t, int64_t>> DeltaLog::CommitTimestamps() const {
  std::vector<std::pair<int64_t, int64_t>> out;
  out.reserve(commits_.size());
  int64_t previous = INT64_MIN;
  for (const auto& c : commits_) {
    int64_t ts = c.mtime_ms;
    if (previous != INT64_MIN && ts <= previous) ts = previous + 1;
    out.emplace_back(c.version, ts);
    previous = ts;
  }
  return out;
}

Result<DeltaSnapshot> DeltaLog::LoadSnapshot(bool with_active_files) {
  DeltaSnapshot snapshot;
  snapshot.version = latest_version_;
  ARROW_ASSIGN_OR_RAISE(snapshot.checkpoint, ChooseCheckpoint());
  int64_t first_commit = snapshot.checkpoint ? snapshot.checkpoint->version + 1 : 0;
  std::vector<int64_t> versions;
  for (int64_t v = first_commit; v <= latest_version_; ++v) {
    if (FindCommit(v) == nullptr) {
      std::string msg = "Delta commit '" + CommitPath(v) + "' is missing";
      for (const auto& [version, missing] : incomplete_checkpoints_) {
        if (version >= v) msg += " and checkpoint part '" + missing + "' is missing";
      }
      return CorruptMetadata(msg);
    }
    versions.push_back(v);
  }

  // The state is replayed over pointers into the ActionSets read below (alive until the end):
  // a file's key is a view of its path, or of a key string kept in `dv_keys` when it has a
  // deletion vector. Nothing is copied until the survivors are moved into the snapshot.
  std::deque<std::string> dv_keys;
  auto key_of = [&](const std::string& path, const std::optional<DeletionVectorDescriptor>& dv) -> std::string_view {
    if (!dv) return path;
    dv_keys.push_back(FileKey(path, dv));
    return dv_keys.back();
  };
  std::unordered_map<std::string_view, AddFile*> active;
  std::unordered_map<std::string_view, RemoveFile*> tombstones;
  auto apply = [&](ActionSet& actions, const std::string& source, bool is_commit) {
    for (auto& r : actions.removes) {
      std::string_view key = key_of(r.path, r.deletion_vector);
      if (!active.empty()) active.erase(key);
      tombstones[key] = &r;
    }
    for (auto& a : actions.adds) {
      std::string_view key = key_of(a.path, a.deletion_vector);
      if (!tombstones.empty()) tombstones.erase(key);
      if (with_active_files) active[key] = &a;
    }
    if (is_commit) {
      for (auto& c : actions.cdc) snapshot.cdc_files.push_back(std::move(c));
    }
    if (actions.protocol) {
      snapshot.protocol = *actions.protocol;
      snapshot.protocol_source = source;
    }
    if (actions.metadata) snapshot.metadata = *actions.metadata;
  };

  bool has_protocol = false, has_metadata = false;
  // The commits after the checkpoint are read (their own parallel job, on this thread) while
  // the checkpoint parts are read (another job, driven from a helper thread): a compaction's
  // big commit and a checkpoint then overlap instead of following each other.
  const std::vector<std::string> no_parts;
  const auto& parts = snapshot.checkpoint ? snapshot.checkpoint->parts : no_parts;
  auto read_parts = [&] {
    return engine_->Map<ActionSet>(static_cast<int64_t>(parts.size()), [&](int64_t i) {
      return ReadActionFile(*table_, parts[static_cast<size_t>(i)], with_active_files);
    });
  };
  Result<std::vector<ActionSet>> parts_read = std::vector<ActionSet>();
  Result<std::vector<ActionSet>> commits_read = std::vector<ActionSet>();
  if (!parts.empty() && !versions.empty()) {
    RunSideBySide(2, [&](size_t i) {
      if (i == 0) {
        commits_read = ReadCommits(versions);
      } else {
        parts_read = read_parts();
      }
    });
  } else {
    parts_read = read_parts();
    commits_read = ReadCommits(versions);
  }
  ARROW_ASSIGN_OR_RAISE(auto part_actions, std::move(parts_read));
  ARROW_ASSIGN_OR_RAISE(auto commit_actions, std::move(commits_read));
  std::vector<ActionSet> sidecar_actions;  // outlives the replay: the state points into it
  if (snapshot.checkpoint) {
    // A checkpoint's tombstones were written by its version's commit or before.
    int64_t written_ms = snapshot.checkpoint->mtime_ms;
    if (const CommitFile* c = FindCommit(snapshot.checkpoint->version)) written_ms = std::max(written_ms, c->mtime_ms);
    for (auto& p : part_actions) DateUndatedTombstones(p, written_ms);
    size_t checkpoint_adds = 0;
    for (const auto& p : part_actions) checkpoint_adds += p.adds.size();
    active.reserve(checkpoint_adds + 1024);
    std::vector<std::string> sidecars;
    std::vector<int64_t> sidecar_sizes;
    for (size_t i = 0; i < parts.size(); ++i) {
      for (const auto& s : part_actions[i].sidecars) {
        sidecars.push_back(SidecarPath(s, table_->root_uri()));
        sidecar_sizes.push_back(s.size_in_bytes);
      }
      has_protocol |= part_actions[i].protocol.has_value();
      has_metadata |= part_actions[i].metadata.has_value();
      apply(part_actions[i], parts[i], false);
    }
    // The protocol requires a checkpoint to hold both (Spark's, delta-rs's and kernel's all
    // do); one without is not what its name says, whatever later commits hold.
    if (!has_protocol || !has_metadata) {
      return CorruptMetadata("the Delta checkpoint '" + parts.front() + "' (version " +
                             std::to_string(snapshot.checkpoint->version) + ") has no " +
                             (has_protocol ? "metaData" : "protocol") + " action");
    }
    ARROW_ASSIGN_OR_RAISE(sidecar_actions,
                          engine_->Map<ActionSet>(static_cast<int64_t>(sidecars.size()), [&](int64_t i) {
                            return ReadParquetActions(*table_, sidecars[static_cast<size_t>(i)], with_active_files,
                                                      ParquetActionFile::kSidecar, sidecar_sizes[static_cast<size_t>(i)]);
                          }));
    for (size_t i = 0; i < sidecars.size(); ++i) {
      DateUndatedTombstones(sidecar_actions[i], written_ms);
      apply(sidecar_actions[i], sidecars[i], false);
    }
  }
  for (size_t i = 0; i < versions.size(); ++i) {
    has_protocol |= commit_actions[i].protocol.has_value();
    has_metadata |= commit_actions[i].metadata.has_value();
    apply(commit_actions[i], CommitPath(versions[i]), true);
  }
  if (!has_protocol || !has_metadata) {
    return CorruptMetadata("the Delta log at version " + std::to_string(latest_version_) +
                           " has no " + (has_protocol ? "metaData" : "protocol") + " action");
  }
  snapshot.active_files.reserve(active.size());
  for (auto& [k, f] : active) snapshot.active_files.push_back(std::move(*f));
  snapshot.tombstones.reserve(tombstones.size());
  for (auto& [k, f] : tombstones) snapshot.tombstones.push_back(std::move(*f));
  return snapshot;
}

}  // namespace lakeshore::delta
