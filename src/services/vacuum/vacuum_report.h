// Internal: what both vacuums (Delta, Hudi) start their report with, and how they time it.
#pragma once

#include <chrono>
#include <cstdint>

#include "lakeshore/vacuum.h"

namespace lakeshore::vacuum {

/// A report of `format` for a run with `options`: format, mode and dry-run filled in.
VacuumReport StartReport(const char* format, const VacuumOptions& options);

/// Milliseconds since `since`.
int64_t ElapsedMs(std::chrono::steady_clock::time_point since);

}  // namespace lakeshore::vacuum
