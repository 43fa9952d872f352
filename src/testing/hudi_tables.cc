#include "testing/hudi_tables.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <arrow/util/compression.h>

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

namespace {
uint32_t Le(const std::string& b, size_t pos, int n) {
  uint32_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(b[pos + static_cast<size_t>(i)]);
  return v;
}
}  // namespace

std::map<std::string, std::string> ReadHudiTablesZip(const std::string& relative) {
  std::map<std::string, std::string> out;
  const std::string zip = ReadHudiTablesFile(relative);
  if (zip.size() < 22) return out;
  // The end of central directory record, searched back from the end (it may carry a comment).
  size_t eocd = std::string::npos;
  for (size_t i = zip.size() - 22 + 1; i-- > 0;) {
    if (Le(zip, i, 4) == 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd == std::string::npos) return out;
  const uint32_t entries = Le(zip, eocd + 10, 2);
  size_t pos = Le(zip, eocd + 16, 4);
  arrow::util::GZipCodecOptions raw;
  raw.gzip_format = arrow::util::GZipFormat::DEFLATE;
  auto inflate = arrow::util::Codec::Create(arrow::Compression::GZIP, raw);
  if (!inflate.ok()) return out;
  for (uint32_t e = 0; e < entries && pos + 46 <= zip.size() && Le(zip, pos, 4) == 0x02014b50; ++e) {
    const uint32_t method = Le(zip, pos + 10, 2);
    const uint32_t compressed = Le(zip, pos + 20, 4);
    const uint32_t size = Le(zip, pos + 24, 4);
    const uint32_t name_len = Le(zip, pos + 28, 2), extra_len = Le(zip, pos + 30, 2), comment_len = Le(zip, pos + 32, 2);
    const uint32_t local = Le(zip, pos + 42, 4);
    const std::string name = zip.substr(pos + 46, name_len);
    pos += 46 + name_len + extra_len + comment_len;
    if (name.empty() || name.back() == '/' || name.rfind("__MACOSX", 0) == 0) continue;
    if (local + 30 > zip.size()) return {};
    const size_t data = local + 30 + Le(zip, local + 26, 2) + Le(zip, local + 28, 2);
    if (data + compressed > zip.size()) return {};
    if (method == 0) {
      out[name] = zip.substr(data, compressed);
    } else if (method == 8) {
      std::string bytes(size, '\0');
      auto n = (*inflate)->Decompress(compressed, reinterpret_cast<const uint8_t*>(zip.data() + data), size,
                                      reinterpret_cast<uint8_t*>(bytes.data()));
      if (!n.ok() || *n != static_cast<int64_t>(size)) return {};
      out[name] = std::move(bytes);
    }
  }
  return out;
}

}  // namespace lakeshore::testing
