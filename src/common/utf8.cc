#include "common/utf8.h"

#include <arrow/util/utf8.h>

namespace lakeshore {

bool IsValidUtf8(std::string_view text) {
  // arrow::util::ValidateUTF8 reads lookup tables that InitializeUTF8 fills (once; thread-safe).
  static const bool initialized = [] {
    arrow::util::InitializeUTF8();
    return true;
  }();
  (void)initialized;
  return arrow::util::ValidateUTF8(text);
}

}  // namespace lakeshore
