// Internal: write markers, Hudi's record of the data files an in-flight write creates, in
// `.hoodie/.temp/<instant>/`. A rollback deletes what they name; a vacuum keeps it.
#pragma once

#include <string>
#include <vector>

#include "lakeshore/status.h"
#include "lakeshore/storage/storage.h"

namespace lakeshore {

/// How a marked file came to be (Hudi's IOType).
enum class MarkerType { kCreate, kMerge, kAppend };

/// One marked data file.
struct Marker {
  std::string path;  ///< the data file, relative to the table root
  MarkerType type = MarkerType::kCreate;
};

/// The marker folder of `instant_time`.
std::string MarkerFolder(const std::string& instant_time);

/// Writes the markers of `instant_time` as Hudi's timeline-server markers do: `MARKERS.type`
/// holding TIMELINE_SERVER_BASED and `MARKERS0` with one `<path>.marker.<TYPE>` line per file.
/// Two writes (the type file first). Hudi's rollback and ours read them back.
Status WriteMarkers(Storage& storage, const std::string& instant_time, const std::vector<Marker>& markers);

/// The files the markers of `instant_time` name: timeline-server markers (MARKERS0, MARKERS1,
/// ...) when MARKERS.type exists, else Hudi's direct markers (`<partition>/<file>.marker.<TYPE>`
/// files). No marker folder → no markers. A marked path that is not a plain relative path →
/// kPathOutsideTable naming the marker file. Cost: one listing of the folder, one read per
/// markers file.
Result<std::vector<Marker>> ReadMarkers(Storage& storage, const std::string& instant_time);

/// Deletes the marker folder of `instant_time` (after a commit or a rollback).
Status DeleteMarkers(Storage& storage, const std::string& instant_time);

}  // namespace lakeshore
