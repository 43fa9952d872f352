// Internal: the secondary indexes Lakeshore builds and keeps current in Hudi's metadata table
// (`secondary_index_<name>`, defined in `.hoodie/.index_defs/index.json`).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "actions/table_context.h"
#include "table/index_definitions.h"
#include "timeline/commit_metadata.h"
#include "timeline/timeline.h"

namespace lakeshore {

/// Entries of a metadata partition: (key, encoded value).
using MetadataEntries = std::vector<std::pair<std::string, std::string>>;

/// The table's index definitions (the file hoodie.table.index.defs.path names, or the default).
Result<std::map<std::string, IndexDefinition>> LoadTableIndexDefinitions(const TableContext& ctx);

/// True for a metadata partition name of a secondary index.
bool IsSecondaryIndexPartition(const std::string& partition);

/// OK when `partition` may name a new secondary index: secondary_index_ then 1 to 128 letters,
/// digits and '_' (the name is a folder of the metadata table and a key of Hudi's index
/// definitions: "../x" or an overlong name must be refused before anything is written).
/// Else kInvalid naming it. Indexes another writer named otherwise are still read.
Status CheckNewSecondaryIndexName(const std::string& partition);

/// A secondary index this build can keep current: an identity index on one field (a column, or
/// a dotted path into struct columns, as a blob column's `reference.external_path`) of a type
/// whose stored text SecondaryKeyText renders.
struct SecondaryIndexSpec {
  std::string partition;  ///< secondary_index_<name>
  std::string column;  ///< the source field: a column or a dotted path (blob.reference.external_path)
  bool by_secondary_key = true;  ///< index version V2 (entries hashed by their secondary key)
};

/// The spec of `partition` from the table's index definitions, or nullopt (with the reason in
/// `why`) when this build cannot maintain it (no definition, another function, several fields,
/// a field not in the schema, a type without a text form).
std::optional<SecondaryIndexSpec> MaintainableSecondaryIndex(const TableContext& ctx,
                                                             const std::map<std::string, IndexDefinition>& defs,
                                                             const std::string& partition, std::string* why);

/// Every entry of the index over the latest snapshot (one per record). With `refuse_twins`, a
/// key stored in two file groups is kInvalid naming both (an entry cannot say which copy holds
/// its value, so a later change of one copy would drop the other's): a build a user asks for.
/// Cost: a read of the key and indexed columns of the table (and the partition and file-name
/// columns with `refuse_twins`).
Result<MetadataEntries> SecondaryIndexBuildEntries(TableContext& ctx, const SecondaryIndexSpec& spec,
                                                   bool refuse_twins);

/// What write `instant_time` (not completed yet; `written` its commit metadata) changes in the
/// index: for the file groups it touched, the (secondary key, record key) pairs of their latest
/// slices before it and after it; pairs gone are entries marked deleted, new pairs entries.
/// Cost: the key and indexed columns of the touched groups' slices, twice; not the table.
/// One list of entries per spec, in the order of `specs`.
Result<std::vector<MetadataEntries>> SecondaryIndexWriteEntries(TableContext& ctx,
                                                                const std::vector<SecondaryIndexSpec>& specs,
                                                                const std::string& instant_time,
                                                                const CommitMetadata& written,
                                                                const Timeline& data_timeline);

/// Adds (or replaces) the definition of secondary index `partition` on `column` in the table's
/// index definitions (version V2, function identity), and points hoodie.table.index.defs.path
/// at the file when hoodie.properties does not name it yet. Under the table lock.
Status WriteSecondaryIndexDefinition(TableContext& ctx, const std::string& partition, const std::string& column);

/// Removes the definition of `partition` from the index definitions (nothing when absent).
Status RemoveIndexDefinition(TableContext& ctx, const std::string& partition);

}  // namespace lakeshore
