// Internal: which Arrow memory pool a piece of work allocates from.
#pragma once

#include <arrow/memory_pool.h>

namespace lakeshore {

/// The pool reads allocate from: table metadata (Delta checkpoints, inventories) and base
/// files alike, many buffers built on several threads and freed soon after. It is the system
/// allocator, not Arrow's default. The default (mimalloc in the pyarrow wheel) backs its fresh
/// arenas with transparent huge pages, so the first touch of each new 2 MiB page makes the
/// kernel zero all of it; a read on fresh memory spent most of its time there:
/// - a vacuum's 3.4 MB checkpoint read on a new table copy: 45 ms, 25 of them zeroing pages,
///   against 20 ms here;
/// - a full read of 2M rows (with the meta columns) just after other work freed its memory:
///   0.83 s, a third of it zeroing pages, against 0.50 s here (steady state: alike).
/// Writes keep the default pool. Never null; lives as long as the process.
arrow::MemoryPool* ReadMemoryPool();

}  // namespace lakeshore
