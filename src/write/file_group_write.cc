#include "write/file_group_write.h"

#include <algorithm>

#include <arrow/array.h>
#include <arrow/array/concatenate.h>
#include <arrow/builder.h>
#include <arrow/compute/api.h>
#include <arrow/scalar.h>

#include "common/arrow_cast.h"
#include "common/parse_number.h"
#include "index/key_lookup.h"
#include "io/log_file.h"
#include "table/meta_columns.h"

namespace lakeshore {
namespace {
Result<std::shared_ptr<arrow::Array>> ToIndexArray(const std::vector<int64_t>& idx) {
  arrow::Int64Builder builder;
  ARROW_RETURN_NOT_OK(builder.AppendValues(idx));
  return builder.Finish();
}

// The new rows with Hudi's meta columns, in full-schema order. The near-constant meta columns
// are dictionary arrays (cheap to build and write; Parquet stores plain strings).
//
// `file_name` is the `_hoodie_file_name` value: the new base file's name, or for a log file's
// records the file id, as Hudi's append handle writes it.
Result<std::shared_ptr<arrow::Table>> BuildNewRows(const FileGroupTask& task, const std::vector<int64_t>& rows,
                                                   const std::string& file_name) {
  const FileGroupWrite& plan = task.plan;
  ARROW_ASSIGN_OR_RAISE(auto user, TakeRows(task.rows, rows));
  int64_t n = static_cast<int64_t>(rows.size());
  ARROW_ASSIGN_OR_RAISE(auto commit_time, meta_columns::MakeConstantColumn(task.instant_time, n));
  ARROW_ASSIGN_OR_RAISE(auto seqno, meta_columns::MakeSeqnoColumn(task.instant_time, std::to_string(plan.task), 0, n));
  ARROW_ASSIGN_OR_RAISE(auto partition, meta_columns::MakeConstantColumn(plan.partition, n));
  ARROW_ASSIGN_OR_RAISE(auto file_name_column, meta_columns::MakeConstantColumn(file_name, n));
  auto key_table = arrow::Table::Make(arrow::schema({arrow::field("k", arrow::utf8())}), {task.keys});
  ARROW_ASSIGN_OR_RAISE(auto keys, TakeRows(key_table, rows));
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns = {
      std::make_shared<arrow::ChunkedArray>(commit_time), std::make_shared<arrow::ChunkedArray>(seqno),
      keys->column(0), std::make_shared<arrow::ChunkedArray>(partition),
      std::make_shared<arrow::ChunkedArray>(file_name_column)};
  std::vector<std::shared_ptr<arrow::Field>> fields;
  for (int i = 0; i < meta_columns::kCount; ++i) {
    fields.push_back(arrow::field(task.full_schema->field(i)->name(), columns[static_cast<size_t>(i)]->type()));
  }
  for (int i = meta_columns::kCount; i < task.full_schema->num_fields(); ++i) fields.push_back(task.full_schema->field(i));
  for (const auto& c : user->columns()) columns.push_back(c);
  return arrow::Table::Make(arrow::schema(fields), std::move(columns), n);
}

Result<std::shared_ptr<arrow::Table>> ReadOld(Storage& storage, const FileGroupTask& task, const BaseFile& base) {
  ARROW_ASSIGN_OR_RAISE(auto table, ReadBaseFile(storage, base.path, {}, base.size));
  auto conformed = ConformToSchema(table, task.full_schema, "base file '" + base.path + "'");
  if (!conformed.ok()) return CorruptMetadata(conformed.status().message());
  return conformed;
}

// For each update pair (old row, input row), true when the input row wins on ordering.
Result<std::vector<bool>> IncomingWins(const FileGroupTask& task, const std::shared_ptr<arrow::Table>& old,
                                       const std::vector<int64_t>& old_rows,
                                       const std::vector<int64_t>& input_rows) {
  std::vector<bool> wins(old_rows.size(), true);
  const std::string& field = task.ordering_field;
  if (field.empty() || old_rows.empty()) return wins;
  ARROW_ASSIGN_OR_RAISE(auto old_idx, ToIndexArray(old_rows));
  ARROW_ASSIGN_OR_RAISE(auto new_idx, ToIndexArray(input_rows));
  ARROW_ASSIGN_OR_RAISE(auto old_vals, arrow::compute::Take(old->GetColumnByName(field), old_idx));
  ARROW_ASSIGN_OR_RAISE(auto new_vals, arrow::compute::Take(task.rows->GetColumnByName(field), new_idx));
  arrow::ArrayVector chunks;
  for (const auto& c : old_vals.chunked_array()->chunks()) chunks.push_back(c);
  for (const auto& c : new_vals.chunked_array()->chunks()) chunks.push_back(c);
  auto both = std::make_shared<arrow::ChunkedArray>(chunks, old_vals.type());
  // Stable ranks over [old..., new...]: a tie ranks the incoming value higher, so it wins.
  ARROW_ASSIGN_OR_RAISE(auto ranks, StableRanks(both));
  size_t n = old_rows.size();
  for (size_t i = 0; i < n; ++i) wins[i] = ranks[n + i] > ranks[i];
  return wins;
}

/// For each task row, the stored copy an update or delete of its key meets: the last copy of
/// the key in `old`, or, for a key stored more than once, the copy the ordering rule ranks
/// highest (a tie: the later written, by commit time and sequence number, whatever their place
/// in the file), into which the others merge; -1 for a key not stored.
/// `match_of_old[i]` is the task row of old row i (-1: none); `last_copy[r]` the last old row
/// of task row r. Cost: one pass, plus a rank of the copies of repeated keys only.
Result<std::vector<int64_t>> MergedCopies(const FileGroupTask& task, const std::shared_ptr<arrow::Table>& old,
                                          const std::vector<int64_t>& match_of_old,
                                          const std::vector<int64_t>& last_copy) {
  std::vector<int64_t> merged = last_copy;
  const std::string& field = task.ordering_field;
  if (field.empty()) return merged;  // no ordering: the last written copy stands for the key
  std::vector<int64_t> copies_seen(last_copy.size(), 0);
  for (int64_t r : match_of_old) {
    if (r >= 0) ++copies_seen[static_cast<size_t>(r)];
  }
  std::vector<int64_t> repeated_rows;  // old rows of keys stored more than once
  for (size_t i = 0; i < match_of_old.size(); ++i) {
    const int64_t r = match_of_old[i];
    if (r >= 0 && copies_seen[static_cast<size_t>(r)] > 1) repeated_rows.push_back(static_cast<int64_t>(i));
  }
  if (repeated_rows.empty()) return merged;
  // Later means written later, not later in the file (clustering reorders files): the copies
  // are ranked in the order of their commit time, then of their sequence number's counter
  // (`<instant>_<task>_<n>`), then of their place in the file.
  {
    ARROW_ASSIGN_OR_RAISE(auto rows, ToIndexArray(repeated_rows));
    ARROW_ASSIGN_OR_RAISE(auto times, arrow::compute::Take(old->GetColumnByName(meta_columns::kCommitTime), rows));
    ARROW_ASSIGN_OR_RAISE(auto seqnos, arrow::compute::Take(old->GetColumnByName(meta_columns::kCommitSeqno), rows));
    ARROW_ASSIGN_OR_RAISE(auto time_array, CombineChunks(*times.chunked_array()));
    ARROW_ASSIGN_OR_RAISE(auto seqno_array, CombineChunks(*seqnos.chunked_array()));
    ARROW_ASSIGN_OR_RAISE(time_array, arrow::compute::Cast(*time_array, arrow::utf8()));
    ARROW_ASSIGN_OR_RAISE(seqno_array, arrow::compute::Cast(*seqno_array, arrow::utf8()));
    const auto& time_strings = static_cast<const arrow::StringArray&>(*time_array);
    const auto& seqno_strings = static_cast<const arrow::StringArray&>(*seqno_array);
    struct Written {
      std::string_view time;
      int64_t counter;
      int64_t row;
    };
    std::vector<Written> written;
    written.reserve(repeated_rows.size());
    for (size_t j = 0; j < repeated_rows.size(); ++j) {
      const std::string_view seqno = seqno_strings.IsNull(static_cast<int64_t>(j)) ? std::string_view()
                                                                                   : seqno_strings.GetView(static_cast<int64_t>(j));
      int64_t counter = -1;
      if (const size_t cut = seqno.rfind('_'); cut != std::string_view::npos) {
        counter = ParseInt64(seqno.substr(cut + 1)).value_or(-1);
      }
      written.push_back({time_strings.IsNull(static_cast<int64_t>(j)) ? std::string_view()
                                                                       : time_strings.GetView(static_cast<int64_t>(j)),
                         counter, repeated_rows[j]});
    }
    std::stable_sort(written.begin(), written.end(), [](const Written& a, const Written& b) {
      if (a.time != b.time) return a.time < b.time;
      return a.counter < b.counter;
    });
    for (size_t j = 0; j < written.size(); ++j) repeated_rows[j] = written[j].row;
  }
  ARROW_ASSIGN_OR_RAISE(auto indices, ToIndexArray(repeated_rows));
  ARROW_ASSIGN_OR_RAISE(auto values, arrow::compute::Take(old->GetColumnByName(field), indices));
  // Stable ranks: of equal values, the later written ranks higher.
  ARROW_ASSIGN_OR_RAISE(auto ranks, StableRanks(values.chunked_array()));
  std::vector<uint64_t> best_rank(last_copy.size(), 0);
  std::vector<char> ranked(last_copy.size(), 0);
  for (size_t j = 0; j < repeated_rows.size(); ++j) {
    const auto r = static_cast<size_t>(match_of_old[static_cast<size_t>(repeated_rows[j])]);
    const auto rank = static_cast<uint64_t>(ranks[j]);
    if (!ranked[r] || rank > best_rank[r]) {
      ranked[r] = 1;
      best_rank[r] = rank;
      merged[r] = repeated_rows[j];
    }
  }
  return merged;
}

/// Merge-on-read: the upserts as a Parquet data block and the deletes as a delete block of one
/// new log file. Nothing is read: the ordering rule applies when the slice is read (or compacted).
Result<std::optional<WriteStat>> AppendLogFile(Storage& storage, const FileGroupTask& task,
                                               const arrow::StringArray& keys) {
  const FileGroupWrite& plan = task.plan;
  LogFileContent content;
  content.instant_time = task.instant_time;
  content.avro_schema = task.parquet.avro_schema;
  if (!plan.upserts.empty()) {
    ARROW_ASSIGN_OR_RAISE(content.records, BuildNewRows(task, plan.upserts, plan.file_id));
  }
  for (int64_t r : plan.deletes) content.deletes.push_back({std::string(keys.GetView(r)), plan.partition, nullptr});
  WriteStat stat;
  stat.partition = plan.partition;
  stat.file_id = plan.file_id;
  stat.prev_base_instant = plan.prev_base_instant;
  stat.path = plan.new_path;
  stat.num_updates = static_cast<int64_t>(plan.upserts.size());
  stat.num_deletes = static_cast<int64_t>(plan.deletes.size());
  stat.num_records = stat.num_updates;
  if (stat.num_updates + stat.num_deletes == 0) return std::optional<WriteStat>();
  ARROW_ASSIGN_OR_RAISE(auto written, WriteLogFile(storage, plan.new_path, content, task.parquet));
  stat.file_size = written.size;
  stat.column_stats = std::move(written.column_stats);
  return std::optional<WriteStat>(std::move(stat));
}

/// Writes `rows` as the group's new base file and completes `stat` with it.
Result<std::optional<WriteStat>> WriteNewBase(Storage& storage, const FileGroupWrite& plan, const arrow::Table& rows,
                                              const ParquetWriteSettings& settings, WriteStat stat) {
  ARROW_ASSIGN_OR_RAISE(auto written, WriteBaseFile(storage, plan.new_path, rows, settings));
  stat.path = plan.new_path;
  stat.num_records = written.num_records;
  stat.file_size = written.size;
  stat.min_record_key = written.min_record_key;
  stat.max_record_key = written.max_record_key;
  return std::optional<WriteStat>(std::move(stat));
}
}  // namespace

Result<std::optional<WriteStat>> ExecuteFileGroupWrite(Storage& storage, const FileGroupTask& task) {
  const FileGroupWrite& plan = task.plan;
  ARROW_ASSIGN_OR_RAISE(auto key_array, CombineChunks(*task.keys));
  const auto& key_strings = static_cast<const arrow::StringArray&>(*key_array);
  auto key_of = [&](int64_t row) { return key_strings.GetView(row); };
  if (plan.append_log) return AppendLogFile(storage, task, key_strings);
  WriteStat stat;
  stat.partition = plan.partition;
  stat.file_id = plan.file_id;
  stat.prev_base_instant = plan.prev_base_instant;

  std::shared_ptr<arrow::Table> old;
  if (plan.old_base) {
    ARROW_ASSIGN_OR_RAISE(old, ReadOld(storage, task, *plan.old_base));
  }
  const int64_t old_rows = old ? old->num_rows() : 0;
  if (old_rows == 0 || plan.concat) {
    // A new file group (or one whose base is gone), or inserts beside the stored records: every
    // upsert is an insert, and a delete finds nothing to remove.
    stat.num_inserts = static_cast<int64_t>(plan.upserts.size());
    if (stat.num_inserts == 0) return std::optional<WriteStat>();
    ARROW_ASSIGN_OR_RAISE(auto fresh, BuildNewRows(task, plan.upserts, std::string(BaseName(plan.new_path))));
    if (old_rows == 0) return WriteNewBase(storage, plan, *fresh, task.parquet, std::move(stat));
    // Kept rows read back as utf8: the new rows join them in that type.
    ARROW_ASSIGN_OR_RAISE(fresh, ConformToSchema(fresh, task.full_schema, "new rows"));
    ARROW_ASSIGN_OR_RAISE(auto both, arrow::ConcatenateTables({old, fresh}));
    return WriteNewBase(storage, plan, *both, task.parquet, std::move(stat));
  }
  // The stored keys are looked up among this task's keys (the smaller side): for each stored
  // row the task row with its key, and for each task row the last stored copy of its key (an
  // insert may have stored a key twice; an update or delete acts on every copy).
  std::vector<int64_t> match_of_old(static_cast<size_t>(old_rows), -1);
  std::vector<int64_t> last_copy(static_cast<size_t>(key_strings.length()), -1);
  {
    std::vector<std::string_view> task_keys(static_cast<size_t>(key_strings.length()));
    for (int64_t r = 0; r < key_strings.length(); ++r) task_keys[static_cast<size_t>(r)] = key_of(r);
    std::vector<int64_t> task_rows = plan.upserts;
    task_rows.insert(task_rows.end(), plan.deletes.begin(), plan.deletes.end());
    const KeyLookup lookup(task_keys, task_rows);
    // Only the key column is made one array; the rows stay in the chunks they were read in.
    ARROW_ASSIGN_OR_RAISE(auto key_column, CombineChunks(*old->GetColumnByName(meta_columns::kRecordKey)));
    const auto& keys = static_cast<const arrow::StringArray&>(*key_column);
    constexpr int64_t kBatch = 1024;
    std::string_view views[kBatch];
    int64_t found[kBatch];
    for (int64_t start = 0; start < old_rows; start += kBatch) {
      const int64_t n = std::min(kBatch, old_rows - start);
      for (int64_t j = 0; j < n; ++j) views[j] = keys.GetView(start + j);
      lookup.FindMany(views, static_cast<size_t>(n), found);
      for (int64_t j = 0; j < n; ++j) {
        if (found[j] < 0) continue;
        match_of_old[static_cast<size_t>(start + j)] = found[j];
        last_copy[static_cast<size_t>(found[j])] = start + j;
      }
    }
  }
  std::vector<char> dropped(static_cast<size_t>(old_rows), 0);
  // A key stored more than once in this group (inserted twice): its copies merge into one, the
  // copy the ordering rule picks (a tie: the later one), and the update meets that merged
  // record. `merged_copy[r]` is that copy for task row r; copies other than it are dropped.
  ARROW_ASSIGN_OR_RAISE(std::vector<int64_t> merged_copy, MergedCopies(task, old, match_of_old, last_copy));

  std::vector<int64_t> inserts, update_old, update_new;
  for (int64_t r : plan.upserts) {
    const int64_t copy = merged_copy[static_cast<size_t>(r)];
    if (copy < 0) {
      inserts.push_back(r);
    } else {
      update_old.push_back(copy);
      update_new.push_back(r);
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto wins, IncomingWins(task, old, update_old, update_new));
  // Task rows whose stored copies go: winning updates and deletes.
  std::vector<char> replaces(static_cast<size_t>(key_strings.length()), 0);
  std::vector<int64_t> new_rows = inserts;
  for (size_t i = 0; i < wins.size(); ++i) {
    if (!wins[i]) continue;
    replaces[static_cast<size_t>(update_new[i])] = 1;
    new_rows.push_back(update_new[i]);
    ++stat.num_updates;
  }
  std::vector<char> is_delete(static_cast<size_t>(key_strings.length()), 0);
  for (int64_t r : plan.deletes) is_delete[static_cast<size_t>(r)] = 1;
  int64_t merged_away = 0;  // copies merged into another copy of their key
  for (int64_t i = 0; i < old_rows; ++i) {
    const int64_t r = match_of_old[static_cast<size_t>(i)];
    if (r < 0) continue;
    if (replaces[static_cast<size_t>(r)]) {
      dropped[static_cast<size_t>(i)] = 1;
    } else if (is_delete[static_cast<size_t>(r)]) {
      dropped[static_cast<size_t>(i)] = 1;
      ++stat.num_deletes;
    } else if (merged_copy[static_cast<size_t>(r)] != i) {
      dropped[static_cast<size_t>(i)] = 1;
      ++merged_away;
    }
  }
  stat.num_inserts = static_cast<int64_t>(inserts.size());
  if (stat.num_inserts + stat.num_updates + stat.num_deletes + merged_away == 0) return std::optional<WriteStat>();

  std::vector<std::shared_ptr<arrow::Table>> parts;
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < old_rows; ++i)
    if (!dropped[i]) kept.push_back(i);
  if (static_cast<int64_t>(kept.size()) == old_rows) {
    parts.push_back(old);
  } else if (!kept.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto kept_rows, TakeRows(old, kept));
    parts.push_back(kept_rows);
  }
  if (!new_rows.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto fresh, BuildNewRows(task, new_rows, std::string(BaseName(plan.new_path))));
    if (!parts.empty()) {
      // Kept rows read back as utf8: the new rows join them in that type.
      ARROW_ASSIGN_OR_RAISE(fresh, ConformToSchema(fresh, task.full_schema, "new rows"));
    }
    parts.push_back(fresh);
  }
  std::shared_ptr<arrow::Table> merged;
  if (parts.empty()) {
    // Every record of the group was deleted: Hudi writes an empty base file.
    ARROW_ASSIGN_OR_RAISE(merged, arrow::Table::MakeEmpty(task.full_schema));
  } else {
    ARROW_ASSIGN_OR_RAISE(merged, arrow::ConcatenateTables(parts));
  }
  return WriteNewBase(storage, plan, *merged, task.parquet, std::move(stat));
}

Result<std::string> ExecuteSerializedFileGroupWrite(Storage& storage, const std::shared_ptr<arrow::Buffer>& task) {
  ARROW_ASSIGN_OR_RAISE(auto parsed, ParseFileGroupTask(task));
  ARROW_ASSIGN_OR_RAISE(auto stat, ExecuteFileGroupWrite(storage, parsed));
  return SerializeTaskResult(stat);
}

}  // namespace lakeshore
