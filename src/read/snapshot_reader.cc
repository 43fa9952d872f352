#include "read/snapshot_reader.h"

#include <algorithm>
#include <set>

#include <arrow/builder.h>
#include <arrow/compute/api.h>

#include "io/base_file.h"
#include "read/file_slice_reader.h"
#include "read/column_stats_pruning.h"
#include "read/partition_filter.h"
#include "read/row_filter.h"
#include "read/table_view.h"
#include "table/meta_columns.h"
#include "table/partition_path.h"
#include "timeline/instant_time.h"

namespace lakeshore {
namespace {
/// The rows of one file or slice, filtered by `rows` when set: a selective read holds one
/// file's rows at a time (per worker), not the whole table's.
Result<std::shared_ptr<arrow::Table>> Filtered(std::shared_ptr<arrow::Table> part, const RowFilter* rows) {
  if (rows == nullptr || part->num_rows() == 0) return part;
  return rows->Apply(part);
}

/// Reads `files` (their `columns`, all when empty) under the table's schema, each filtered by
/// `rows` when set, as one table.
Result<std::shared_ptr<arrow::Table>> ReadFiles(TableContext& ctx, const std::vector<BaseFile>& files,
                                                const std::vector<std::string>& columns, const RowFilter* rows) {
  std::shared_ptr<arrow::Schema> schema = ctx.full_schema;
  if (!columns.empty()) {
    std::vector<std::shared_ptr<arrow::Field>> fields;
    for (const auto& c : columns) fields.push_back(ctx.full_schema->GetFieldByName(c));
    schema = arrow::schema(fields);
  }
  ARROW_ASSIGN_OR_RAISE(
      auto tables, ctx.engine->Map<std::shared_ptr<arrow::Table>>(
                       static_cast<int64_t>(files.size()), [&](int64_t i) -> Result<std::shared_ptr<arrow::Table>> {
                         const auto& f = files[static_cast<size_t>(i)];
                         ARROW_ASSIGN_OR_RAISE(auto t, ReadBaseFile(*ctx.storage, f.path, columns, f.size, /*missing_ok=*/true));
                         if (t->num_rows() == 0) return t;
                         // A file written before a schema evolution is read under the new schema
                         // (added columns null, widened ones cast); one whose columns cannot be
                         // (damaged or foreign) is an error.
                         bool same = t->num_columns() == schema->num_fields();
                         for (int c = 0; same && c < t->num_columns(); ++c) {
                           same = t->column(c)->type()->Equals(*schema->field(c)->type());
                         }
                         if (same) return Filtered(arrow::Table::Make(schema, t->columns(), t->num_rows()), rows);
                         auto evolved = ConformToSchema(t, schema, "base file '" + f.path + "'");
                         if (!evolved.ok()) {
                           return CorruptMetadata("base file '" + f.path + "' does not hold the table's columns (" +
                                                  t->schema()->ToString(false) + "): " + evolved.status().message());
                         }
                         return Filtered(*evolved, rows);
                       }));
  std::vector<std::shared_ptr<arrow::Table>> conformed;
  for (auto& t : tables) {
    if (t->num_rows() > 0) conformed.push_back(std::move(t));
  }
  if (conformed.empty()) return arrow::Table::MakeEmpty(schema);
  return arrow::ConcatenateTables(conformed);
}

/// Which instants' log blocks a read as of completion time `bound` ("" = latest) sees: the
/// completed ones (archived ones included) that completed by then, and those older than every
/// instant the timelines know (archived and not read, so completed).
std::function<bool(const std::string&)> VisibleInstants(const Timeline& timeline,
                                                        const std::vector<CompletedCommit>& commits,
                                                        const std::string& bound) {
  auto visible = std::make_shared<std::set<std::string>>();
  std::string first_known;
  auto know = [&](const std::string& time) {
    if (first_known.empty() || time < first_known) first_known = time;
  };
  for (const auto& i : timeline.instants()) {
    know(i.time);
    if (i.is_completed() && (bound.empty() || i.completion_time <= bound)) visible->insert(i.time);
  }
  for (const auto& c : commits) {
    know(c.instant.time);
    if (bound.empty() || c.instant.completion_time <= bound) visible->insert(c.instant.time);
  }
  return [visible, first_known](const std::string& t) {
    return visible->count(t) > 0 || (!first_known.empty() && t < first_known);
  };
}

}  // namespace

SliceReadSpec SliceSpecFor(const TableContext& ctx, const Timeline& timeline,
                           const std::vector<CompletedCommit>& commits, const std::string& bound) {
  SliceReadSpec spec;
  spec.schema = ctx.full_schema;
  spec.merge_mode = ctx.hoodie ? ctx.hoodie->merge_mode
                               : (ctx.config.ordering_field.empty() ? RecordMergeMode::kCommitTimeOrdering
                                                                    : RecordMergeMode::kEventTimeOrdering);
  spec.ordering_field = ctx.config.ordering_field;
  spec.instant_is_visible = VisibleInstants(timeline, commits, bound);
  spec.log_files_written_whole = ctx.hoodie && ctx.hoodie->table_version >= 8;
  return spec;
}

namespace {
/// Reads the latest slices of `groups`: base files alone through ReadFiles when no slice has
/// log files (or the read is read-optimized), else each slice merged with its logs; each
/// filtered by `rows` when set.
Result<std::shared_ptr<arrow::Table>> ReadSlices(TableContext& ctx, const Timeline& timeline,
                                                 const std::vector<CompletedCommit>& commits,
                                                 const std::vector<const FileGroup*>& groups,
                                                 const std::vector<std::string>& columns, const std::string& bound,
                                                 bool read_optimized, const RowFilter* rows = nullptr) {
  bool any_logs = false;
  for (const FileGroup* g : groups) any_logs = any_logs || !g->latest().log_files.empty() || !g->latest().base_file;
  if (!any_logs || read_optimized) {
    std::vector<BaseFile> files;
    for (const FileGroup* g : groups) {
      if (g->latest().base_file) files.push_back(*g->latest().base_file);
    }
    return ReadFiles(ctx, files, columns, rows);
  }
  SliceReadSpec spec = SliceSpecFor(ctx, timeline, commits, bound);
  spec.columns = columns;
  ARROW_ASSIGN_OR_RAISE(auto tables, ctx.engine->Map<std::shared_ptr<arrow::Table>>(
                                         static_cast<int64_t>(groups.size()),
                                         [&](int64_t i) -> Result<std::shared_ptr<arrow::Table>> {
                                           const FileSlice& latest = groups[static_cast<size_t>(i)]->latest();
                                           ARROW_ASSIGN_OR_RAISE(auto slice, ReadFileSlice(*ctx.storage, latest, spec));
                                           return Filtered(std::move(slice), rows);
                                         }));
  std::vector<std::shared_ptr<arrow::Table>> parts;
  for (auto& t : tables) {
    if (t->num_rows() > 0) parts.push_back(std::move(t));
  }
  std::shared_ptr<arrow::Table> all;
  if (parts.empty()) {
    ARROW_ASSIGN_OR_RAISE(all, arrow::Table::MakeEmpty(ctx.full_schema));
  } else {
    ARROW_ASSIGN_OR_RAISE(all, arrow::ConcatenateTables(parts));
  }
  if (columns.empty()) return all;
  std::vector<int> indices;
  for (const auto& c : columns) indices.push_back(all->schema()->GetFieldIndex(c));
  return all->SelectColumns(indices);
}

Status CheckColumns(TableContext& ctx, const std::vector<std::string>& columns) {
  std::set<std::string_view> seen;
  for (const auto& c : columns) {
    if (ctx.full_schema->GetFieldIndex(c) < 0) {
      return Status::Invalid("no column '", c, "' in table ", ctx.uri, " (columns: ",
                             ctx.full_schema->ToString(false), ")");
    }
    if (!seen.insert(c).second) return Status::Invalid("column '", c, "' is asked for more than once");
  }
  return Status::OK();
}
}  // namespace

namespace {
/// "yyyy-MM-dd HH:mm:ss[.fraction][Z]" ('T' for the space) as the instant-time text of its
/// millisecond (the fraction truncated); nullopt for other text.
std::optional<std::string> IsoTimeAsInstantText(std::string_view text) {
  if (!text.empty() && (text.back() == 'Z' || text.back() == 'z')) text.remove_suffix(1);
  if (text.size() < 19 || text[4] != '-' || text[7] != '-' || (text[10] != ' ' && text[10] != 'T') ||
      text[13] != ':' || text[16] != ':') {
    return std::nullopt;
  }
  std::string out;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18}) out.push_back(text[i]);
  std::string millis = "000";
  if (text.size() > 19) {
    if (text[19] != '.' || text.size() == 20) return std::nullopt;
    for (size_t i = 20; i < text.size(); ++i) {
      if (text[i] < '0' || text[i] > '9') return std::nullopt;
      if (i - 20 < 3) millis[i - 20] = text[i];
    }
  }
  out += millis;
  if (!LooksLikeInstantTime(out) || !ParseInstantTime(out).ok()) return std::nullopt;
  return out;
}
}  // namespace

Result<std::string> ResolveAsOf(const Timeline& timeline, const std::vector<CompletedCommit>& commits,
                                const std::string& as_of, const char* what) {
  if (auto moment = IsoTimeAsInstantText(as_of)) return *moment;
  if (!LooksLikeInstantTime(as_of) || !ParseInstantTime(as_of).ok()) {
    return Status::Invalid(what, " '", as_of, "' is not an instant time (yyyyMMddHHmmssSSS) or a UTC time "
                           "(yyyy-MM-dd HH:mm:ss.SSS)");
  }
  auto instant = timeline.Find(as_of);
  if (instant && instant->is_completed()) return instant->completion_time;
  if (instant) return Status::Invalid("instant ", as_of, " is not completed; readers see completed instants only");
  for (const auto& c : commits) {
    if (c.instant.time == as_of) return c.instant.completion_time;  // archived
  }
  return as_of;
}

namespace {
/// A time before the active timeline needs the archived one, which is not read yet: clearly an
/// error rather than a silently different answer.
Status CheckWithinActiveTimeline(const TableContext& ctx, const Timeline& timeline, const std::string& time,
                                 const char* what) {
  if (!ctx.has_unread_archive || time.empty() || timeline.instants().empty()) return Status::OK();
  const std::string& first = timeline.instants().front().time;
  if (time >= first) return Status::OK();
  return UnsupportedFeature(std::string(what) + " " + time + " is before the active timeline of " + ctx.uri +
                            " (it starts at " + first + "); its archived instants are not read yet");
}

struct ViewAndBound {
  Timeline timeline;
  std::vector<CompletedCommit> commits;  ///< archived ones included
  std::string bound;
  FileSystemView view;
};

Result<ViewAndBound> LoadViewAsOf(TableContext& ctx, const std::optional<std::string>& as_of) {
  ViewAndBound out;
  ARROW_ASSIGN_OR_RAISE(out.timeline, ctx.LoadTimeline());
  ARROW_ASSIGN_OR_RAISE(out.commits, ctx.LoadCommits(out.timeline));
  ARROW_RETURN_NOT_OK(ctx.CheckSchemaAsOpened(out.commits));
  if (as_of && !as_of->empty()) {
    ARROW_ASSIGN_OR_RAISE(out.bound, ResolveAsOf(out.timeline, out.commits, *as_of));
    ARROW_RETURN_NOT_OK(CheckWithinActiveTimeline(ctx, out.timeline, out.bound, "as_of"));
  }
  ARROW_ASSIGN_OR_RAISE(out.view, TableView(ctx, out.timeline, out.commits, out.bound));
  return out;
}
}  // namespace

Result<FileSystemView> ViewAsOf(TableContext& ctx, const std::optional<std::string>& as_of) {
  ARROW_ASSIGN_OR_RAISE(auto loaded, LoadViewAsOf(ctx, as_of));
  return std::move(loaded.view);
}

namespace {
/// A read's filters: partition predicates (ReadOptions.partition_filter, and the predicates of
/// ReadOptions.filter on partition fields) and the row filter (the others).
struct ReadFilters {
  PartitionPathFilter partitions;
  RowFilter rows;
  /// The columns to read: the asked ones plus those the row filter needs (empty: all).
  std::vector<std::string> read_columns;
};

Result<ReadFilters> CompileFilters(TableContext& ctx, const ReadOptions& options) {
  ReadFilters out;
  std::vector<PartitionPredicate> on_partitions = options.partition_filter, on_rows;
  for (const auto& p : options.filter) {
    const auto& fields = ctx.config.partition_fields;
    (std::find(fields.begin(), fields.end(), p.field) != fields.end() ? on_partitions : on_rows).push_back(p);
  }
  // Where folders hold the columns' own text, "" lives in the null folder (KeyGenUtils).
  const bool empty_in_null_folder = ctx.hoodie && ctx.hoodie->FoldersHoldColumnValues();
  ARROW_ASSIGN_OR_RAISE(auto partitions, MakePartitionFilter(ctx.config, on_partitions, empty_in_null_folder));
  out.partitions = std::move(partitions.paths);
  on_rows.insert(on_rows.end(), partitions.on_rows.begin(), partitions.on_rows.end());
  ARROW_ASSIGN_OR_RAISE(out.rows, RowFilter::Make(*ctx.full_schema, on_rows));
  out.read_columns = options.columns;
  if (!out.read_columns.empty()) {
    for (const auto& c : out.rows.columns()) {
      if (std::find(out.read_columns.begin(), out.read_columns.end(), c) == out.read_columns.end()) {
        out.read_columns.push_back(c);
      }
    }
  }
  return out;
}

/// `table` filtered by the row filter, projected to the asked columns, and, when a row filter
/// ran, with the read's pruning in its schema metadata (read.file_groups, read.file_groups_pruned,
/// read.pruned_by: those of "key_range", "partition_stats", "column_stats" used, or "none";
/// read.partitions_pruned when partition_stats was consulted).
Result<std::shared_ptr<arrow::Table>> FinishRead(const ReadFilters& filters, const ReadOptions& options,
                                                 std::shared_ptr<arrow::Table> table, const ColumnStatsPruning& pruning,
                                                 bool rows_filtered = false) {
  if (filters.rows.empty()) return table;
  if (!rows_filtered) {
    ARROW_ASSIGN_OR_RAISE(table, filters.rows.Apply(table));
  }
  if (!options.columns.empty() && filters.read_columns.size() != options.columns.size()) {
    std::vector<int> indices;
    for (const auto& c : options.columns) indices.push_back(table->schema()->GetFieldIndex(c));
    ARROW_ASSIGN_OR_RAISE(table, table->SelectColumns(indices));
  }
  std::vector<std::string> keys = {"read.file_groups", "read.file_groups_pruned", "read.pruned_by"};
  std::vector<std::string> values = {std::to_string(pruning.groups_in), std::to_string(pruning.groups_pruned),
                                     pruning.PrunedBy()};
  if (pruning.used_partition_stats) {
    keys.push_back("read.partitions_pruned");
    values.push_back(std::to_string(pruning.partitions_pruned));
  }
  auto metadata = arrow::key_value_metadata(keys, values);
  return table->ReplaceSchemaMetadata(metadata);
}
}  // namespace

Result<std::shared_ptr<arrow::Table>> ReadSnapshot(TableContext& ctx, const ReadOptions& options) {
  ARROW_RETURN_NOT_OK(CheckColumns(ctx, options.columns));
  ARROW_ASSIGN_OR_RAISE(auto filters, CompileFilters(ctx, options));
  ARROW_ASSIGN_OR_RAISE(auto loaded, LoadViewAsOf(ctx, options.as_of));
  ColumnStatsPruning pruning;
  ARROW_ASSIGN_OR_RAISE(auto groups, PruneByColumnStats(ctx, loaded.timeline, loaded.view.LiveFileGroups(filters.partitions),
                                                        filters.rows, options.read_optimized,
                                                        /*latest=*/!options.as_of || options.as_of->empty(), &pruning));
  // Each file or slice is filtered as it is read: a selective read never holds the table.
  const RowFilter* rows = filters.rows.empty() ? nullptr : &filters.rows;
  ARROW_ASSIGN_OR_RAISE(auto table, ReadSlices(ctx, loaded.timeline, loaded.commits, groups, filters.read_columns,
                                               loaded.bound, options.read_optimized, rows));
  return FinishRead(filters, options, std::move(table), pruning, /*rows_filtered=*/true);
}

Result<std::shared_ptr<arrow::Table>> ReadIncremental(TableContext& ctx, const std::string& start_exclusive,
                                                      const std::string& end_inclusive,
                                                      const ReadOptions& options) {
  ARROW_RETURN_NOT_OK(CheckColumns(ctx, options.columns));
  ARROW_ASSIGN_OR_RAISE(auto filters, CompileFilters(ctx, options));
  const PartitionPathFilter& keep = filters.partitions;
  ARROW_ASSIGN_OR_RAISE(auto timeline, ctx.LoadTimeline());
  ARROW_ASSIGN_OR_RAISE(auto commits, ctx.LoadCommits(timeline));
  ARROW_RETURN_NOT_OK(ctx.CheckSchemaAsOpened(commits));
  std::string start, end;
  // Hudi's initial instant (zeros, "000" as its docs write it) starts before every instant.
  const bool from_the_beginning =
      !start_exclusive.empty() && start_exclusive.size() <= kInstantTimeLength &&
      start_exclusive.find_first_not_of('0') == std::string::npos;
  if (from_the_beginning) {
    // Every instant is in range, archived ones too: refused where those are not read.
    ARROW_RETURN_NOT_OK(CheckWithinActiveTimeline(ctx, timeline, std::string(kInstantTimeLength, '0'),
                                                  "the incremental start"));
  } else if (!start_exclusive.empty()) {
    ARROW_ASSIGN_OR_RAISE(start, ResolveAsOf(timeline, commits, start_exclusive, "the incremental start"));
    ARROW_RETURN_NOT_OK(CheckWithinActiveTimeline(ctx, timeline, start, "the incremental start"));
  }
  if (!end_inclusive.empty()) {
    ARROW_ASSIGN_OR_RAISE(end, ResolveAsOf(timeline, commits, end_inclusive, "the incremental end"));
  }
  ARROW_ASSIGN_OR_RAISE(FileSystemView view, TableView(ctx, timeline, commits, end));
  // The instants in range and the file groups they wrote.
  std::set<std::string> times;
  std::set<std::pair<std::string, std::string>> groups;
  for (const auto& c : commits) {
    const auto& done = c.instant.completion_time;
    if (done <= start || (!end.empty() && done > end) || !actions::WritesData(c.instant.action)) continue;
    times.insert(c.instant.time);
    for (const auto& s : c.metadata.write_stats) groups.insert({s.partition, s.file_id});
  }
  std::vector<const FileGroup*> touched;
  for (const FileGroup* g : view.LiveFileGroups(keep))
    if (groups.count({g->partition, g->file_id})) touched.push_back(g);
  // Only the asked columns, those the row filter needs and the commit time (all were read and
  // the rest dropped at the end), each slice filtered as it is read.
  std::vector<std::string> read_columns = filters.read_columns;
  if (!read_columns.empty() &&
      std::find(read_columns.begin(), read_columns.end(), meta_columns::kCommitTime) == read_columns.end()) {
    read_columns.push_back(meta_columns::kCommitTime);
  }
  const RowFilter* rows = filters.rows.empty() ? nullptr : &filters.rows;
  ARROW_ASSIGN_OR_RAISE(auto all,
                        ReadSlices(ctx, timeline, commits, touched, read_columns, end, options.read_optimized, rows));
  // Keep the rows whose commit time is one of the instants in range.
  arrow::StringBuilder builder;
  for (const auto& t : times) ARROW_RETURN_NOT_OK(builder.Append(t));
  ARROW_ASSIGN_OR_RAISE(auto value_set, builder.Finish());
  ARROW_ASSIGN_OR_RAISE(auto commit_times,
                        arrow::compute::Cast(all->GetColumnByName(meta_columns::kCommitTime), arrow::utf8()));
  ARROW_ASSIGN_OR_RAISE(auto mask, arrow::compute::IsIn(commit_times, arrow::compute::SetLookupOptions(value_set)));
  ARROW_ASSIGN_OR_RAISE(auto filtered, arrow::compute::Filter(all, mask));
  auto table = filtered.table();
  if (!filters.rows.empty()) {  // incremental reads prune nothing by column stats
    ColumnStatsPruning none;
    none.groups_in = static_cast<int64_t>(touched.size());
    ARROW_ASSIGN_OR_RAISE(table, FinishRead(filters, ReadOptions{}, std::move(table), none, /*rows_filtered=*/true));
  }
  if (options.columns.empty()) return table;
  std::vector<int> indices;
  for (const auto& c : options.columns) indices.push_back(table->schema()->GetFieldIndex(c));
  return table->SelectColumns(indices);
}

}  // namespace lakeshore
