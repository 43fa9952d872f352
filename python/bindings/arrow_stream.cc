// The Arrow C data interface between Python and the core: PyCapsules of ArrowArrayStream and
// ArrowSchema, as the Arrow PyCapsule protocol defines them. Zero-copy both ways.
#include <cstdlib>

#include <arrow/c/abi.h>
#include <arrow/c/bridge.h>
#include <arrow/record_batch.h>
#include <arrow/table.h>

#include "bindings.h"

namespace lakeshore::python {
namespace {

constexpr const char* kStreamCapsule = "arrow_array_stream";
constexpr const char* kSchemaCapsule = "arrow_schema";

/// The capsule's pointer, or a TypeError naming what was expected.
void* CapsulePointer(nb::handle obj, const char* name, const char* producer_method) {
  if (!PyCapsule_IsValid(obj.ptr(), name)) {
    std::string msg = std::string("expected a PyCapsule named '") + name + "' (from " +
                      producer_method + "), got " +
                      nb::cast<std::string>(nb::str(obj.type()));
    throw nb::type_error(msg.c_str());
  }
  return PyCapsule_GetPointer(obj.ptr(), name);
}

void ReleaseStreamCapsule(PyObject* capsule) noexcept {
  auto* stream = static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule, kStreamCapsule));
  if (stream == nullptr) {
    PyErr_Clear();
    return;
  }
  if (stream->release != nullptr) stream->release(stream);
  std::free(stream);
}

void ReleaseSchemaCapsule(PyObject* capsule) noexcept {
  auto* schema = static_cast<ArrowSchema*>(PyCapsule_GetPointer(capsule, kSchemaCapsule));
  if (schema == nullptr) {
    PyErr_Clear();
    return;
  }
  if (schema->release != nullptr) schema->release(schema);
  std::free(schema);
}

/// Wraps a heap ArrowSchema (taking ownership) in a capsule.
nb::capsule SchemaCapsule(ArrowSchema* c_schema) {
  PyObject* cap = PyCapsule_New(c_schema, kSchemaCapsule, ReleaseSchemaCapsule);
  if (cap == nullptr) {
    c_schema->release(c_schema);
    std::free(c_schema);
    throw nb::python_error();
  }
  return nb::steal<nb::capsule>(cap);
}

ArrowSchema* NewCSchema() {
  auto* c_schema = static_cast<ArrowSchema*>(std::malloc(sizeof(ArrowSchema)));
  if (c_schema == nullptr) throw std::bad_alloc();
  c_schema->release = nullptr;
  return c_schema;
}

}  // namespace

std::shared_ptr<arrow::RecordBatchReader> ImportStreamCapsule(nb::handle capsule) {
  auto* stream = static_cast<ArrowArrayStream*>(
      CapsulePointer(capsule, kStreamCapsule, "__arrow_c_stream__()"));
  if (stream->release == nullptr) {
    throw nb::value_error("this Arrow stream capsule was already consumed");
  }
  // ImportRecordBatchReader moves the stream out and marks the capsule's struct released.
  return ValueOrRaise(arrow::ImportRecordBatchReader(stream));
}

nb::capsule ExportTableCapsule(std::shared_ptr<arrow::Table> table) {
  auto reader = std::make_shared<arrow::TableBatchReader>(table);
  auto* stream = static_cast<ArrowArrayStream*>(std::malloc(sizeof(ArrowArrayStream)));
  if (stream == nullptr) throw std::bad_alloc();
  stream->release = nullptr;
  arrow::Status st = arrow::ExportRecordBatchReader(std::move(reader), stream);
  if (!st.ok()) {
    std::free(stream);
    RaiseStatus(st);
  }
  PyObject* cap = PyCapsule_New(stream, kStreamCapsule, ReleaseStreamCapsule);
  if (cap == nullptr) {
    stream->release(stream);
    std::free(stream);
    throw nb::python_error();
  }
  return nb::steal<nb::capsule>(cap);
}

std::shared_ptr<arrow::Schema> ImportSchemaCapsule(nb::handle capsule) {
  auto* c_schema = static_cast<ArrowSchema*>(
      CapsulePointer(capsule, kSchemaCapsule, "__arrow_c_schema__()"));
  if (c_schema->release == nullptr) {
    throw nb::value_error("this Arrow schema capsule was already consumed");
  }
  // Like the stream: ImportSchema moves the struct out and marks the capsule's copy released.
  return ValueOrRaise(arrow::ImportSchema(c_schema));
}

nb::capsule ExportSchemaCapsule(const arrow::Schema& schema) {
  ArrowSchema* c_schema = NewCSchema();
  arrow::Status st = arrow::ExportSchema(schema, c_schema);
  if (!st.ok()) {
    std::free(c_schema);
    RaiseStatus(st);
  }
  return SchemaCapsule(c_schema);
}

nb::capsule ExportFieldCapsule(const arrow::Field& field) {
  ArrowSchema* c_schema = NewCSchema();
  arrow::Status st = arrow::ExportField(field, c_schema);
  if (!st.ok()) {
    std::free(c_schema);
    RaiseStatus(st);
  }
  return SchemaCapsule(c_schema);
}

void BindArrowStream(nb::module_& m) {
  m.def(
      "stream_roundtrip",
      [](nb::handle capsule) {
        std::shared_ptr<arrow::RecordBatchReader> reader = ImportStreamCapsule(capsule);
        arrow::Result<std::shared_ptr<arrow::Table>> table;
        {
          nb::gil_scoped_release release;
          table = reader->ToTable();
        }
        return ExportTableCapsule(ValueOrRaise(std::move(table)));
      },
      nb::arg("stream"),
      "Imports an Arrow C stream capsule into the core, collects it into a C++ table and exports "
      "it back as a new stream capsule. Zero-copy: the returned batches share the input's "
      "buffers. Used to check the data path between Python and the core.");
  m.def(
      "schema_roundtrip",
      [](nb::handle capsule) { return ExportSchemaCapsule(*ImportSchemaCapsule(capsule)); },
      nb::arg("schema"),
      "Imports an Arrow C schema capsule into the core and exports it back.");
}

}  // namespace lakeshore::python
