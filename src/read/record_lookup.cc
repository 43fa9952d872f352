#include "read/record_lookup.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include <arrow/array/concatenate.h>
#include <arrow/builder.h>
#include <arrow/util/key_value_metadata.h>

#include "common/arrow_cast.h"
#include "io/base_file.h"
#include "io/metadata_files.h"
#include "read/snapshot_reader.h"
#include "read/stored_key_check.h"
#include "table/file_naming.h"
#include "table/meta_columns.h"
#include "table/record_key.h"

namespace lakeshore {

Result<StoredLocations> RecordLocationsOf(const arrow::Table& table, bool refuse_twins, const std::string& uri) {
  StoredLocations out;
  if (table.num_rows() == 0) return out;
  std::shared_ptr<arrow::Array> columns[3];
  const char* names[3] = {meta_columns::kRecordKey, meta_columns::kPartition, meta_columns::kFileName};
  for (int c = 0; c < 3; ++c) {
    auto column = table.GetColumnByName(names[c]);
    if (column == nullptr) return Status::Invalid("the rows of ", uri, " hold no ", names[c], " column");
    ARROW_ASSIGN_OR_RAISE(columns[c], CombineChunks(*column));
  }
  const auto& keys = static_cast<const arrow::StringArray&>(*columns[0]);
  const auto& partitions = static_cast<const arrow::StringArray&>(*columns[1]);
  const auto& files = static_cast<const arrow::StringArray&>(*columns[2]);
  for (int64_t i = 0; i < table.num_rows(); ++i) {
    const std::string file(files.GetView(i));
    auto parsed = ParseDataFileName(file);
    // Log records name their file id itself; base records their file.
    StoredLocation here{std::string(partitions.GetView(i)), parsed ? parsed->file_id : file};
    auto [it, fresh] = out.try_emplace(std::string(keys.GetView(i)), here);
    if (fresh) continue;
    if (refuse_twins && (it->second.partition != here.partition || it->second.file_id != here.file_id)) {
      return Status::Invalid("record key '", it->first, "' of table ", uri, " is stored twice, in file group ",
                             it->second.file_id, " of partition '", it->second.partition, "' and in file group ",
                             here.file_id, " of partition '", here.partition,
                             "' (an insert repeated it, or a partitioned index kept it in two partitions); the record "
                             "index and secondary indexes need one place per key: delete one of them first");
    }
    it->second = std::move(here);
  }
  return out;
}

Result<StoredLocations> ScanRecordLocations(TableContext& ctx, bool refuse_twins,
                                            const std::shared_ptr<arrow::Array>& only_keys) {
  ReadOptions read;
  read.columns = {meta_columns::kRecordKey, meta_columns::kPartition, meta_columns::kFileName};
  if (only_keys != nullptr) read.filter.push_back({meta_columns::kRecordKey, "in", only_keys});
  ARROW_ASSIGN_OR_RAISE(auto rows, ReadSnapshot(ctx, read));
  return RecordLocationsOf(*rows, refuse_twins, ctx.uri);
}


Result<std::shared_ptr<arrow::Table>> LookupRecords(TableContext& ctx,
                                                    const std::shared_ptr<arrow::RecordBatchReader>& keys) {
  const auto& config = ctx.config;
  ARROW_ASSIGN_OR_RAISE(auto input, ReadValidated(keys, "the lookup keys"));
  std::vector<std::shared_ptr<arrow::Field>> key_fields;
  for (const auto& k : config.record_key_fields) {
    if (input->schema()->GetFieldIndex(k) < 0) {
      return Status::Invalid("lookup keys of table ", ctx.uri, " need the record key field '", k, "'");
    }
    key_fields.push_back(config.schema->GetFieldByName(k));
  }
  ARROW_ASSIGN_OR_RAISE(auto conformed, ConformToSchema(input, arrow::schema(key_fields), "the lookup keys"));
  ARROW_ASSIGN_OR_RAISE(const bool complex, config.ComplexRecordKeys());
  ARROW_RETURN_NOT_OK(CheckStoredKeysMatchOurs(ctx));
  ARROW_ASSIGN_OR_RAISE(auto record_keys, ComputeRecordKeys(*conformed, config.record_key_fields, complex));

  const bool has_record_index = ctx.hoodie && ctx.hoodie->HasMetadataPartition("record_index");
  const std::vector<std::string_view> wanted = StringViews(*record_keys);  // views into record_keys
  // Where each asked-for key lives, from the record index (answers in the keys' order) or from
  // a scan; then one row per key.
  using Location = std::pair<std::string_view, std::string_view>;  // partition, file id
  std::vector<std::optional<RecordLocation>> indexed;
  StoredLocations scanned;
  if (has_record_index) {
    // Entries count only for completed data instants (and the index's own build).
    ARROW_ASSIGN_OR_RAISE(auto timeline, ctx.LoadTimeline());
    ARROW_ASSIGN_OR_RAISE(indexed,
                          LookupMetadataRecordIndex(ctx.storage, *ctx.engine, ValidDataInstants(timeline), wanted));
  } else {
    ARROW_ASSIGN_OR_RAISE(auto asked, CombineChunks(*record_keys));
    ARROW_ASSIGN_OR_RAISE(scanned, ScanRecordLocations(ctx, /*refuse_twins=*/false, asked));
  }
  auto locate = [&](size_t k) -> std::optional<Location> {
    if (has_record_index) {
      const auto& found = indexed[k];
      return found ? std::optional<Location>(Location(found->partition(), found->file_id())) : std::nullopt;
    }
    auto it = scanned.find(wanted[k]);
    return it == scanned.end() ? std::nullopt : std::optional<Location>(Location(it->second.partition, it->second.file_id));
  };
  std::vector<std::optional<Location>> located(wanted.size());
  // The builders are sized first: 100k appends into growing buffers copied each buffer several
  // times over.
  int64_t partition_bytes = 0, file_bytes = 0;
  for (size_t k = 0; k < wanted.size(); ++k) {
    if (const auto& loc = located[k] = locate(k)) {
      partition_bytes += static_cast<int64_t>(loc->first.size());
      file_bytes += static_cast<int64_t>(loc->second.size());
    }
  }
  arrow::StringBuilder partition_out, file_out;
  const auto rows = static_cast<int64_t>(wanted.size());
  ARROW_RETURN_NOT_OK(partition_out.Reserve(rows));
  ARROW_RETURN_NOT_OK(partition_out.ReserveData(partition_bytes));
  ARROW_RETURN_NOT_OK(file_out.Reserve(rows));
  ARROW_RETURN_NOT_OK(file_out.ReserveData(file_bytes));
  for (const auto& loc : located) {
    if (loc) {
      ARROW_RETURN_NOT_OK(partition_out.Append(loc->first));
      ARROW_RETURN_NOT_OK(file_out.Append(loc->second));
    } else {
      ARROW_RETURN_NOT_OK(partition_out.AppendNull());
      ARROW_RETURN_NOT_OK(file_out.AppendNull());
    }
  }
  std::shared_ptr<arrow::Array> p, f;
  ARROW_RETURN_NOT_OK(partition_out.Finish(&p));
  ARROW_RETURN_NOT_OK(file_out.Finish(&f));
  auto metadata = arrow::key_value_metadata({"lookup.method"}, {has_record_index ? "record_index" : "scan"});
  auto schema = arrow::schema({arrow::field("record_key", arrow::utf8(), false), arrow::field("partition", arrow::utf8()),
                               arrow::field("file_id", arrow::utf8())},
                              metadata);
  // The keys column is the computed keys themselves.
  return arrow::Table::Make(schema, {record_keys, std::make_shared<arrow::ChunkedArray>(p),
                                     std::make_shared<arrow::ChunkedArray>(f)});
}

}  // namespace lakeshore
