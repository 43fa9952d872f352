#include "read/stored_key_check.h"

#include <algorithm>

#include <arrow/array.h>
#include <arrow/type_traits.h>

#include "io/base_file.h"
#include "read/snapshot_reader.h"
#include "table/meta_columns.h"
#include "table/partition_path.h"
#include "table/record_key.h"

namespace lakeshore {
namespace {

constexpr int64_t kRowsChecked = 1000;

bool TextIsTheSameForEveryWriter(const arrow::DataType& type) {
  return arrow::is_string(type.id()) || arrow::is_integer(type.id());
}

/// True when one of `fields` is of a type whose text differs between Hudi's writers.
bool TextMayDiffer(const TableConfig& config, const std::vector<std::string>& fields) {
  for (const auto& name : fields) {
    auto field = config.schema->GetFieldByName(name);
    if (field != nullptr && !TextIsTheSameForEveryWriter(*field->type())) return true;
  }
  return false;
}

/// The first value of `stored` (utf8) that differs from `ours`, as (row, stored, ours).
std::optional<std::tuple<int64_t, std::string, std::string>> FirstDifference(
    const arrow::ChunkedArray& stored, const std::vector<std::string_view>& ours) {
  int64_t row = 0;
  for (const auto& chunk : stored.chunks()) {
    const auto& values = static_cast<const arrow::StringArray&>(*chunk);
    for (int64_t i = 0; i < values.length() && row < static_cast<int64_t>(ours.size()); ++i, ++row) {
      const std::string_view s = values.IsNull(i) ? std::string_view() : values.GetView(i);
      if (s != ours[static_cast<size_t>(row)]) {
        return std::make_tuple(row, std::string(s), std::string(ours[static_cast<size_t>(row)]));
      }
    }
  }
  return std::nullopt;
}

Status Mismatch(const TableContext& ctx, const std::string& path, const char* what, const char* meta_column,
                const std::tuple<int64_t, std::string, std::string>& difference) {
  const auto& [row, stored, ours] = difference;
  return UnsupportedFeature("table " + ctx.uri + " is keyed by another writer's text of " + what + " (" + path +
                            ", row " + std::to_string(row) + ": " + std::string(meta_column) + " is '" + stored +
                            "', this build computes '" + ours + "'): this build cannot match keys against its records, "
                            "so it neither writes to it (an upsert would write twins of them) nor looks keys up; "
                            "Hudi's writers render a timestamp, date, decimal or boolean field by their own rules (a "
                            "Spark writer a timestamp in its JVM's time zone)");
}

Status CompareWithOneBaseFile(TableContext& ctx) {
  const TableConfig& config = ctx.config;
  if (!ctx.hoodie || !ctx.hoodie->populate_meta_fields) return Status::OK();
  // Folders a key generator formats (timestamp-based, custom) are not the columns' text: there
  // only the record keys are compared.
  const bool check_partitions = ctx.hoodie->FoldersHoldColumnValues() && !config.partition_fields.empty() &&
                                TextMayDiffer(config, config.partition_fields);
  if (!check_partitions && !TextMayDiffer(config, config.record_key_fields)) return Status::OK();
  ARROW_ASSIGN_OR_RAISE(auto view, ViewAsOf(ctx, std::nullopt));
  const BaseFile* base = nullptr;
  for (const FileGroup* group : view.LiveFileGroups()) {
    if (group->latest().base_file) {
      base = &*group->latest().base_file;
      break;
    }
  }
  if (base == nullptr) return Status::OK();
  std::vector<std::string> fields = config.record_key_fields;
  if (check_partitions) {
    for (const auto& p : config.partition_fields) {
      if (std::find(fields.begin(), fields.end(), p) == fields.end()) fields.push_back(p);
    }
  }
  std::vector<std::shared_ptr<arrow::Field>> typed;
  for (const auto& f : fields) typed.push_back(config.schema->GetFieldByName(f));
  std::vector<std::string> columns = {meta_columns::kRecordKey, meta_columns::kPartition};
  columns.insert(columns.end(), fields.begin(), fields.end());
  ARROW_ASSIGN_OR_RAISE(auto rows, ReadBaseFile(*ctx.storage, base->path, columns));
  rows = rows->Slice(0, kRowsChecked);
  ARROW_ASSIGN_OR_RAISE(auto values, ConformToSchema(rows, arrow::schema(typed), base->path));
  // The meta columns as utf8, whatever string type the file's writer chose.
  auto utf8 = [](const char* name) { return arrow::field(name, arrow::utf8()); };
  ARROW_ASSIGN_OR_RAISE(rows, ConformToSchema(rows, arrow::schema({utf8(meta_columns::kRecordKey),
                                                                    utf8(meta_columns::kPartition)}),
                                              base->path));

  ARROW_ASSIGN_OR_RAISE(const bool complex, config.ComplexRecordKeys());
  ARROW_ASSIGN_OR_RAISE(auto keys, ComputeRecordKeys(*values, config.record_key_fields, complex));
  if (auto d = FirstDifference(*rows->GetColumnByName(meta_columns::kRecordKey), StringViews(*keys))) {
    return Mismatch(ctx, base->path, "its record key", meta_columns::kRecordKey, *d);
  }
  if (!check_partitions) return Status::OK();
  ARROW_ASSIGN_OR_RAISE(auto partitions,
                        ComputePartitions(*values, config.partition_fields,
                                          PartitionStyle{config.hive_style_partitioning, config.url_encode_partitions}));
  std::vector<std::string_view> paths;
  for (int64_t r = 0; r < values->num_rows(); ++r) paths.push_back(partitions.PathOf(r));
  if (auto d = FirstDifference(*rows->GetColumnByName(meta_columns::kPartition), paths)) {
    return Mismatch(ctx, base->path, "its partition path", meta_columns::kPartition, *d);
  }
  return Status::OK();
}

}  // namespace

Status CheckStoredKeysMatchOurs(TableContext& ctx) {
  std::lock_guard<std::mutex> lock(ctx.stored_keys_mu);
  if (ctx.stored_keys_check) return *ctx.stored_keys_check;
  Status st = CompareWithOneBaseFile(ctx);
  // An answer about the table is kept; a failed read is not (the next write tries again).
  if (st.ok() || IsError(st, ErrorKind::kUnsupportedFeature)) ctx.stored_keys_check = st;
  return st;
}

}  // namespace lakeshore
