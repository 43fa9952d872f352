#include "timeline/markers.h"

#include <algorithm>

#include "table/layout.h"

namespace lakeshore {
namespace {

constexpr const char* kTypeFile = "MARKERS.type";
constexpr const char* kTimelineServerBased = "TIMELINE_SERVER_BASED";
constexpr std::string_view kMarkerSuffix = ".marker.";

const char* TypeName(MarkerType type) {
  switch (type) {
    case MarkerType::kCreate: return "CREATE";
    case MarkerType::kMerge: return "MERGE";
    case MarkerType::kAppend: return "APPEND";
  }
  return "CREATE";
}

/// `<path>.marker.<TYPE>` → the marker; nullopt when the name is not a marker.
std::optional<Marker> ParseMarker(std::string_view text) {
  const size_t at = text.rfind(kMarkerSuffix);
  if (at == std::string_view::npos || at == 0) return std::nullopt;
  const std::string_view type = text.substr(at + kMarkerSuffix.size());
  Marker m;
  m.path = std::string(text.substr(0, at));
  if (type == "CREATE") {
    m.type = MarkerType::kCreate;
  } else if (type == "MERGE") {
    m.type = MarkerType::kMerge;
  } else if (type == "APPEND") {
    m.type = MarkerType::kAppend;
  } else {
    return std::nullopt;
  }
  return m;
}

Status CheckInside(const Marker& m, const std::string& source) {
  auto normal = NormalizeRelativePath(m.path);
  if (!normal.ok() || *normal != m.path) {
    return PathOutsideTable("marker file " + source + " names '" + m.path + "', which is not a plain path inside the table");
  }
  return Status::OK();
}

}  // namespace

std::string MarkerFolder(const std::string& instant_time) { return JoinPath(layout::kTempDir, instant_time); }

Status WriteMarkers(Storage& storage, const std::string& instant_time, const std::vector<Marker>& markers) {
  const std::string folder = MarkerFolder(instant_time);
  std::string lines;
  for (const auto& m : markers) lines += m.path + std::string(kMarkerSuffix) + TypeName(m.type) + "\n";
  ARROW_RETURN_NOT_OK(storage.WriteString(JoinPath(folder, kTypeFile), kTimelineServerBased));
  return storage.WriteString(JoinPath(folder, "MARKERS0"), lines);
}

Result<std::vector<Marker>> ReadMarkers(Storage& storage, const std::string& instant_time) {
  const std::string folder = MarkerFolder(instant_time);
  std::vector<Marker> out;
  ARROW_ASSIGN_OR_RAISE(bool server_based, storage.Exists(JoinPath(folder, kTypeFile)));
  if (server_based) {
    ARROW_ASSIGN_OR_RAISE(auto entries, storage.List(folder, /*recursive=*/false));
    std::sort(entries.begin(), entries.end(), [](const FileEntry& a, const FileEntry& b) { return a.path < b.path; });
    for (const auto& e : entries) {
      const std::string_view name = BaseName(e.path);
      if (e.is_dir || name.rfind("MARKERS", 0) != 0 || name == kTypeFile) continue;
      auto read = storage.ReadString(e.path);
      if (!read.ok()) {
        // Deleted since the listing (the instant was committed or rolled back): no markers.
        ARROW_ASSIGN_OR_RAISE(bool exists, storage.Exists(e.path));
        if (exists) return read.status();
        continue;
      }
      const std::string& text = *read;
      const std::string source = storage.root_uri() + "/" + e.path;
      size_t start = 0;
      while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        if (auto m = ParseMarker(std::string_view(text).substr(start, end - start))) {
          ARROW_RETURN_NOT_OK(CheckInside(*m, source));
          out.push_back(std::move(*m));
        }
        start = end + 1;
      }
    }
    return out;
  }
  ARROW_ASSIGN_OR_RAISE(auto entries, storage.List(folder, /*recursive=*/true));
  for (const auto& e : entries) {
    if (e.is_dir) continue;
    const std::string relative = e.path.substr(std::min(e.path.size(), folder.size() + 1));
    if (auto m = ParseMarker(relative)) {
      ARROW_RETURN_NOT_OK(CheckInside(*m, storage.root_uri() + "/" + e.path));
      out.push_back(std::move(*m));
    }
  }
  return out;
}

Status DeleteMarkers(Storage& storage, const std::string& instant_time) {
  const std::string folder = MarkerFolder(instant_time);
  ARROW_ASSIGN_OR_RAISE(auto entries, storage.List(folder, /*recursive=*/true));
  std::vector<std::string> files;
  std::vector<std::string> dirs;
  for (const auto& e : entries) (e.is_dir ? dirs : files).push_back(e.path);
  ARROW_RETURN_NOT_OK(storage.DeleteFiles(files).status());
  std::sort(dirs.begin(), dirs.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  dirs.push_back(folder);
  for (const auto& d : dirs) (void)storage.DeleteDirIfEmpty(d);
  return Status::OK();
}

}  // namespace lakeshore
