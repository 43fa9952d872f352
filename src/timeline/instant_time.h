// Instant times: UTC milliseconds rendered as yyyyMMddHHmmssSSS (17 digits).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lakeshore/status.h"

namespace lakeshore {

inline constexpr size_t kInstantTimeLength = 17;

/// Renders UTC ms since the epoch as yyyyMMddHHmmssSSS.
std::string FormatInstantTime(int64_t epoch_ms);

/// Parses yyyyMMddHHmmssSSS back to UTC ms; Invalid for anything else.
Result<int64_t> ParseInstantTime(const std::string& time);

/// True when `s` is an instant time as Hudi's file names carry it: 14 digits (old tables,
/// yyyyMMddHHmmss), 17 (yyyyMMddHHmmssSSS) or 20 (the metadata table's suffixed times).
bool IsInstantTimeToken(std::string_view s);

/// True when `s` has the shape of an instant time (17 digits).
bool LooksLikeInstantTime(const std::string& s);

/// The smallest instant time that is >= now and > `after` (empty `after`: just now). Keeps
/// instant times strictly increasing even when clocks stall or step back. kCorruptMetadata,
/// naming it, when `after` is more than a year ahead of `now_ms` (a far-future instant on the
/// timeline) or the result would leave the 17-digit format.
Result<std::string> NextInstantTime(int64_t now_ms, const std::string& after);

}  // namespace lakeshore
