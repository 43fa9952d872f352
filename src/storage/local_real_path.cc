#include "storage/local_real_path.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace lakeshore {

Result<std::string> RealPathOfLocal(const std::string& abs) {
  if (abs.empty() || abs.front() != '/') return Status::Invalid("'", abs, "' is not an absolute local path");
  std::string existing = abs;
  std::string missing;  // the trailing components that do not exist, with a leading '/'
  for (;;) {
    std::unique_ptr<char, decltype(&std::free)> real(::realpath(existing.c_str(), nullptr), &std::free);
    if (real) {
      std::string out(real.get());
      if (out == "/") return missing.empty() ? out : missing;
      return out + missing;
    }
    if (errno != ENOENT && errno != ENOTDIR) {
      return Status::IOError("cannot resolve '", existing, "': ", std::strerror(errno));
    }
    size_t slash = existing.rfind('/');
    if (slash == std::string::npos || existing == "/") return abs;
    missing = existing.substr(slash) + missing;
    existing = slash == 0 ? "/" : existing.substr(0, slash);
  }
}

}  // namespace lakeshore
