#include "write/file_group_task.h"

#include <algorithm>

#include <arrow/array/builder_primitive.h>
#include <arrow/compute/api.h>
#include <arrow/io/memory.h>
#include <arrow/ipc/api.h>
#include <arrow/table.h>
#include <arrow/util/key_value_metadata.h>
#include <nlohmann/json.hpp>

#include "common/base64.h"

namespace lakeshore {
namespace {

using json = nlohmann::json;

/// The schema-metadata key holding the plan, and the column holding the keys in the stream.
constexpr const char* kPlanKey = "lakeshore.file_group_task";
constexpr const char* kKeyColumn = "lakeshore.record_key";
constexpr int kFormatVersion = 2;

}  // namespace

Result<std::shared_ptr<arrow::Table>> TakeRows(const std::shared_ptr<arrow::Table>& table,
                                               const std::vector<int64_t>& indices) {
  if (indices.empty()) return table->Slice(0, 0);
  if (table->num_columns() == 0) return arrow::Table::Make(table->schema(), std::vector<std::shared_ptr<arrow::ChunkedArray>>{}, static_cast<int64_t>(indices.size()));
  if (!std::is_sorted(indices.begin(), indices.end())) {
    arrow::Int64Builder builder;
    ARROW_RETURN_NOT_OK(builder.AppendValues(indices));
    ARROW_ASSIGN_OR_RAISE(auto array, builder.Finish());
    ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(table, array));
    return taken.table();
  }
  // Ascending: runs of consecutive rows. Long runs are zero-copy slices (the rows a merge keeps
  // around a few updated ones); otherwise the rows are gathered chunk by chunk, never by
  // concatenating the table's chunks first (Arrow's Take of a chunked table does, which cost
  // every file group's task a copy of the whole input).
  std::vector<std::pair<int64_t, int64_t>> runs;  // (first row, length)
  for (size_t i = 0; i < indices.size(); ++i) {
    if (!runs.empty() && indices[i] == runs.back().first + runs.back().second) {
      ++runs.back().second;
    } else {
      runs.emplace_back(indices[i], 1);
    }
  }
  if (runs.size() == 1) return table->Slice(runs[0].first, runs[0].second);
  constexpr int64_t kSliceRunLength = 64;  // shorter runs on average: gathering is cheaper
  std::vector<std::shared_ptr<arrow::Table>> parts;
  if (static_cast<int64_t>(runs.size()) * kSliceRunLength <= static_cast<int64_t>(indices.size())) {
    for (const auto& [first, length] : runs) parts.push_back(table->Slice(first, length));
  } else {
    arrow::TableBatchReader batches(*table);  // aligned chunks of every column, zero-copy
    int64_t offset = 0;
    size_t next = 0;
    std::shared_ptr<arrow::RecordBatch> batch;
    while (next < indices.size()) {
      ARROW_RETURN_NOT_OK(batches.ReadNext(&batch));
      if (batch == nullptr) return Status::Invalid("row ", indices[next], " is beyond the ", table->num_rows(), " rows");
      const int64_t end = offset + batch->num_rows();
      arrow::Int64Builder local;
      while (next < indices.size() && indices[next] < end) ARROW_RETURN_NOT_OK(local.Append(indices[next++] - offset));
      if (local.length() > 0) {
        ARROW_ASSIGN_OR_RAISE(auto local_indices, local.Finish());
        ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(batch, local_indices));
        ARROW_ASSIGN_OR_RAISE(auto taken_table, arrow::Table::FromRecordBatches({taken.record_batch()}));
        parts.push_back(std::move(taken_table));
      }
      offset = end;
    }
  }
  return arrow::ConcatenateTables(parts);
}

namespace {

json StatJson(const WriteStat& s) {
  return {{"partition", s.partition},         {"file_id", s.file_id},
          {"path", s.path},                   {"prev_base_instant", s.prev_base_instant},
          {"num_records", s.num_records},     {"num_inserts", s.num_inserts},
          {"num_updates", s.num_updates},     {"num_deletes", s.num_deletes},
          {"file_size", s.file_size},         {"min_record_key", s.min_record_key},
          {"max_record_key", s.max_record_key}, {"retired", s.retired}};
}

/// Reads JSON fields with their types checked; the first problem is kept.
struct FieldReader {
  const json& j;
  std::string what;
  Status status;
  std::string String(const char* key) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_string()) return Fail(key), std::string();
    return it->get<std::string>();
  }
  int64_t Int(const char* key) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer()) return Fail(key), 0;
    return it->get<int64_t>();
  }
  bool Bool(const char* key) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_boolean()) return Fail(key), false;
    return it->get<bool>();
  }
  std::vector<int64_t> Ints(const char* key) {
    std::vector<int64_t> out;
    auto it = j.find(key);
    if (it == j.end() || !it->is_array()) return Fail(key), out;
    for (const auto& v : *it) {
      if (!v.is_number_integer()) return Fail(key), out;
      out.push_back(v.get<int64_t>());
    }
    return out;
  }
  void Fail(const char* key) {
    if (status.ok()) status = CorruptMetadata(what + ": field '" + key + "' is missing or of the wrong type");
  }
};

WriteStat StatFrom(FieldReader& r) {
  WriteStat s;
  s.partition = r.String("partition");
  s.file_id = r.String("file_id");
  s.path = r.String("path");
  s.prev_base_instant = r.String("prev_base_instant");
  s.num_records = r.Int("num_records");
  s.num_inserts = r.Int("num_inserts");
  s.num_updates = r.Int("num_updates");
  s.num_deletes = r.Int("num_deletes");
  s.file_size = r.Int("file_size");
  s.min_record_key = r.String("min_record_key");
  s.max_record_key = r.String("max_record_key");
  s.retired = r.Bool("retired");
  return s;
}

}  // namespace

Result<FileGroupTask> MakeFileGroupTask(const FileGroupTaskSource& source, const FileGroupWrite& plan) {
  FileGroupTask task;
  task.instant_time = source.instant_time;
  task.ordering_field = source.ordering_field;
  task.full_schema = source.full_schema;
  task.parquet = source.parquet;
  task.plan = plan;
  std::vector<int64_t> indices = plan.upserts;
  indices.insert(indices.end(), plan.deletes.begin(), plan.deletes.end());
  task.plan.upserts.clear();
  task.plan.deletes.clear();
  for (size_t i = 0; i < plan.upserts.size(); ++i) task.plan.upserts.push_back(static_cast<int64_t>(i));
  for (size_t i = 0; i < plan.deletes.size(); ++i) task.plan.deletes.push_back(static_cast<int64_t>(plan.upserts.size() + i));
  ARROW_ASSIGN_OR_RAISE(task.rows, TakeRows(source.input->table, indices));
  auto key_table = arrow::Table::Make(arrow::schema({arrow::field(kKeyColumn, arrow::utf8())}), {source.input->key_column});
  ARROW_ASSIGN_OR_RAISE(auto keys, TakeRows(key_table, indices));
  task.keys = keys->column(0);
  return task;
}

Result<std::shared_ptr<arrow::Buffer>> SerializeFileGroupTask(const FileGroupTask& task) {
  const FileGroupWrite& p = task.plan;
  json plan = {{"version", kFormatVersion},
               {"instant_time", task.instant_time},
               {"partition", p.partition},
               {"file_id", p.file_id},
               {"prev_base_instant", p.prev_base_instant},
               {"upserts", p.upserts},
               {"deletes", p.deletes},
               {"new_path", p.new_path},
               {"task", p.task},
               {"append_log", p.append_log},
               {"concat", p.concat},
               {"ordering_field", task.ordering_field},
               {"parquet",
                {{"row_group_rows", task.parquet.row_group_rows},
                 {"compression", task.parquet.compression},
                 {"avro_schema", task.parquet.avro_schema},
                 {"bloom_filter", task.parquet.bloom_filter},
                 {"parallel_within_file", task.parquet.parallel_within_file}}}};
  if (p.old_base) {
    plan["old_base"] = {{"path", p.old_base->path},
                        {"size", p.old_base->size},
                        {"num_records", p.old_base->num_records},
                        {"min_record_key", p.old_base->min_record_key},
                        {"max_record_key", p.old_base->max_record_key}};
  }
  ARROW_ASSIGN_OR_RAISE(auto schema_bytes, arrow::ipc::SerializeSchema(*task.full_schema));
  plan["full_schema"] = Base64Encode(schema_bytes->ToString());

  auto fields = task.rows->schema()->fields();
  fields.push_back(arrow::field(kKeyColumn, arrow::utf8()));
  auto columns = task.rows->columns();
  columns.push_back(task.keys);
  auto metadata = arrow::key_value_metadata({kPlanKey}, {plan.dump()});
  auto rows = arrow::Table::Make(arrow::schema(fields, metadata), columns, task.rows->num_rows());
  ARROW_ASSIGN_OR_RAISE(auto sink, arrow::io::BufferOutputStream::Create());
  ARROW_ASSIGN_OR_RAISE(auto writer, arrow::ipc::MakeStreamWriter(sink, rows->schema()));
  ARROW_RETURN_NOT_OK(writer->WriteTable(*rows));
  ARROW_RETURN_NOT_OK(writer->Close());
  return sink->Finish();
}

Result<FileGroupTask> ParseFileGroupTask(const std::shared_ptr<arrow::Buffer>& bytes) {
  auto bad = [](const std::string& what) { return CorruptMetadata("file group task: " + what); };
  auto reader = arrow::ipc::RecordBatchStreamReader::Open(std::make_shared<arrow::io::BufferReader>(bytes));
  if (!reader.ok()) return bad("not an Arrow IPC stream: " + reader.status().message());
  auto table = (*reader)->ToTable();
  if (!table.ok()) return bad("its rows cannot be read: " + table.status().message());
  // Arrow trusts IPC offsets and lengths: check every array before anything reads them.
  auto valid = (*table)->ValidateFull();
  if (!valid.ok()) return bad("its rows are damaged: " + valid.message());
  auto schema = (*table)->schema();
  const auto& meta = schema->metadata();
  if (meta == nullptr || meta->FindKey(kPlanKey) < 0) return bad("no plan in the stream");
  const std::string& text = meta->value(meta->FindKey(kPlanKey));
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return bad("the plan is not a JSON object");
  FieldReader r{j, "file group task", Status::OK()};
  if (r.Int("version") != kFormatVersion) return bad("unknown task format version");
  FileGroupTask task;
  task.instant_time = r.String("instant_time");
  task.plan.partition = r.String("partition");
  task.plan.file_id = r.String("file_id");
  task.plan.prev_base_instant = r.String("prev_base_instant");
  task.plan.upserts = r.Ints("upserts");
  task.plan.deletes = r.Ints("deletes");
  task.plan.new_path = r.String("new_path");
  task.plan.task = r.Int("task");
  task.plan.append_log = r.Bool("append_log");
  task.plan.concat = r.Bool("concat");
  task.ordering_field = r.String("ordering_field");
  auto parquet = j.find("parquet");
  if (parquet == j.end() || !parquet->is_object()) return bad("no parquet settings");
  FieldReader pr{*parquet, "file group task parquet settings", Status::OK()};
  task.parquet.row_group_rows = pr.Int("row_group_rows");
  task.parquet.compression = pr.String("compression");
  task.parquet.avro_schema = pr.String("avro_schema");
  task.parquet.bloom_filter = pr.Bool("bloom_filter");
  task.parquet.parallel_within_file = pr.Bool("parallel_within_file");
  ARROW_RETURN_NOT_OK(pr.status);
  auto old_base = j.find("old_base");
  if (old_base != j.end()) {
    if (!old_base->is_object()) return bad("old_base is not an object");
    FieldReader br{*old_base, "file group task old base", Status::OK()};
    BaseFile base;
    base.path = br.String("path");
    base.size = br.Int("size");
    base.num_records = br.Int("num_records");
    base.min_record_key = br.String("min_record_key");
    base.max_record_key = br.String("max_record_key");
    ARROW_RETURN_NOT_OK(br.status);
    task.plan.old_base = std::move(base);
  }
  const std::string schema_base64 = r.String("full_schema");
  ARROW_RETURN_NOT_OK(r.status);
  auto schema_text = Base64Decode(schema_base64);
  if (!schema_text.ok()) return bad("its table schema is not Base64");
  arrow::ipc::DictionaryMemo memo;
  arrow::io::BufferReader schema_reader(arrow::Buffer::FromString(std::move(*schema_text)));
  auto full_schema = arrow::ipc::ReadSchema(&schema_reader, &memo);
  if (!full_schema.ok()) return bad("its table schema cannot be read: " + full_schema.status().message());
  task.full_schema = *full_schema;
  // Row indices must lie inside the rows, and paths inside the table.
  const int64_t n = (*table)->num_rows();
  for (const auto* list : {&task.plan.upserts, &task.plan.deletes}) {
    for (int64_t i : *list) {
      if (i < 0 || i >= n) return bad("row " + std::to_string(i) + " is outside its " + std::to_string(n) + " rows");
    }
  }
  for (const std::string* path : {&task.plan.new_path, task.plan.old_base ? &task.plan.old_base->path : nullptr}) {
    if (path == nullptr) continue;
    auto normal = NormalizeRelativePath(*path);
    if (!normal.ok() || *normal != *path) return PathOutsideTable("file group task names '" + *path + "', not a file inside the table");
  }
  const int key_index = schema->GetFieldIndex(kKeyColumn);
  if (key_index < 0 || !schema->field(key_index)->type()->Equals(*arrow::utf8())) return bad("no record key column");
  task.keys = (*table)->column(key_index);
  ARROW_ASSIGN_OR_RAISE(auto without_keys, (*table)->RemoveColumn(key_index));
  task.rows = without_keys->ReplaceSchemaMetadata(nullptr);
  return task;
}

std::string SerializeTaskResult(const std::optional<WriteStat>& stat) {
  return stat ? StatJson(*stat).dump() : std::string("null");
}

Result<std::optional<WriteStat>> ParseTaskResult(std::string_view bytes) {
  json j = json::parse(bytes.begin(), bytes.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_null() && bytes == "null") return std::optional<WriteStat>();
  if (!j.is_object()) return CorruptMetadata("file group task result is not a JSON object");
  FieldReader r{j, "file group task result", Status::OK()};
  WriteStat stat = StatFrom(r);
  ARROW_RETURN_NOT_OK(r.status);
  return std::optional<WriteStat>(std::move(stat));
}

}  // namespace lakeshore
