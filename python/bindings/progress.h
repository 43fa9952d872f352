// A Python progress callback `progress(phase, done, total, unit)` as the core's progress
// callback and stop token, shared by every binding that runs long work (writes, services,
// vacuum).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>

#include <arrow/util/cancel.h>

#include "bindings.h"

namespace lakeshore::python {

/// The core calls the callback with the GIL released (from its driver or engine threads, never
/// concurrently); it takes the GIL back. An exception in the callback (Ctrl-C is delivered
/// there too) stops the work through `stop()`, which the core polls up to its commit point:
/// Finish then raises that exception with a note saying what became of the work.
class PythonProgress {
 public:
  explicit PythonProgress(nb::object progress) : progress_(std::move(progress)) {}

  /// The core's callback for progress events of type `P` (with `phase`, `done`, `total`);
  /// `unit` names each event's unit. Without a Python callback it still runs the signal
  /// handlers (on the main thread, as Python runs them): a Ctrl-C stops the work as an
  /// exception in a callback would, instead of surfacing after the commit with no word of it.
  template <typename P>
  std::function<void(const P&)> Callback(std::function<std::string(const P&)> unit) {
    return [this, unit = std::move(unit)](const P& p) {
      nb::gil_scoped_acquire gil;
      if (error_.has_value()) return;
      try {
        if (progress_.is_none()) {
          if (PyErr_CheckSignals() != 0) throw nb::python_error();
        } else {
          progress_(p.phase, p.done, p.total, unit(p));
        }
      } catch (nb::python_error& e) {
        error_.emplace(std::move(e));
        stop_.RequestStop(arrow::Status::Cancelled("stopped: the progress callback raised an exception"));
      }
    };
  }

  /// What the core polls: stopped once the callback raised.
  arrow::StopToken stop() { return stop_.token(); }

  /// Raises the callback's exception, noted `completed` when the work returned a value and
  /// `stopped` when it stopped for it; else the work's error; returns the value. Call with the
  /// GIL held.
  template <typename T>
  T Finish(arrow::Result<T> result, const std::string& completed, const std::string& stopped) {
    // A Ctrl-C after the last callback (the work past its commit point) is raised here, with
    // its note, not bare in the caller once this returns.
    if (!error_.has_value() && PyErr_CheckSignals() != 0) error_.emplace();
    if (error_.has_value()) {
      if (!result.ok() && !result.status().IsCancelled()) RaiseStatus(result.status());
      const std::string& note = result.ok() ? completed : stopped;
      if (nb::hasattr(error_->value(), "add_note")) error_->value().attr("add_note")(note);
      error_->restore();
      throw nb::python_error();
    }
    if (!result.ok()) RaiseStatus(result.status());
    return std::move(*result);
  }

  /// Finish for work with a commit point (`what`: "write", "compaction", ...).
  template <typename T>
  T Finish(arrow::Result<T> result, const char* what) {
    const std::string work = std::string("lakeshore: the ") + what;
    return Finish(std::move(result), work + " had passed its commit point " + HowRaised() + ": it completed",
                  work + " stopped before its commit point " + HowRaised() + ": nothing of it is visible");
  }

  /// How the exception reached the work, for its note: raised in the caller's callback, or,
  /// with none given, a signal (Ctrl-C) that interrupted it.
  std::string HowRaised() const {
    return progress_.is_none() ? "when this interrupted it" : "when this was raised in its progress callback";
  }

 private:
  nb::object progress_;
  std::optional<nb::python_error> error_;  // touched only with the GIL held
  arrow::StopSource stop_;
};

}  // namespace lakeshore::python
