#include "lakeshore/status.h"

namespace lakeshore {

const char* ErrorKindName(ErrorKind kind) {
  switch (kind) {
#define LAKESHORE_ERROR_NAME(k, name, ctor, code, py, doc) \
  case ErrorKind::k:                                      \
    return name;
    LAKESHORE_ERROR_KINDS(LAKESHORE_ERROR_NAME)
#undef LAKESHORE_ERROR_NAME
  }
  return "unknown";
}

const char* LakeshoreErrorDetail::type_id() const { return "lakeshore::LakeshoreErrorDetail"; }

std::string LakeshoreErrorDetail::ToString() const { return ErrorKindName(kind_); }

Status MakeError(ErrorKind kind, std::string msg) {
  arrow::StatusCode code = arrow::StatusCode::Invalid;
  switch (kind) {
#define LAKESHORE_ERROR_CODE(k, name, ctor, status_code, py, doc) \
  case ErrorKind::k:                                             \
    code = arrow::StatusCode::status_code;                       \
    break;
    LAKESHORE_ERROR_KINDS(LAKESHORE_ERROR_CODE)
#undef LAKESHORE_ERROR_CODE
  }
  return Status(code, std::move(msg), std::make_shared<LakeshoreErrorDetail>(kind));
}

bool IsError(const Status& st, ErrorKind kind) {
  if (st.ok() || st.detail() == nullptr) return false;
  auto* detail = dynamic_cast<const LakeshoreErrorDetail*>(st.detail().get());
  return detail != nullptr && detail->kind() == kind;
}

}  // namespace lakeshore
