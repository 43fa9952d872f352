#include "read/record_lookup.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include <arrow/builder.h>
#include <arrow/util/key_value_metadata.h>

#include "io/base_file.h"
#include "io/metadata_files.h"
#include "read/snapshot_reader.h"
#include "table/file_naming.h"
#include "table/meta_columns.h"
#include "table/record_key.h"

namespace lakeshore {

Result<std::unordered_map<std::string, StoredLocation>> ScanRecordLocations(TableContext& ctx) {
  ReadOptions read;
  read.columns = {meta_columns::kRecordKey, meta_columns::kPartition, meta_columns::kFileName};
  ARROW_ASSIGN_OR_RAISE(auto rows, ReadSnapshot(ctx, read));
  ARROW_ASSIGN_OR_RAISE(rows, rows->CombineChunks());
  std::unordered_map<std::string, StoredLocation> out;
  if (rows->num_rows() == 0) return out;
  const auto& keys = static_cast<const arrow::StringArray&>(*rows->column(0)->chunk(0));
  const auto& partitions = static_cast<const arrow::StringArray&>(*rows->column(1)->chunk(0));
  const auto& files = static_cast<const arrow::StringArray&>(*rows->column(2)->chunk(0));
  for (int64_t i = 0; i < rows->num_rows(); ++i) {
    const std::string file(files.GetView(i));
    auto parsed = ParseDataFileName(file);
    // Log records name their file id itself; base records their file.
    out[std::string(keys.GetView(i))] = StoredLocation{std::string(partitions.GetView(i)), parsed ? parsed->file_id : file};
  }
  return out;
}

namespace {

}  // namespace

Result<std::shared_ptr<arrow::Table>> LookupRecords(TableContext& ctx,
                                                    const std::shared_ptr<arrow::RecordBatchReader>& keys) {
  const auto& config = ctx.config;
  ARROW_ASSIGN_OR_RAISE(auto input, keys->ToTable());
  std::vector<std::shared_ptr<arrow::Field>> key_fields;
  for (const auto& k : config.record_key_fields) {
    if (input->schema()->GetFieldIndex(k) < 0) {
      return Status::Invalid("lookup keys of table ", ctx.uri, " need the record key field '", k, "'");
    }
    key_fields.push_back(config.schema->GetFieldByName(k));
  }
  ARROW_ASSIGN_OR_RAISE(auto conformed, ConformToSchema(input, arrow::schema(key_fields), "the lookup keys"));
  const bool complex = UsesComplexKeyEncoding(config.record_key_fields.size(), config.partition_fields.size());
  ARROW_ASSIGN_OR_RAISE(auto record_keys, ComputeRecordKeys(*conformed, config.record_key_fields, complex));

  const bool has_record_index =
      ctx.hoodie && std::find(ctx.hoodie->metadata_partitions.begin(), ctx.hoodie->metadata_partitions.end(),
                              "record_index") != ctx.hoodie->metadata_partitions.end();
  std::vector<std::string> wanted;
  for (const std::string_view key : StringViews(*record_keys)) wanted.emplace_back(key);
  arrow::StringBuilder key_out, partition_out, file_out;
  if (has_record_index) {
    // Entries count only for completed data instants (and the index's own build).
    ARROW_ASSIGN_OR_RAISE(auto timeline, ctx.LoadTimeline());
    ARROW_ASSIGN_OR_RAISE(auto index,
                          ReadMetadataRecordIndex(ctx.storage, *ctx.engine, ValidDataInstants(timeline), &wanted));
    // A hash table over the found entries: one hash per asked-for key, not a tree descent.
    std::unordered_map<std::string_view, const RecordLocation*> by_key;
    by_key.reserve(index.size());
    for (const auto& [key, loc] : index) by_key.emplace(key, &loc);
    for (const std::string& key : wanted) {
      ARROW_RETURN_NOT_OK(key_out.Append(key));
      auto it = by_key.find(key);
      if (it == by_key.end()) {
        ARROW_RETURN_NOT_OK(partition_out.AppendNull());
        ARROW_RETURN_NOT_OK(file_out.AppendNull());
      } else {
        ARROW_RETURN_NOT_OK(partition_out.Append(it->second->partition));
        ARROW_RETURN_NOT_OK(file_out.Append(it->second->file_id));
      }
    }
  } else {
    ARROW_ASSIGN_OR_RAISE(auto locations, ScanRecordLocations(ctx));
    for (const std::string& key : wanted) {
      ARROW_RETURN_NOT_OK(key_out.Append(key));
      auto it = locations.find(key);
      if (it == locations.end()) {
        ARROW_RETURN_NOT_OK(partition_out.AppendNull());
        ARROW_RETURN_NOT_OK(file_out.AppendNull());
      } else {
        ARROW_RETURN_NOT_OK(partition_out.Append(it->second.partition));
        ARROW_RETURN_NOT_OK(file_out.Append(it->second.file_id));
      }
    }
  }
  std::shared_ptr<arrow::Array> k, p, f;
  ARROW_RETURN_NOT_OK(key_out.Finish(&k));
  ARROW_RETURN_NOT_OK(partition_out.Finish(&p));
  ARROW_RETURN_NOT_OK(file_out.Finish(&f));
  auto metadata = arrow::key_value_metadata({"lookup.method"}, {has_record_index ? "record_index" : "scan"});
  auto schema = arrow::schema({arrow::field("record_key", arrow::utf8(), false), arrow::field("partition", arrow::utf8()),
                               arrow::field("file_id", arrow::utf8())},
                              metadata);
  return arrow::Table::Make(schema, {k, p, f});
}

}  // namespace lakeshore
