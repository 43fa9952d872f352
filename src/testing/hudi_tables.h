// Test helper: the Spark-written Hudi tables and unit files in `../shared/hudi-tables/` beside
// the checkout (see its README). Tests that need them skip, saying why, when it is absent.
#pragma once

#include <string>

namespace lakeshore::testing {

/// The absolute path of `relative` under shared/hudi-tables, or "" if that folder is absent.
std::string HudiTablesPath(const std::string& relative);

/// The bytes of the file `relative` under shared/hudi-tables, or "" if it cannot be read.
std::string ReadHudiTablesFile(const std::string& relative);

}  // namespace lakeshore::testing
