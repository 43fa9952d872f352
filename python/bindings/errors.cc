// Python exception classes for Lakeshore errors, and the Status -> exception conversion.
//
// The hierarchy (all in the `lakeshore` namespace):
//   LakeshoreError(Exception)                      base of everything the core raises
//     InvalidArgumentError(LakeshoreError, ValueError)   arrow Invalid / TypeError / KeyError / ...
//       SchemaMismatchError, PathOutsideTableError, RetentionViolationError
//     StorageError(LakeshoreError, OSError)              arrow IOError
//       CrashInjectedError
//     AlreadyExistsError(LakeshoreError, FileExistsError) arrow AlreadyExists
//     CommitConflictError, CorruptMetadataError
//     LockTimeoutError(LakeshoreError, TimeoutError)
//     UnsupportedFeatureError(LakeshoreError, NotImplementedError)
// Each instance carries `kind` (the ErrorKind name, or None) and `code` (the arrow StatusCode).
#include <string>
#include <vector>

#include "bindings.h"
#include "lakeshore/status.h"

namespace lakeshore::python {
namespace {

/// One exception class per ErrorKind, from the list in include/lakeshore/status.h.
struct KindClass {
  ErrorKind kind;
  const char* name;
  const char* doc;
};

constexpr KindClass kKindClasses[] = {
#define LAKESHORE_ERROR_CLASS(k, name, ctor, code, py, doc) {ErrorKind::k, py, doc},
    LAKESHORE_ERROR_KINDS(LAKESHORE_ERROR_CLASS)
#undef LAKESHORE_ERROR_CLASS
};
constexpr size_t kNumKinds = sizeof(kKindClasses) / sizeof(kKindClasses[0]);

// The classes live as long as the process (one strong reference each, never released: the
// interpreter may be finalized before C++ statics are destroyed).
struct ErrorClasses {
  PyObject* base = nullptr;
  PyObject* invalid = nullptr;
  PyObject* storage = nullptr;
  PyObject* already_exists = nullptr;
  PyObject* by_kind[kNumKinds] = {};
};
ErrorClasses g_classes;

/// Creates `lakeshore.<name>` with `bases`, adds it to `m`, and returns a strong reference.
PyObject* NewExceptionClass(nb::module_& m, const char* name, const char* doc,
                            const std::vector<PyObject*>& bases) {
  nb::object tuple = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(bases.size())));
  for (size_t i = 0; i < bases.size(); ++i) {
    Py_INCREF(bases[i]);
    PyTuple_SET_ITEM(tuple.ptr(), static_cast<Py_ssize_t>(i), bases[i]);
  }
  std::string qualified = std::string("lakeshore.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, tuple.ptr(), nullptr);
  if (cls == nullptr) throw nb::python_error();
  m.attr(name) = nb::borrow(cls);
  return cls;
}

/// The class a kind maps to, built in BindErrors.
PyObject* ParentOfKind(ErrorKind kind, std::vector<PyObject*>* extra_bases) {
  switch (kind) {
    case ErrorKind::kSchemaMismatch:
    case ErrorKind::kPathOutsideTable:
    case ErrorKind::kRetentionViolation:
      return g_classes.invalid;
    case ErrorKind::kCrashInjected:
    case ErrorKind::kTransientStorage:
      return g_classes.storage;
    case ErrorKind::kLockTimeout:
      extra_bases->push_back(PyExc_TimeoutError);
      return g_classes.base;
    case ErrorKind::kUnsupportedFeature:
      extra_bases->push_back(PyExc_NotImplementedError);
      return g_classes.base;
    default:
      return g_classes.base;
  }
}

const KindClass* FindKind(const arrow::Status& status) {
  if (status.detail() == nullptr) return nullptr;
  auto* detail = dynamic_cast<const LakeshoreErrorDetail*>(status.detail().get());
  if (detail == nullptr) return nullptr;
  for (const KindClass& k : kKindClasses) {
    if (k.kind == detail->kind()) return &k;
  }
  return nullptr;
}

PyObject* ClassForCode(arrow::StatusCode code) {
  switch (code) {
    case arrow::StatusCode::Invalid:
    case arrow::StatusCode::TypeError:
    case arrow::StatusCode::KeyError:
    case arrow::StatusCode::IndexError:
    case arrow::StatusCode::CapacityError:
      return g_classes.invalid;
    case arrow::StatusCode::IOError:
      return g_classes.storage;
    case arrow::StatusCode::AlreadyExists:
      return g_classes.already_exists;
    default:
      return g_classes.base;
  }
}

/// Decodes UTF-8, replacing invalid bytes (messages may quote raw file content).
nb::object Utf8(const std::string& s) {
  PyObject* str = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
  if (str == nullptr) throw nb::python_error();
  return nb::steal(str);
}

/// Stable names of the arrow status codes, as exposed in `exc.code`.
constexpr std::pair<const char*, arrow::StatusCode> kCodeNames[] = {
    {"OutOfMemory", arrow::StatusCode::OutOfMemory},
    {"KeyError", arrow::StatusCode::KeyError},
    {"TypeError", arrow::StatusCode::TypeError},
    {"Invalid", arrow::StatusCode::Invalid},
    {"IOError", arrow::StatusCode::IOError},
    {"CapacityError", arrow::StatusCode::CapacityError},
    {"IndexError", arrow::StatusCode::IndexError},
    {"Cancelled", arrow::StatusCode::Cancelled},
    {"UnknownError", arrow::StatusCode::UnknownError},
    {"NotImplemented", arrow::StatusCode::NotImplemented},
    {"SerializationError", arrow::StatusCode::SerializationError},
    {"AlreadyExists", arrow::StatusCode::AlreadyExists},
};

const char* CodeName(arrow::StatusCode code) {
  for (const auto& [name, c] : kCodeNames) {
    if (c == code) return name;
  }
  return "UnknownError";
}

/// Builds a Status from a kind name ("commit_conflict") or a StatusCode name ("Invalid").
arrow::Status StatusFromName(const std::string& name, const std::string& message) {
  for (const KindClass& k : kKindClasses) {
    if (name == ErrorKindName(k.kind)) return MakeError(k.kind, message);
  }
  for (const auto& [code_name, code] : kCodeNames) {
    if (name == code_name) return arrow::Status(code, message);
  }
  return arrow::Status::Invalid("unknown error kind or status code '", name, "'");
}

}  // namespace

[[noreturn]] void RaiseStatus(const arrow::Status& status) {
  const KindClass* kind = FindKind(status);
  PyObject* cls = nullptr;
  if (kind != nullptr) cls = g_classes.by_kind[kind - kKindClasses];
  if (cls == nullptr) cls = ClassForCode(status.code());
  nb::object message = Utf8(status.message());
  nb::object exc = nb::steal(PyObject_CallOneArg(cls, message.ptr()));
  if (!exc.is_valid()) throw nb::python_error();
  exc.attr("kind") = kind != nullptr ? nb::object(nb::str(ErrorKindName(kind->kind))) : nb::none();
  exc.attr("code") = nb::str(CodeName(status.code()));
  PyErr_SetObject(cls, exc.ptr());
  throw nb::python_error();
}

void BindErrors(nb::module_& m) {
  g_classes.base = NewExceptionClass(
      m, "LakeshoreError",
      "Base class of every error the Lakeshore core raises. `str(e)` is the C++ message; "
      "`e.kind` is the error kind name (or None) and `e.code` the Arrow status code.",
      {PyExc_Exception});
  g_classes.invalid = NewExceptionClass(
      m, "InvalidArgumentError", "Bad input: an argument, a value or a batch Lakeshore refuses.",
      {g_classes.base, PyExc_ValueError});
  g_classes.storage = NewExceptionClass(
      m, "StorageError", "Reading or writing the table's storage failed.",
      {g_classes.base, PyExc_OSError});
  g_classes.already_exists = NewExceptionClass(
      m, "AlreadyExistsError", "Something (a table, a file) is already there.",
      {g_classes.base, PyExc_FileExistsError});
  for (size_t i = 0; i < kNumKinds; ++i) {
    std::vector<PyObject*> bases;
    PyObject* parent = ParentOfKind(kKindClasses[i].kind, &bases);
    bases.insert(bases.begin(), parent);
    g_classes.by_kind[i] =
        NewExceptionClass(m, kKindClasses[i].name, kKindClasses[i].doc, bases);
  }

  m.def(
      "error_kinds",
      []() {
        nb::dict out;
        for (size_t i = 0; i < kNumKinds; ++i) {
          out[ErrorKindName(kKindClasses[i].kind)] = nb::borrow(g_classes.by_kind[i]);
        }
        return out;
      },
      "Maps every ErrorKind name (\"commit_conflict\", ...) to its exception class.");
  m.def(
      "raise_error",
      [](const std::string& name, const std::string& message) {
        RaiseStatus(StatusFromName(name, message));
      },
      nb::arg("name"), nb::arg("message"),
      "Raises the exception the core raises for an error of kind `name` (an ErrorKind name) or "
      "of arrow status code `name` (\"Invalid\", \"IOError\", ...), with `message`. For tests "
      "and tools that check the error mapping.");
}

}  // namespace lakeshore::python
