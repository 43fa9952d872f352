#include "common/memory_pool.h"

namespace lakeshore {

arrow::MemoryPool* ReadMemoryPool() { return arrow::system_memory_pool(); }

}  // namespace lakeshore
