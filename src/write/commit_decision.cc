#include "write/commit_decision.h"

#include "table/layout.h"

namespace lakeshore {
namespace {

constexpr std::string_view kCommitWord = "commit ";
constexpr std::string_view kRollbackWord = "rollback";

std::string PathOf(const std::string& instant_time) { return JoinPath(layout::kDecisionDir, instant_time); }

std::string Render(const CommitDecision& d) {
  if (d.kind == CommitDecision::Kind::kRollback) return std::string(kRollbackWord);
  return std::string(kCommitWord) + d.completion_time + "\n" + d.completed_bytes;
}

Result<CommitDecision> Parse(const std::string& text, const std::string& source) {
  CommitDecision d;
  if (text == kRollbackWord) return d;
  if (text.compare(0, kCommitWord.size(), kCommitWord) == 0) {
    const size_t newline = text.find('\n');
    if (newline != std::string::npos) {
      d.kind = CommitDecision::Kind::kCommit;
      d.completion_time = text.substr(kCommitWord.size(), newline - kCommitWord.size());
      d.completed_bytes = text.substr(newline + 1);
      return d;
    }
  }
  return CorruptMetadata("commit decision " + source + " is neither 'rollback' nor 'commit <time>' and the instant");
}

}  // namespace

Result<CommitDecision> Decide(Storage& storage, const std::string& instant_time, const CommitDecision& proposal) {
  const std::string path = PathOf(instant_time);
  for (int attempt = 0;; ++attempt) {
    ARROW_ASSIGN_OR_RAISE(bool won, storage.PutIfAbsentString(path, Render(proposal)));
    if (won) return proposal;
    auto standing = storage.ReadString(path);
    if (standing.ok()) return Parse(*standing, storage.root_uri() + "/" + path);
    // Forgotten between our put and our read (its instant was just settled): propose again.
    ARROW_ASSIGN_OR_RAISE(bool exists, storage.Exists(path));
    if (exists || attempt >= 3) return standing.status();
  }
}

Status ForgetDecision(Storage& storage, const std::string& instant_time) {
  return storage.DeleteFiles({PathOf(instant_time)}).status();
}

}  // namespace lakeshore
