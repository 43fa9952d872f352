#include "services/vacuum/optimistic_check.h"

namespace lakeshore::vacuum {
namespace {

OptimisticDecision Run(std::string reason) { return {false, std::move(reason)}; }

/// Why commit `version` can have made something deletable at `cutoff_ms`, or "" if it cannot.
std::string WhyRelevant(const delta::ActionSet& a, int64_t version, int64_t snapshot_version,
                        int64_t cutoff_ms) {
  std::string at = "commit " + std::to_string(version);
  for (const auto& r : a.removes) {
    if (!r.deletion_timestamp || *r.deletion_timestamp < cutoff_ms) {
      return at + " removed '" + r.path + "' and its tombstone has expired";
    }
  }
  if (!a.cdc.empty()) return at + " wrote change data files";
  if (version > snapshot_version) {
    for (const auto& f : a.adds) {
      if (f.deletion_vector) return at + " wrote deletion vectors";
    }
    if (a.metadata) return at + " changed the table metadata";
    if (a.protocol) return at + " changed the protocol";
  }
  return "";
}

}  // namespace

Result<OptimisticDecision> DecideOptimistic(const delta::DeltaLog& log,
                                            const delta::DeltaSnapshot& snapshot,
                                            const std::optional<VacuumWatermark>& watermark,
                                            int64_t now_ms, int64_t cutoff_ms,
                                            std::optional<int64_t> force_full_after_ms) {
  if (!watermark || !watermark->snapshot_version || !watermark->cutoff_ms) {
    return Run("no completed Lakeshore vacuum is recorded for this table");
  }
  const VacuumWatermark& w = *watermark;
  if (force_full_after_ms &&
      (!w.last_full_vacuum_ms || now_ms - *w.last_full_vacuum_ms > *force_full_after_ms)) {
    return Run("the last full vacuum is older than the force-full bound");
  }
  if (w.oldest_young_untracked_ms && *w.oldest_young_untracked_ms < cutoff_ms) {
    return Run("a file the last full vacuum kept for being younger than its cutoff is older than the cutoff now");
  }
  if (*w.snapshot_version > snapshot.version) {
    return Run("the log is older than the last vacuum's version (table replaced?)");
  }
  // A cutoff older than last time (longer retention) only protects more, so it needs no rule.
  for (const auto& t : snapshot.tombstones) {
    int64_t ts = t.deletion_timestamp.value_or(0);
    if (ts >= *w.cutoff_ms && ts < cutoff_ms) {
      return Run("the tombstone of '" + t.path + "' expired since the last vacuum");
    }
  }
  int64_t first = w.latest_commit_version_outside_retention.value_or(-1) + 1;
  std::vector<int64_t> versions;
  for (int64_t v = first; v <= snapshot.version; ++v) {
    if (log.FindCommit(v) == nullptr) {
      return Run("commit " + std::to_string(v) + " after the last vacuum's watermark is no longer in the log");
    }
    versions.push_back(v);
  }
  ARROW_ASSIGN_OR_RAISE(auto actions, log.ReadCommits(versions));
  for (size_t i = 0; i < versions.size(); ++i) {
    std::string why = WhyRelevant(actions[i], versions[i], *w.snapshot_version, cutoff_ms);
    if (!why.empty()) return Run(why);
  }
  return OptimisticDecision{
      true, "nothing can have become deletable since the vacuum of version " +
                std::to_string(*w.snapshot_version) + ": " + std::to_string(versions.size()) +
                " later commit(s) checked removed no expired files and wrote no change data or "
                "deletion vectors"};
}

}  // namespace lakeshore::vacuum
