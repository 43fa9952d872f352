// Arrow schema <-> JSON, readable in table.json.
#pragma once

#include <memory>
#include <string>

#include <arrow/type.h>
#include <nlohmann/json.hpp>

#include "lakeshore/status.h"

namespace lakeshore {

/// Renders a schema as [{"name":..., "type":..., "nullable":...}, ...]. Nested types carry
/// "fields" (struct) or "item" (list). Fails for a type table.json cannot describe.
Result<nlohmann::json> SchemaToJson(const arrow::Schema& schema);

/// Parses what SchemaToJson wrote; errors say which field is bad.
Result<std::shared_ptr<arrow::Schema>> SchemaFromJson(const nlohmann::json& json);

}  // namespace lakeshore
