#include "services/vacuum/vacuum_report.h"

namespace lakeshore::vacuum {

VacuumReport StartReport(const char* format, const VacuumOptions& options) {
  VacuumReport report;
  report.format = format;
  report.mode = VacuumModeName(options.mode);
  report.dry_run = options.dry_run;
  return report;
}

int64_t ElapsedMs(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace lakeshore::vacuum
