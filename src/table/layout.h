// Where things live under a Hudi table root (see DESIGN.md, "Concepts and layout on storage"),
// for the tables Lakeshore writes (table version 9, timeline layout 2). Tables of other
// versions name their timeline folders in hoodie.properties (HoodieTableConfig).
#pragma once

namespace lakeshore::layout {

inline constexpr const char* kMetaDir = ".hoodie";
inline constexpr const char* kPropertiesFile = ".hoodie/hoodie.properties";
inline constexpr const char* kTimelineDir = ".hoodie/timeline";
inline constexpr const char* kArchiveDir = ".hoodie/timeline/history";
/// Markers of in-flight writes: `.hoodie/.temp/<instant>/` (Hudi's timeline-server marker files).
inline constexpr const char* kTempDir = ".hoodie/.temp";
/// Writer heartbeats: `.hoodie/.heartbeat/<instant>`, as Hudi lays them out.
inline constexpr const char* kHeartbeatDir = ".hoodie/.heartbeat";
inline constexpr const char* kAuxDir = ".hoodie/.aux";
/// Lakeshore's own coordination files, in a folder Hudi never reads.
inline constexpr const char* kLakeshoreDir = ".hoodie/.aux/lakeshore";
/// The table lock's lease objects (see write/table_lock.h for why not Hudi's lock file).
inline constexpr const char* kLockDir = ".hoodie/.aux/lakeshore/lock";
/// Commit-or-rollback decisions of pending writes, one object per instant (write/commit_decision.h).
inline constexpr const char* kDecisionDir = ".hoodie/.aux/lakeshore/decisions";
/// Vacuum's own timeline (its watermarks): Hudi's timeline has no vacuum action.
inline constexpr const char* kVacuumTimelineDir = ".hoodie/.aux/lakeshore/vacuum";
inline constexpr const char* kMetadataDir = ".hoodie/metadata";
/// Index definitions (Hudi 1.x), unless hoodie.table.index.defs.path names another file.
inline constexpr const char* kIndexDefinitionsFile = ".hoodie/.index_defs/index.json";

}  // namespace lakeshore::layout
