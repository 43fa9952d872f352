// Internal: Hudi's index definitions (`.hoodie/.index_defs/index.json`, Hudi 1.x): which
// metadata-table indexes a table has, on which fields, in which layout version.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "lakeshore/status.h"
#include "lakeshore/storage/storage.h"
#include "table/hoodie_table_config.h"

namespace lakeshore {

/// The hoodie.properties key naming the index definitions file (relative to the table root).
inline constexpr const char* kIndexDefinitionsPathKey = "hoodie.table.index.defs.path";

/// One entry of `indexDefinitions` (HoodieIndexDefinition).
struct IndexDefinition {
  std::string name;                            ///< the metadata partition, e.g. secondary_index_by_city
  std::string type;                            ///< record_index, column_stats, secondary_index, ...
  std::string function;                        ///< "identity", "column_stats", ...
  std::vector<std::string> source_fields;      ///< the indexed columns (nested: dotted paths)
  std::map<std::string, std::string> options;  ///< indexOptions
  std::string version;                         ///< "V1", "V2" (absent: "V1")

  /// True for a secondary index whose entries are hashed to file groups by their secondary key
  /// alone (version V2 and later; V1 hashed the whole entry key).
  bool HashesBySecondaryKey() const { return version != "V1"; }
};

/// Parses index.json (`{"indexDefinitions": {name: definition, ...}}`). Not JSON, or a field of
/// the wrong type → kCorruptMetadata naming `source`. Unknown fields are ignored.
Result<std::map<std::string, IndexDefinition>> ParseIndexDefinitions(std::string_view json, const std::string& source);

/// Where a table's index definitions live: the file hoodie.table.index.defs.path names, else
/// `.hoodie/.index_defs/index.json` (`config` may be null: the default).
std::string IndexDefinitionsPath(const HoodieTableConfig* config);

/// The table's index definitions, from `path` (hoodie.table.index.defs.path; empty: the default
/// location); none when the file does not exist. Cost: one read.
Result<std::map<std::string, IndexDefinition>> LoadIndexDefinitions(Storage& table, const std::string& path = "");

/// True when the table defines a secondary index (built or not: a replace operation drops its
/// partition and the next write rebuilds it). Cost: none when hoodie.properties names no
/// definitions file (Hudi and Lakeshore name it whenever they write one), else one read.
Result<bool> DefinesSecondaryIndex(Storage& table, const HoodieTableConfig& config);

}  // namespace lakeshore
