// Internal: where a local path really is, through symbolic links.
#pragma once

#include <optional>
#include <string>

#include "lakeshore/status.h"

namespace lakeshore {

/// The canonical absolute form of the local absolute path `abs` with every symbolic link
/// resolved (realpath(3)), for a path that need not exist: its longest existing ancestor is
/// resolved and the missing rest appended. IOError naming the path if a component cannot be
/// examined (permissions, a link loop). Cost: one realpath per missing trailing component.
Result<std::string> RealPathOfLocal(const std::string& abs);

}  // namespace lakeshore
