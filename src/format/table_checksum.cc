#include "format/table_checksum.h"

#include <arrow/util/crc32.h>

#include "common/parse_number.h"

namespace lakeshore::format {

namespace {
constexpr const char* kTableName = "hoodie.table.name";
constexpr const char* kDatabaseName = "hoodie.database.name";
constexpr const char* kChecksum = "hoodie.table.checksum";
}  // namespace

Result<std::string> TableChecksum(const JavaProperties& properties) {
  auto name = properties.Get(kTableName);
  if (!name) return Status::Invalid(kTableName, " is missing; Hudi's table checksum is computed from it");
  std::string text = properties.Get(kDatabaseName).value_or("") + "." + *name;
  uint32_t crc = arrow::internal::crc32(0, text.data(), text.size());
  return std::to_string(crc);
}

Status ValidateTableChecksum(const JavaProperties& properties, const std::string& source) {
  auto stored = properties.Get(kChecksum);
  if (!stored) return Status::OK();
  auto expected = TableChecksum(properties);
  if (!expected.ok()) return CorruptMetadata("'" + source + "': " + expected.status().message());
  auto value = ParseInt64(*stored);
  if (!value) return CorruptMetadata("'" + source + "': " + kChecksum + " '" + *stored + "' is not a number");
  if (std::to_string(*value) != *expected) {
    return CorruptMetadata("'" + source + "': " + kChecksum + " is " + *stored + " but the table and database names give " +
                           *expected + " (the file was changed or partly written)");
  }
  return Status::OK();
}

}  // namespace lakeshore::format
