// Test helper: the Spark-written Hudi tables and unit files in `../shared/hudi-tables/` beside
// the checkout (see its README). Tests that need them skip, saying why, when it is absent.
#pragma once

#include <map>
#include <string>

namespace lakeshore::testing {

/// The absolute path of `relative` under shared/hudi-tables, or "" if that folder is absent.
std::string HudiTablesPath(const std::string& relative);

/// The bytes of the file `relative` under shared/hudi-tables, or "" if it cannot be read.
std::string ReadHudiTablesFile(const std::string& relative);

/// The files of the zip archive `relative` under shared/hudi-tables, by path inside the archive
/// (stored and deflated entries; macOS's __MACOSX/ entries left out); empty if it cannot be read.
std::map<std::string, std::string> ReadHudiTablesZip(const std::string& relative);

}  // namespace lakeshore::testing
