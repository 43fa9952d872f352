// Internal: Hudi's `hoodie.table.checksum` of `.hoodie/hoodie.properties`.
#pragma once

#include <cstdint>
#include <string>

#include "format/java_properties.h"
#include "lakeshore/status.h"

namespace lakeshore::format {

/// Hudi's table checksum (HoodieTableConfig.generateChecksum): the CRC-32 of the UTF-8 bytes of
/// "<hoodie.database.name>.<hoodie.table.name>" (an absent database is empty, so a table with
/// none hashes ".<name>"), as an unsigned decimal. It guards only the names: Hudi writes it
/// with every store and checks it on every read. Invalid if hoodie.table.name is missing.
Result<std::string> TableChecksum(const JavaProperties& properties);

/// Checks a hoodie.properties document the way Hudi's reader does: a document without
/// hoodie.table.checksum is accepted (tables before Hudi 0.11); one whose checksum is not a
/// number, or differs from TableChecksum, is kCorruptMetadata naming `source` and both
/// values. O(name length).
Status ValidateTableChecksum(const JavaProperties& properties, const std::string& source);

}  // namespace lakeshore::format
