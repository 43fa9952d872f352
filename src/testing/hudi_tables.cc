#include "testing/hudi_tables.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace lakeshore::testing {

std::string HudiTablesPath(const std::string& relative) {
  auto root = std::filesystem::path(LAKESHORE_SOURCE_DIR).parent_path() / "shared" / "hudi-tables";
  std::error_code ec;
  if (!std::filesystem::is_directory(root, ec)) return "";
  return (root / relative).string();
}

std::string ReadHudiTablesFile(const std::string& relative) {
  std::string path = HudiTablesPath(relative);
  if (path.empty()) return "";
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace lakeshore::testing
