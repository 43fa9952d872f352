// Internal: a one-pass reader of newline-delimited JSON Delta commits straight into ActionSets.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "lakeshore/delta/actions.h"

namespace lakeshore::delta {

/// The size from which ParseJsonCommit parses a commit in pieces side by side (a compaction's
/// commit of thousands of removes; ordinary commits are a few kilobytes).
inline constexpr size_t kJsonCommitSplitBytes = size_t{1} << 20;

/// Parses a newline-delimited JSON Delta commit (PROTOCOL.md "Delta Log Entries") into an
/// ActionSet. One pass over the bytes, no document tree: the fields an ActionSet holds are
/// decoded in place, every other value (`stats`, `partitionValues`, `tags`, unknown actions and
/// fields) is checked for JSON syntax and skipped.
///
/// Contract:
/// - every non-blank line is one JSON object; `null` for an action or field means absent;
/// - a syntax error, a truncated line, nesting deeper than 64, a known field of the wrong type
///   (a string path, integer sizes and times, string lists, string configuration values of the
///   interpreted properties) or an empty input → kCorruptMetadata naming `source`, with the line
///   and the problem; an action that breaks the protocol (an add without a path, a malformed
///   deletion vector) → kCorruptMetadata naming `source` and the action's number;
/// - paths are URL-decoded once (as log paths are written).
/// - a commit of `split_bytes` or more is parsed in pieces cut at line ends, one thread each
///   (up to the core count, 8 at most), and joined in file order: the result, and the first
///   error with its line and action number, are those of a single pass.
/// Cost: O(bytes); allocates only for the values kept.
Result<ActionSet> ParseJsonCommit(std::string_view data, const std::string& source,
                                  size_t split_bytes = kJsonCommitSplitBytes);

}  // namespace lakeshore::delta
