// Where things live under a table root (see DESIGN.md, "Concepts and layout on storage").
#pragma once

namespace lakeshore::layout {

inline constexpr const char* kMetaDir = ".lakeshore";
inline constexpr const char* kTableConfig = ".lakeshore/table.json";
inline constexpr const char* kTimelineDir = ".lakeshore/timeline";
inline constexpr const char* kArchiveDir = ".lakeshore/timeline/archive";
inline constexpr const char* kAuxDir = ".lakeshore/aux";
inline constexpr const char* kHeartbeatDir = ".lakeshore/aux/heartbeats";
inline constexpr const char* kLockDir = ".lakeshore/aux/lock";
inline constexpr const char* kMetadataDir = ".lakeshore/metadata";

}  // namespace lakeshore::layout
