#include "services/vacuum/table_listing.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <set>

#include <arrow/array.h>
#include <arrow/array/concatenate.h>
#include <arrow/compute/api.h>
#include <arrow/csv/api.h>
#include <arrow/table.h>
#include <parquet/arrow/reader.h>
#include <parquet/exception.h>

#include "common/arrow_cast.h"
#include "common/memory_pool.h"
#include "delta/paths.h"
#include "table/file_naming.h"

namespace lakeshore::vacuum {

namespace {
bool IsHudiLogFileName(std::string_view name) {
  auto parsed = ParseDataFileName(name);
  return parsed && parsed->is_log;
}

/// A folder is staged only as `.<name>.lakeshore-staged-dir.…` (local_storage's CreateInFreshFolder).
bool IsStagedFolderName(std::string_view name) {
  return name.find(kStagedFolderMarker) != std::string_view::npos && IsStagedWriteName(name);
}
}  // namespace

bool IsInStagedWrite(std::string_view path) {
  size_t start = 0;
  while (true) {
    const size_t end = path.find('/', start);
    const std::string_view name = path.substr(start, end == std::string_view::npos ? end : end - start);
    if (end == std::string_view::npos) return IsStagedWriteName(name);
    if (IsStagedFolderName(name)) return true;
    start = end + 1;
  }
}

bool VisibilityRule::IsHidden(std::string_view path) const {
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    // UniForm's `metadata` folder is reserved only at the top level.
    const std::string_view name = path.substr(start, end - start);
    // A staged file is a path's last segment; a folder is staged only under the folder marker
    // (a user's hidden folder `.backup.lakeshore-staged.1.2.3/` is named as a staged file).
    const bool last = end == path.size();
    const bool staged = staged_writes && (last || IsStagedFolderName(name));
    if (IsHiddenName(name, partition_columns, hide_metadata && start == 0, staged)) {
      const bool log_file = hudi_log_files && end == path.size() && IsHudiLogFileName(name);
      if (!log_file) return true;
    }
    start = end + 1;
  }
  return false;
}

namespace {
/// Calls `root(r)` for each table root `path` marks, as a file of that table's own: a Hudi
/// table's properties (or their backup, all a table holds while Hudi rewrites them) at
/// `<r>/.hoodie/`, or anything at or under `<r>/_delta_log`.
template <typename Fn>
void ForEachMarkedTableRoot(std::string_view p, Fn&& root) {
  static constexpr std::string_view kHudi[] = {"/.hoodie/hoodie.properties", "/.hoodie/hoodie.properties.backup"};
  static constexpr std::string_view kDelta = "/_delta_log";
  for (std::string_view marker : kHudi) {
    if (p.size() > marker.size() && p.ends_with(marker)) root(p.substr(0, p.size() - marker.size()));
  }
  for (size_t at = p.find(kDelta); at != std::string_view::npos; at = p.find(kDelta, at + 1)) {
    const size_t end = at + kDelta.size();
    if (at > 0 && (end == p.size() || p[end] == '/')) {
      root(p.substr(0, at));
      break;
    }
  }
}

bool MarksATable(std::string_view path) {
  bool marks = false;
  ForEachMarkedTableRoot(path, [&](std::string_view) { marks = true; });
  return marks;
}

/// Whether `path` is one of `roots` or lies below one. O(roots): few, one per nested table.
bool InsideAny(std::string_view path, const std::vector<std::string>& roots) {
  for (const auto& r : roots) {
    if (path == r || (path.size() > r.size() && path.starts_with(r) && path[r.size()] == '/')) return true;
  }
  return false;
}
}  // namespace

std::vector<std::string> DropNestedTables(std::vector<FileEntry>* entries) {
  std::vector<std::string> roots;
  for (const auto& e : *entries) {
    ForEachMarkedTableRoot(e.path, [&](std::string_view r) { roots.emplace_back(r); });
  }
  if (roots.empty()) return roots;
  std::sort(roots.begin(), roots.end());
  roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
  std::erase_if(*entries, [&](const FileEntry& e) { return InsideAny(e.path, roots); });
  return roots;
}

Result<std::vector<FileEntry>> ListVisibleFiles(
    Storage& table, Engine& engine, const VisibilityRule& rule,
    const std::function<void(const VacuumProgress&)>& progress, const Storage::NeedsDetails& needs_details,
    int64_t* without_details) {
  ARROW_ASSIGN_OR_RAISE(auto top, table.List("", /*recursive=*/false));
  std::erase_if(top, [&](const FileEntry& e) { return rule.IsHidden(e.path); });
  // A folder's files are "<folder>/...": ordering folders as "<folder>/" puts every top-level
  // entry where its files sort, so sorted chunks concatenate into sorted files.
  auto order_key = [](const FileEntry& e) { return e.is_dir ? e.path + "/" : e.path; };
  std::sort(top.begin(), top.end(), [&](const FileEntry& a, const FileEntry& b) { return order_key(a) < order_key(b); });
  std::vector<size_t> folders;  // positions in `top`
  for (size_t i = 0; i < top.size(); ++i) {
    if (top[i].is_dir) folders.push_back(i);
  }
  std::atomic<int64_t> done{0}, skipped{0};
  const auto total = static_cast<int64_t>(folders.size());
  std::vector<char> nested(folders.size(), 0);  // per folder task: it is a table's root
  ARROW_ASSIGN_OR_RAISE(
      auto per_folder,
      engine.Map<std::vector<FileEntry>>(total, [&](int64_t i) -> Result<std::vector<FileEntry>> {
        const std::string& folder = top[folders[static_cast<size_t>(i)]].path;
        // Files left out (in use) are counted by their folder: those of a nested table, known
        // only once the listing is done, are not this table's. A file in use that marks a
        // nested table (DropNestedTables must see it), or is hidden, still comes back, to go
        // with the others of its kind. A folder's files come together, so the count's entry is
        // looked up once per folder.
        std::map<std::string, int64_t, std::less<>> left_out;
        std::string last_folder;
        int64_t* last_count = nullptr;
        Storage::NeedsDetails wanted;
        if (needs_details) {
          wanted = [&](std::string_view path) {
            if (needs_details(path) || MarksATable(path) || rule.IsHidden(path)) return true;
            const size_t slash = path.rfind('/');
            const std::string_view in = slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
            if (last_count == nullptr || in != last_folder) {
              last_folder.assign(in);
              last_count = &left_out[last_folder];
            }
            ++*last_count;
            return false;
          };
        }
        ARROW_ASSIGN_OR_RAISE(auto entries, table.ListSkippingDetails(folder, /*recursive=*/true, wanted));
        // Before the hidden files go: they tell a nested table (the folder itself, maybe).
        entries.push_back(FileEntry{folder, 0, 0, true});
        const std::vector<std::string> nested_roots = DropNestedTables(&entries);
        if (entries.empty() || entries.back().path != folder) {
          nested[static_cast<size_t>(i)] = 1;  // the top-level folder is a table: not even it
        } else {
          entries.pop_back();
        }
        std::erase_if(entries, [&](const FileEntry& e) { return rule.IsHidden(e.path); });
        for (const auto& [in, n] : left_out) {
          if (!InsideAny(in, nested_roots)) skipped += n;
        }
        std::sort(entries.begin(), entries.end(),
                  [](const FileEntry& a, const FileEntry& b) { return a.path < b.path; });
        int64_t n = ++done;
        if (progress) progress({"listing", n, total});
        return entries;
      }));
  if (without_details != nullptr) *without_details = skipped.load();
  size_t count = top.size();
  for (const auto& chunk : per_folder) count += chunk.size();
  std::vector<FileEntry> out;
  out.reserve(count);
  size_t next_folder = 0;
  for (size_t i = 0; i < top.size(); ++i) {
    if (next_folder < folders.size() && folders[next_folder] == i) {
      // Top-level folders are kept so empty ones can be removed; a nested table's is not.
      if (!nested[next_folder]) out.push_back(std::move(top[i]));
      for (auto& e : per_folder[next_folder]) out.push_back(std::move(e));
      ++next_folder;
      continue;
    }
    out.push_back(std::move(top[i]));
  }
  return out;
}

namespace {

Result<std::shared_ptr<arrow::Table>> ReadInventoryTable(Storage& folder, const std::string& name) {
  ARROW_ASSIGN_OR_RAISE(auto input, folder.OpenInputFile(name));
  if (name.size() >= 8 && name.compare(name.size() - 8, 8, ".parquet") == 0) {
    try {
      ARROW_ASSIGN_OR_RAISE(auto reader, parquet::arrow::OpenFile(input, ReadMemoryPool()));
      return reader->ReadTable();
    } catch (const parquet::ParquetException& e) {
      return Status::IOError(e.what());
    }
  }
  auto convert = arrow::csv::ConvertOptions::Defaults();
  convert.column_types = {{"path", arrow::utf8()}, {"length", arrow::int64()},
                          {"isDir", arrow::boolean()}, {"modificationTime", arrow::int64()}};
  ARROW_ASSIGN_OR_RAISE(auto reader, arrow::csv::TableReader::Make(
                                         arrow::io::IOContext(ReadMemoryPool()), input,
                                         arrow::csv::ReadOptions::Defaults(),
                                         arrow::csv::ParseOptions::Defaults(), convert));
  return reader->Read();
}

Result<std::shared_ptr<arrow::Array>> InventoryColumn(const arrow::Table& table, const char* name,
                                                      const std::shared_ptr<arrow::DataType>& type) {
  auto column = table.GetColumnByName(name);
  if (!column) return Status::Invalid("inventory has no column '", name, "'");
  ARROW_ASSIGN_OR_RAISE(auto cast, arrow::compute::Cast(column, type));
  ARROW_ASSIGN_OR_RAISE(auto combined, CombineChunks(*cast.chunked_array()));
  if (combined->null_count() > 0) return Status::Invalid("inventory column '", name, "' has nulls");
  return combined;
}

}  // namespace

Result<std::vector<FileEntry>> ReadInventory(const std::string& inventory_uri,
                                             const std::string& root_uri,
                                             const VisibilityRule& rule) {
  auto fail = [&](const Status& st) {
    return Status::Invalid("inventory '", inventory_uri, "': ", st.message());
  };
  size_t slash = inventory_uri.rfind('/');
  std::string folder_uri = slash == std::string::npos ? "." : inventory_uri.substr(0, slash);
  if (folder_uri.empty()) folder_uri = "/";
  std::string name = slash == std::string::npos ? inventory_uri : inventory_uri.substr(slash + 1);
  ARROW_ASSIGN_OR_RAISE(auto folder, Storage::Open(folder_uri));
  auto table = ReadInventoryTable(*folder, name);
  if (!table.ok()) return fail(table.status());
  auto paths = InventoryColumn(**table, "path", arrow::utf8());
  auto lengths = InventoryColumn(**table, "length", arrow::int64());
  auto dirs = InventoryColumn(**table, "isDir", arrow::boolean());
  auto mtimes = InventoryColumn(**table, "modificationTime", arrow::int64());
  for (const auto* r : {&paths, &lengths, &dirs, &mtimes}) {
    if (!r->ok()) return fail(r->status());
  }
  const auto& path_array = static_cast<const arrow::StringArray&>(**paths);
  const auto& length_array = static_cast<const arrow::Int64Array&>(**lengths);
  const auto& dir_array = static_cast<const arrow::BooleanArray&>(**dirs);
  const auto& mtime_array = static_cast<const arrow::Int64Array&>(**mtimes);
  std::vector<FileEntry> out;
  out.reserve(static_cast<size_t>(path_array.length()));
  const delta::TablePathResolver resolver(root_uri);
  for (int64_t i = 0; i < path_array.length(); ++i) {
    // A size or time below zero is no file's: the inventory is wrong, and nothing is decided by it.
    if (length_array.Value(i) < 0 || mtime_array.Value(i) < 0) {
      return fail(Status::Invalid("row ", i + 1, " ('", path_array.GetView(i), "') has a negative ",
                                  length_array.Value(i) < 0 ? "length" : "modificationTime"));
    }
    auto rel = resolver.Relativize(path_array.GetString(i));
    if (!rel.ok()) continue;  // not this table's
    out.push_back({*rel, length_array.Value(i), mtime_array.Value(i), dir_array.Value(i)});
  }
  DropNestedTables(&out);  // before the hidden files go: they tell a nested table
  std::erase_if(out, [&](const FileEntry& e) { return rule.IsHidden(e.path); });  // not ours to manage
  return out;
}

void SortByPath(std::vector<VacuumCandidate>& candidates) {
  auto by_path = [](const VacuumCandidate& a, const VacuumCandidate& b) { return a.path < b.path; };
  if (!std::is_sorted(candidates.begin(), candidates.end(), by_path)) {
    std::sort(candidates.begin(), candidates.end(), by_path);
  }
}

/// DropNestedTables for the tables whose markers are symbolic links (which a local listing
/// skips): each folder holding a non-live file, and its ancestors, is asked whether it holds
/// `.hoodie/hoodie.properties` (or its backup) or `_delta_log`, through the links. Cost: up to
/// three stats per distinct folder of such files.
Status DropLinkedNestedTables(Storage& table, std::vector<FileEntry>* entries) {
  std::set<std::string> folders;
  for (const auto& e : *entries) {
    for (std::string dir = ParentPath(e.path); !dir.empty(); dir = ParentPath(dir)) {
      if (!folders.insert(dir).second) break;  // its ancestors are in already
    }
  }
  std::vector<FileEntry> markers;
  for (const auto& dir : folders) {
    for (const char* marker : {"/.hoodie/hoodie.properties", "/.hoodie/hoodie.properties.backup", "/_delta_log"}) {
      ARROW_ASSIGN_OR_RAISE(auto info, table.GetFileInfo(dir + marker));
      if (info) markers.push_back(FileEntry{dir + marker, 0, 0, false});
    }
  }
  if (markers.empty()) return Status::OK();
  entries->insert(entries->end(), markers.begin(), markers.end());
  DropNestedTables(entries);  // the markers go with their tables
  return Status::OK();
}

Result<UntrackedScan> ScanForUntracked(Storage& table, const VacuumOptions& options, const VisibilityRule& rule,
                                       const PathSet& live, int64_t cutoff_ms) {
  std::vector<FileEntry> entries;
  int64_t in_use = 0;  // listed files skipped as in use
  if (options.inventory.empty()) {
    // Files in use are never candidates: their size and mtime are not needed, so not fetched.
    auto needs_details = [&live](std::string_view path) { return !live.contains(path); };
    ARROW_ASSIGN_OR_RAISE(entries,
                          ListVisibleFiles(table, *options.engine, rule, options.progress, needs_details, &in_use));
  } else {
    ARROW_ASSIGN_OR_RAISE(entries, ReadInventory(options.inventory, table.root_uri(), rule));
  }
  UntrackedScan scan;
  // A local listing skips symbolic links, so a nested table whose `.hoodie` or `_delta_log` is
  // one was not seen by DropNestedTables: the folders that would hold candidates are asked.
  if (table.root_uri().rfind("file://", 0) == 0) {
    ARROW_RETURN_NOT_OK(DropLinkedNestedTables(table, &entries));
  }
  // Counted once such tables' files are gone, as the other nested tables' are. (Files in use
  // inside one stay counted: only the folders holding candidates are asked.)
  // Folders (top-level ones, empty ones) are listed too, but only files are counted.
  scan.files_listed =
      std::count_if(entries.begin(), entries.end(), [](const FileEntry& e) { return !e.is_dir; }) + in_use;
  // A listing names each file once (and keeps none it listed without details); an inventory
  // may repeat one.
  const bool may_repeat = !options.inventory.empty();
  PathSet seen;
  // A link is never deleted (it may be a live file), and neither is the file it leads to.
  std::set<std::string> link_targets;
  for (const auto& e : entries) {
    if (e.is_link && !e.link_target.empty()) link_targets.insert(e.link_target);
  }
  for (auto& e : entries) {
    if (e.is_link || link_targets.count(e.path)) continue;
    if (e.mtime_ms >= cutoff_ms) {  // too young: a writer may be about to commit it
      if (!e.is_dir && !live.contains(e.path)) {
        scan.oldest_young_untracked_ms = std::min(scan.oldest_young_untracked_ms.value_or(e.mtime_ms), e.mtime_ms);
      }
      continue;
    }
    if (e.is_dir) {
      scan.old_empty_folders.push_back(std::move(e.path));
    } else if (!live.contains(e.path) && (!may_repeat || seen.insert(e.path))) {
      scan.candidates.push_back({std::move(e.path), e.size});
    }
  }
  return scan;
}

}  // namespace lakeshore::vacuum
