// Archival of the metadata table's own timeline (`.hoodie/metadata/.hoodie/timeline`), so that
// its instant files do not accumulate: its completed deltacommits and compactions move into its
// LSM history (`.hoodie/metadata/.hoodie/timeline/history`), written as the data table's archive
// is (services/archive/timeline_archiver.h), as Hudi's metadata writer archives it after its
// compactions.
//
// What may move, beyond the data table's rule (more than hoodie.keep.max.commits completed write
// instants that may move, the oldest of them beyond hoodie.keep.min.commits, none at or after a
// pending metadata instant):
//   - only instants no file of the metadata table's partitions belongs to (their listings hold
//     the files of completed instants; a pending one bounds the choice). Readers (ours,
//     hudi-rs) count a metadata file only while its instant is on the active timeline. A
//     compaction that deletes the slices it replaced frees the deltacommits that wrote them;
//     a compaction whose base files are still read stays, and so do the instants of a file
//     group's logs not yet compacted, while the instants around them move (Hudi's archiver
//     moves a contiguous prefix; one file group without writes would then hold every later
//     instant back);
//   - never an index-init instant ("00000000000000<NNN>"): the builds' base files carry those
//     times, the next build numbers its instant after the active ones, and they keep the
//     active timeline starting before every file, so no stray file of a removed instant is
//     ever older than the timeline's start (which Hudi's readers take as archived, committed);
//   - only instants older than the data timeline's earliest write, pending instant or
//     savepoint, so that the metadata deltacommit of every data instant a rollback or restore
//     can still undo stays active.
// Crash-safe as the data table's archival: the manifest is the commit point, and the next run
// finishes deleting active files of archived instants.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "actions/table_context.h"
#include "io/metadata_files.h"
#include "lakeshore/storage/storage.h"
#include "lakeshore/table/table.h"
#include "timeline/timeline.h"

namespace lakeshore {

class LockGuard;

/// One partition's listing of the metadata table (the caller's, when it has listed already).
using MetadataSlicesOf = std::function<Result<const MetadataPartitionSlices*>(const std::string& partition)>;

/// Archives what may move of `mdt_timeline` (listed under `guard`) on `mdt` (storage rooted at
/// `.hoodie/metadata`), by the rules above; `data_timeline` is the data timeline listed under
/// `guard`, `partitions` the metadata partitions whose files hold instants back, `slices_of`
/// their listings. `keep` gives hoodie.keep.min/max.commits (unset: the data table's options, as
/// Hudi's metadata writer takes the data table's). Nothing to move by the counts alone is a
/// result without instants and lists nothing; otherwise `slices_of` each partition, and the
/// moved instants' timeline files. Errors: invalid keep values (Invalid), a damaged archive
/// (kCorruptMetadata), storage errors.
Result<ArchiveResult> ArchiveMetadataTimeline(TableContext& ctx, Storage& mdt, const Timeline& mdt_timeline,
                                              const Timeline& data_timeline, const std::vector<std::string>& partitions,
                                              const MetadataSlicesOf& slices_of, const ArchiveOptions& keep,
                                              const LockGuard& guard);

/// The instants of `mdt_timeline` an archival would move if no file held them back: by the keep
/// counts of `keep`, never an index-init instant, nothing at or after the data bound of
/// `data_timeline` (rules above). Empty when nothing is due; lists nothing. A metadata
/// compaction rewrites the file groups whose logs carry one of them, so that no group holds the
/// archival back for longer than one compaction (Hudi's metadata compaction rewrites every group).
/// Errors: invalid keep values (Invalid).
Result<std::set<std::string>> MetadataInstantsDueForArchival(const TableContext& ctx, const Timeline& mdt_timeline,
                                                             const Timeline& data_timeline,
                                                             const ArchiveOptions& keep);

/// The same for the table of `ctx`, under its own hold of the table lock (Table::Archive runs it
/// after archiving the data timeline, which moves the data bound), listing each built
/// partition once. A table without a metadata table: an empty result, after one read of
/// hoodie.properties.
Result<ArchiveResult> ArchiveMetadataTimeline(TableContext& ctx, const ArchiveOptions& keep);

}  // namespace lakeshore
