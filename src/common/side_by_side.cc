#include "common/side_by_side.h"

#include <system_error>
#include <thread>
#include <vector>

namespace lakeshore {

void RunSideBySide(size_t n, const std::function<void(size_t)>& task) {
  if (n == 0) return;
  std::vector<std::thread> others;
  size_t inline_from = n;
  for (size_t i = 1; i < n; ++i) {
    try {
      others.emplace_back(task, i);
    } catch (const std::system_error&) {  // no thread to be had: the rest run here
      inline_from = i;
      break;
    }
  }
  task(0);
  for (size_t i = inline_from; i < n; ++i) task(i);
  for (auto& t : others) t.join();  // joined on every path: the tasks read the caller's state
}

}  // namespace lakeshore
