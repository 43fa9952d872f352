// Internal: a one-pass reader of newline-delimited JSON Delta commits straight into ActionSets.
#pragma once

#include <string>
#include <string_view>

#include "lakeshore/delta/actions.h"

namespace lakeshore::delta {

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
/// Cost: O(bytes); allocates only for the values kept.
Result<ActionSet> ParseJsonCommit(std::string_view data, const std::string& source);

}  // namespace lakeshore::delta
