// Internal: Apache Hudi's Avro schemas (the .avsc files in src/format/avro_schemas/, compiled
// into the library by CMake), with the named types each one references inlined, so a schema
// parses on its own.
#pragma once

#include <string>
#include <string_view>

#include "lakeshore/status.h"

namespace lakeshore::format {

/// The self-contained JSON text of Hudi's Avro schema `name` (the record's simple name, such
/// as "HoodieCommitMetadata"): named types defined in other files are inlined at their first
/// use. KeyError for a name no file defines. Cost: cached after the first call per name.
Result<std::string> HoodieAvroSchema(std::string_view name);

}  // namespace lakeshore::format
