// Internal: which progress callbacks the current work runs inside, carried into the engine's
// tasks, so that an operation started from inside a callback of its own table's running
// operation is refused instead of waiting for ever for that operation's lock.
//
// A thread-id mark is not enough: table A's callback (on the driver) may write table B, whose
// callback runs on an engine worker and writes A; that worker is inside A's callback too.
#pragma once

#include <vector>

namespace lakeshore {

/// The owners (TableContext addresses) whose progress callback this thread runs inside, or,
/// for an engine task, the thread that started it ran inside.
class CallbackScope {
 public:
  using Owners = std::vector<const void*>;

  /// This thread's owners. O(1).
  static const Owners& Current();
  /// True if `owner` is among Current(). O(owners).
  static bool Inside(const void* owner);

  /// While alive: `owner` is among this thread's owners (a callback of `owner` runs).
  explicit CallbackScope(const void* owner);
  ~CallbackScope();
  CallbackScope(const CallbackScope&) = delete;
  CallbackScope& operator=(const CallbackScope&) = delete;

  /// While alive: this thread's owners are `owners` (an engine task: its starter's), then
  /// they are restored.
  class Inherit {
   public:
    explicit Inherit(const Owners& owners);
    ~Inherit();
    Inherit(const Inherit&) = delete;
    Inherit& operator=(const Inherit&) = delete;

   private:
    Owners saved_;
  };
};

}  // namespace lakeshore
