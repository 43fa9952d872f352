// The nanobind module lakeshore._core: one Bind<Area>(m) per file python/bindings/<area>.cc,
// all called from module.cc, plus the helpers every area shares (errors, Arrow C streams).
#pragma once

#include <memory>
#include <utility>

#include <arrow/record_batch.h>
#include <arrow/result.h>
#include <arrow/status.h>
#include <arrow/table.h>
#include <arrow/type.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

namespace lakeshore::python {

namespace nb = nanobind;

// ---- areas -------------------------------------------------------------------------------

/// errors.cc: the exception classes (LakeshoreError and one subclass per ErrorKind).
void BindErrors(nb::module_& m);
/// arrow_stream.cc: module-level helpers of the Arrow C data interface.
void BindArrowStream(nb::module_& m);
/// runtime.cc: Arrow compute initialization and the S3 finalizer run at interpreter exit.
void BindRuntime(nb::module_& m);
/// vacuum.cc: the vacuum function (Delta and Hudi tables).
void BindVacuum(nb::module_& m);
/// blob.cc: the RFC-100 blob column type.
void BindBlob(nb::module_& m);
/// table.cc: the Table class.
void BindTable(nb::module_& m);

// ---- errors (errors.cc) ------------------------------------------------------------------

/// Sets the Python error matching `status` (its ErrorKind if it carries one, else its
/// arrow::StatusCode) with the C++ message, and throws nb::python_error. Needs the GIL.
[[noreturn]] void RaiseStatus(const arrow::Status& status);

/// Raises (see RaiseStatus) unless `status` is OK. Needs the GIL.
inline void CheckStatus(const arrow::Status& status) {
  if (!status.ok()) RaiseStatus(status);
}

/// The value of `result`, or raises its error (see RaiseStatus). Needs the GIL.
template <typename T>
T ValueOrRaise(arrow::Result<T> result) {
  if (!result.ok()) RaiseStatus(result.status());
  return std::move(result).ValueUnsafe();
}

// ---- Arrow C data interface (arrow_stream.cc) --------------------------------------------

/// Imports a PyCapsule named "arrow_array_stream" (from `obj.__arrow_c_stream__()`) as a
/// RecordBatchReader. Zero-copy: the batches stay the producer's memory. The capsule's stream is
/// moved out (released in the capsule), so a capsule can be consumed once. Raises TypeError on
/// anything else.
std::shared_ptr<arrow::RecordBatchReader> ImportStreamCapsule(nb::handle capsule);

/// Exports `table` as a PyCapsule named "arrow_array_stream" whose destructor releases the
/// stream if nobody consumed it. Zero-copy.
nb::capsule ExportTableCapsule(std::shared_ptr<arrow::Table> table);

/// Imports a PyCapsule named "arrow_schema" (from `obj.__arrow_c_schema__()`) as a schema.
std::shared_ptr<arrow::Schema> ImportSchemaCapsule(nb::handle capsule);

/// Exports `schema` as a PyCapsule named "arrow_schema".
nb::capsule ExportSchemaCapsule(const arrow::Schema& schema);

/// Exports the field `field` as a PyCapsule named "arrow_schema" (for `pa.field(holder)`).
nb::capsule ExportFieldCapsule(const arrow::Field& field);

}  // namespace lakeshore::python
