// Compaction of a merge-on-read table, as Hudi 1.x does it: a `compaction` instant whose
// requested file holds a HoodieCompactionPlan (the slices to merge), executed by merging each
// slice's base file with its log files into a new base file at the compaction's instant time,
// and completed as a `commit` (operationType COMPACT). The new base files start new slices;
// logs that complete after the compaction was planned join those slices (completion-time file
// slicing), so writers never wait for a compaction, and it never conflicts with them.
#pragma once

#include "actions/table_context.h"
#include "lakeshore/table/table.h"

namespace lakeshore {

/// Compacts `ctx`'s table (Table::Compact). A pending compaction (one a crashed or
/// schedule-only run left) is executed first, from its plan: its previous attempt's files
/// (named by its markers) are deleted and the work is redone. Otherwise a plan is made under
/// the table lock from the latest completed view: the latest slice of every file group that
/// has log files, when the trigger holds (CompactionOptions); groups a pending clustering will
/// replace are left out. Failed writes are rolled back first, as a writer does.
///
/// Execution runs without the lock and in parallel over the slices (one engine task each:
/// reads the base and log files once, writes one base file); the completion re-checks the
/// timeline under the lock. Crash-safe at every step: a crash leaves the compaction pending
/// and unseen by readers, and the next Compact finishes it. Never rolled back by writers.
/// kInvalid for a copy-on-write table.
Result<CompactionResult> CompactTable(TableContext& ctx, const CompactionOptions& options);

}  // namespace lakeshore
