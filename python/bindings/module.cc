// Entry point of lakeshore._core. Each area binds itself from its own file; see bindings.h.
#include "bindings.h"

NB_MODULE(_core, m) {
  m.doc() = "Lakeshore's native core (C++). Use the `lakeshore` package, not this module.";
  lakeshore::python::BindErrors(m);
  lakeshore::python::BindRuntime(m);
  lakeshore::python::BindArrowStream(m);
  lakeshore::python::BindBlob(m);
  lakeshore::python::BindTable(m);
  lakeshore::python::BindVacuum(m);
}
