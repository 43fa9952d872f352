// lakeshore._core.vacuum: VACUUM of a Delta (or, later, Lakeshore) table.
#include <optional>

#include <nanobind/stl/optional.h>

#include "bindings.h"
#include "progress.h"
#include "lakeshore/vacuum.h"

namespace lakeshore::python {
namespace {

/// The report as a dict with the fields of VisitVacuumReport (the one definition of the JSON a
/// CLI prints and the dict Python returns), built directly: a report may list many thousands
/// of candidates. A path that is not UTF-8 is decoded with surrogateescape, as os.listdir does.
nb::dict ReportDict(const VacuumReport& r) {
  auto text = [](const std::string& s) {
    return nb::steal<nb::object>(PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape"));
  };
  nb::dict d;
  VisitVacuumReport(r, [&](const char* name, const auto& value) {
    using V = std::decay_t<decltype(value)>;
    if constexpr (std::is_same_v<V, std::vector<VacuumCandidate>>) {
      // Straight through the C API (a presized list, interned keys, no accessor objects): for
      // a dry run of many thousand candidates this was a tenth of the call.
      auto list = nb::steal<nb::list>(PyList_New(static_cast<Py_ssize_t>(value.size())));
      if (!list.is_valid()) throw nb::python_error();
      auto path_key = nb::steal<nb::object>(PyUnicode_InternFromString("path"));
      auto size_key = nb::steal<nb::object>(PyUnicode_InternFromString("size"));
      if (!path_key.is_valid() || !size_key.is_valid()) throw nb::python_error();
      Py_ssize_t i = 0;
      for (const auto& c : value) {
        auto item = nb::steal<nb::object>(PyDict_New());
        auto path = text(c.path);
        auto size = nb::steal<nb::object>(PyLong_FromLongLong(c.size));
        if (!item.is_valid() || !path.is_valid() || !size.is_valid() ||
            PyDict_SetItem(item.ptr(), path_key.ptr(), path.ptr()) != 0 ||
            PyDict_SetItem(item.ptr(), size_key.ptr(), size.ptr()) != 0) {
          throw nb::python_error();
        }
        PyList_SET_ITEM(list.ptr(), i++, item.release().ptr());  // steals the reference
      }
      d[name] = list;
    } else if constexpr (std::is_same_v<V, std::vector<std::string>>) {
      nb::list list;
      for (const auto& s : value) list.append(text(s));
      d[name] = list;
    } else if constexpr (std::is_same_v<V, std::string>) {
      d[name] = text(value);
    } else {
      d[name] = value;
    }
  });
  return d;
}

/// Runs the vacuum without the GIL. `progress(phase, done, total, unit)` is called from the
/// core's threads with the GIL re-acquired; an exception in it (Ctrl-C is delivered there too)
/// stops the vacuum before its next batch of deletes (VacuumOptions::stop) and is raised once it
/// returns, noting how far it got.
nb::dict Vacuum(const std::string& uri, std::optional<double> retain_hours, bool enforce_retention,
                bool dry_run, const std::string& mode, bool optimistic,
                std::optional<std::string> inventory, const std::string& format,
                std::optional<double> force_full_after_hours, nb::object progress) {
  VacuumOptions options;
  options.format = ValueOrRaise(ParseTableFormat(format));
  options.mode = ValueOrRaise(ParseVacuumMode(mode));
  options.retain_hours = retain_hours;
  options.enforce_retention = enforce_retention;
  options.dry_run = dry_run;
  options.optimistic = optimistic;
  options.force_full_after_hours = force_full_after_hours;
  if (inventory) options.inventory = *inventory;
  PythonProgress reporter(std::move(progress));
  options.progress = reporter.Callback<VacuumProgress>(
      [](const VacuumProgress& p) { return std::string(p.phase == "listing" ? "folders" : "files"); });
  options.stop = reporter.stop();
  arrow::Result<VacuumReport> result;
  {
    nb::gil_scoped_release release;
    result = lakeshore::Vacuum(uri, options);
  }
  const VacuumReport report = reporter.Finish(
      std::move(result), "lakeshore: the vacuum had finished its deletes " + reporter.HowRaised(),
      "lakeshore: the vacuum stopped " + reporter.HowRaised() +
          "; whole batches of its deletes may be done, and the next vacuum finds the rest");
  return ReportDict(report);
}

}  // namespace

void BindVacuum(nb::module_& m) {
  m.def("vacuum", &Vacuum, nb::arg("uri"), nb::arg("retain_hours").none(),
        nb::arg("enforce_retention"), nb::arg("dry_run"), nb::arg("mode"), nb::arg("optimistic"),
        nb::arg("inventory").none(), nb::arg("format"), nb::arg("force_full_after_hours").none(),
        nb::arg("progress").none(),
        "Vacuums the table at `uri`; returns the report as a dict. See lakeshore.vacuum.");
}

}  // namespace lakeshore::python
