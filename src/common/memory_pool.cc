#include "common/memory_pool.h"

namespace lakeshore {

arrow::MemoryPool* MetadataMemoryPool() { return arrow::system_memory_pool(); }

}  // namespace lakeshore
