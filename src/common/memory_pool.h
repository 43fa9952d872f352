// Internal: which Arrow memory pool a piece of work allocates from.
#pragma once

#include <arrow/memory_pool.h>

namespace lakeshore {

/// The pool for reading table metadata (Delta checkpoints, inventories): many small buffers
/// built on several threads and freed when the read ends. It is the system allocator, not
/// Arrow's default. The default (mimalloc in the pyarrow wheel) backs its fresh arenas with
/// transparent huge pages, so the first touch of each new 2 MiB page makes the kernel zero all
/// of it; a short read of small, scattered buffers on fresh memory spends most of its time there
/// (a vacuum's 3.4 MB checkpoint read on a new table copy: 45 ms, 25 of them zeroing pages,
/// against 20 ms here). Bulk data (base files written and read) keeps the default pool, where
/// huge pages pay off. Never null; lives as long as the process.
arrow::MemoryPool* MetadataMemoryPool();

}  // namespace lakeshore
