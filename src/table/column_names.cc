#include "table/column_names.h"

#include <map>
#include <string>

#include <arrow/type.h>
#include <arrow/util/string.h>

#include "common/utf8.h"
#include "table/meta_columns.h"

namespace lakeshore {
namespace {

Status CheckSiblings(const arrow::FieldVector& fields, const std::string& prefix);

/// The fields inside `type` (of the column at `path`): a struct's as siblings, and the item,
/// entry and value fields of lists and maps, down to any struct they hold.
Status CheckNested(const arrow::DataType& type, const std::string& path) {
  if (type.id() == arrow::Type::STRUCT) return CheckSiblings(type.fields(), path + ".");
  for (const auto& child : type.fields()) {
    if (!IsValidUtf8(child->name())) return Status::Invalid("a field name inside '", path, "' is not valid UTF-8");
    ARROW_RETURN_NOT_OK(CheckNested(*child->type(), path));
  }
  return Status::OK();
}

/// The names of `fields` (under `prefix`, "" at the top): UTF-8, and none twice, case aside;
/// then what each holds, likewise.
Status CheckSiblings(const arrow::FieldVector& fields, const std::string& prefix) {
  std::map<std::string, std::string> seen;  // lowercased -> as written
  for (const auto& f : fields) {
    const std::string& name = f->name();
    if (!IsValidUtf8(name)) return Status::Invalid("a column name is not valid UTF-8");
    auto [it, fresh] = seen.emplace(arrow::internal::AsciiToLower(name), name);
    if (!fresh) {
      if (it->second == name) return Status::Invalid("column '", prefix, name, "' appears more than once");
      return Status::Invalid("columns '", prefix, it->second, "' and '", prefix, name,
                             "' differ only in case: Spark and Trino match column names case-insensitively and "
                             "could not read the table");
    }
  }
  for (const auto& f : fields) ARROW_RETURN_NOT_OK(CheckNested(*f->type(), prefix + f->name()));
  return Status::OK();
}

}  // namespace

Status CheckColumnNames(const arrow::Schema& schema) {
  for (const auto& f : schema.fields()) {
    if (meta_columns::IsReserved(f->name())) {
      return Status::Invalid("column '", f->name(), "' uses the reserved prefix _hoodie_ (Hudi's meta columns)");
    }
  }
  return CheckSiblings(schema.fields(), "");
}

}  // namespace lakeshore
