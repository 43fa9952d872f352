#include "io/log_file.h"

#include <arrow/compute/api.h>
#include <arrow/io/memory.h>
#include <arrow/util/byte_size.h>
#include <parquet/arrow/reader.h>

#include "format/avro_container.h"
#include "io/base_file.h"
#include "format/avro_schema.h"
#include "format/hoodie_avro_schemas.h"
#include "format/hfile.h"
#include "format/json_arrow.h"

namespace lakeshore {
namespace {

using format::LogBlock;
using format::LogBlockType;
using format::LogHeaderKey;

/// Big-endian int32 at `pos` of `content`; false past its end.
bool Int32At(std::string_view content, size_t pos, int32_t* out) {
  if (pos + 4 > content.size()) return false;
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(content[pos + i]);
  *out = static_cast<int32_t>(v);
  return true;
}

Status BadBlock(const std::string& source, const LogBlock& block, const std::string& what) {
  return CorruptMetadata("log file " + source + ", block at byte " + std::to_string(block.offset) + ": " + what);
}

/// HoodieAvroDataBlock: int32 version, int32 record count (version >= 2), then per record an
/// int32 length and the record in Avro's binary encoding under the SCHEMA header.
Result<std::shared_ptr<arrow::Table>> DecodeAvroBlock(const LogBlock& block, const std::string& source) {
  const std::string& schema_json = block.Header(LogHeaderKey::kSchema);
  if (schema_json.empty()) return BadBlock(source, block, "an Avro data block without a schema header");
  std::string_view content = block.content;
  int32_t version = 0, count = 0;
  if (!Int32At(content, 0, &version)) return BadBlock(source, block, "truncated Avro data block");
  size_t pos = 4;
  if (version >= 2) {
    if (!Int32At(content, 4, &count) || count < 0) return BadBlock(source, block, "bad record count");
    pos = 8;
  } else {
    count = -1;  // version 1: records until the end
  }
  std::vector<std::string_view> datums;
  while (pos < content.size() && (count < 0 || static_cast<int32_t>(datums.size()) < count)) {
    int32_t length = 0;
    if (!Int32At(content, pos, &length) || length < 0 || pos + 4 + static_cast<size_t>(length) > content.size()) {
      return BadBlock(source, block, "a record runs past the end of its block");
    }
    datums.push_back(content.substr(pos + 4, static_cast<size_t>(length)));
    pos += 4 + static_cast<size_t>(length);
  }
  if (count >= 0 && static_cast<int32_t>(datums.size()) != count) {
    return BadBlock(source, block, "the block holds fewer records than it says");
  }
  const std::string where = "log file " + source + ", block at byte " + std::to_string(block.offset);
  ARROW_ASSIGN_OR_RAISE(auto records, format::ReadAvroDatums(schema_json, datums, where));
  ARROW_ASSIGN_OR_RAISE(auto schema, format::AvroSchemaToArrow(schema_json, where));
  ARROW_ASSIGN_OR_RAISE(auto batch, format::JsonRecordsToArrow(records, schema, where));
  return arrow::Table::FromRecordBatches(schema, {batch});
}

/// The content of `block` of the log file `file`, sharing its memory.
std::shared_ptr<arrow::Buffer> BlockContent(const std::shared_ptr<arrow::Buffer>& file, const LogBlock& block) {
  const int64_t start = block.content.data() - reinterpret_cast<const char*>(file->data());
  return arrow::SliceBuffer(file, start, static_cast<int64_t>(block.content.size()));
}

/// HoodieParquetDataBlock: the content is a whole Parquet file.
Result<std::shared_ptr<arrow::Table>> DecodeParquetBlock(const std::shared_ptr<arrow::Buffer>& file,
                                                         const LogBlock& block, const std::string& source) {
  auto content = BlockContent(file, block);
  parquet::arrow::FileReaderBuilder builder;
  Status st = builder.Open(std::make_shared<arrow::io::BufferReader>(content), DataReaderProperties());
  if (!st.ok()) return BadBlock(source, block, "the Parquet data block does not open: " + st.message());
  std::unique_ptr<parquet::arrow::FileReader> reader;
  ARROW_ASSIGN_OR_RAISE(reader, builder.Build());
  auto table = reader->ReadTable();
  if (!table.ok()) return BadBlock(source, block, "the Parquet data block does not read: " + table.status().message());
  return table;
}

/// The column statistics of a Parquet data block, from its own footer.
Result<std::vector<format::FileColumnStats>> ParquetBlockColumnStats(const std::shared_ptr<arrow::Buffer>& content,
                                                                   const std::string& where) {
  std::shared_ptr<parquet::FileMetaData> metadata;
  try {
    metadata = parquet::ReadMetaData(std::make_shared<arrow::io::BufferReader>(content));
  } catch (const std::exception& e) {
    return CorruptMetadata(where + ": the Parquet data block has no readable footer: " + e.what());
  }
  return ParquetColumnStats(*metadata, where);
}

/// The column statistics of decoded records (an Avro data block's), as ParquetColumnStats gives
/// them for a Parquet file: each top-level column of a primitive type, its min and max (absent
/// when every value is null; NaN ignored, as Parquet's statistics ignore it), nulls, values and
/// the column's Arrow bytes as its sizes.
Result<std::vector<format::FileColumnStats>> RecordsColumnStats(const arrow::Table& records) {
  std::vector<format::FileColumnStats> out;
  for (int c = 0; c < records.num_columns(); ++c) {
    const auto& field = records.schema()->field(c);
    if (arrow::is_nested(field->type()->id()) || arrow::is_dictionary(field->type()->id())) continue;
    const auto& column = records.column(c);
    format::FileColumnStats stats;
    stats.column = field->name();
    stats.value.value_count = records.num_rows();
    stats.value.null_count = column->null_count();
    int64_t bytes = 0;
    for (const auto& chunk : column->chunks()) bytes += arrow::util::TotalBufferSize(*chunk->data());
    stats.value.total_size = stats.value.total_uncompressed_size = bytes;
    if (stats.value.null_count < stats.value.value_count) {
      auto minmax = arrow::compute::MinMax(column);
      if (minmax.ok()) {
        const auto& pair = static_cast<const arrow::StructScalar&>(*minmax->scalar());
        if (pair.is_valid && pair.value.size() == 2 && pair.value[0]->is_valid && pair.value[1]->is_valid) {
          stats.value.min = pair.value[0];
          stats.value.max = pair.value[1];
        }
      }
    }
    out.push_back(std::move(stats));
  }
  return out;
}

/// HoodieHFileDataBlock: the content is a whole HFile whose values are Avro records under the
/// block's SCHEMA header.
/// The HFile an HFile data block holds.
Result<std::shared_ptr<format::HFileReader>> OpenHFileBlock(const std::shared_ptr<arrow::Buffer>& file,
                                                           const LogBlock& block, const std::string& source) {
  const std::string where = "log file " + source + ", block at byte " + std::to_string(block.offset);
  return format::HFileReader::Open(BlockContent(file, block), where);
}

Result<std::vector<std::pair<std::string, nlohmann::json>>> DecodeHFileBlock(
    const std::shared_ptr<arrow::Buffer>& file, const LogBlock& block, const std::string& source) {
  const std::string& schema_json = block.Header(LogHeaderKey::kSchema);
  if (schema_json.empty()) return BadBlock(source, block, "an HFile data block without a schema header");
  const std::string where = "log file " + source + ", block at byte " + std::to_string(block.offset);
  ARROW_ASSIGN_OR_RAISE(auto reader, OpenHFileBlock(file, block, source));
  std::vector<std::pair<std::string, nlohmann::json>> out;
  ARROW_ASSIGN_OR_RAISE(auto decoder, format::AvroDatumReader::Make(schema_json, where));
  // Values are decoded while the scan holds their block.
  ARROW_RETURN_NOT_OK(reader->Scan([&](std::string_view key, std::string_view value) -> Status {
    ARROW_ASSIGN_OR_RAISE(auto record, decoder->Read(value));
    out.emplace_back(std::string(key), std::move(record));
    return Status::OK();
  }));
  return out;
}

/// HoodieDeleteBlock: int32 version, then (version 3) int32 length and an Avro
/// HoodieDeleteRecordList; versions 1 and 2 are Kryo-serialized Java objects.
Result<std::vector<LogDelete>> DecodeDeleteBlock(const LogBlock& block, const std::string& source) {
  int32_t version = 0, length = 0;
  if (!Int32At(block.content, 0, &version)) return BadBlock(source, block, "truncated delete block");
  if (version < 3) {
    return UnsupportedFeature("log file " + source + " has a delete block of version " + std::to_string(version) +
                              " (Java Kryo serialization), which this build cannot read");
  }
  if (!Int32At(block.content, 4, &length) || length < 0 || 8 + static_cast<size_t>(length) > block.content.size()) {
    return BadBlock(source, block, "the delete list runs past the end of its block");
  }
  ARROW_ASSIGN_OR_RAISE(std::string schema, format::HoodieAvroSchema("HoodieDeleteRecordList"));
  const std::string where = "log file " + source + ", block at byte " + std::to_string(block.offset);
  ARROW_ASSIGN_OR_RAISE(auto lists, format::ReadAvroDatums(schema, {block.content.substr(8, static_cast<size_t>(length))}, where));
  std::vector<LogDelete> out;
  const nlohmann::json& list = lists[0];  // one datum in, one record out
  auto requests_it = list.find("deleteRecordList");
  if (requests_it == list.end() || !requests_it->is_array()) return BadBlock(source, block, "the delete list has no deleteRecordList");
  const nlohmann::json& requests = *requests_it;
  for (const auto& r : requests) {
    LogDelete d;
    auto key = r.is_object() ? r.find("recordKey") : r.end();
    if (!r.is_object() || key == r.end() || !key->is_string()) {
      return BadBlock(source, block, "a delete request has no record key");
    }
    d.record_key = key->get<std::string>();
    auto partition = r.find("partitionPath");
    if (partition != r.end() && partition->is_string()) d.partition_path = partition->get<std::string>();
    // orderingVal is a union of wrapper records {value: ...}.
    auto ordering = r.find("orderingVal");
    if (ordering != r.end() && ordering->is_object()) {
      auto value = ordering->find("value");
      if (value != ordering->end()) d.ordering_value = *value;
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

namespace {
std::string BigEndian32(int32_t v) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[static_cast<size_t>(i)] = static_cast<char>((static_cast<uint32_t>(v) >> (24 - 8 * i)) & 0xff);
  return out;
}
}  // namespace

namespace {
/// A delete block (version 3: an Avro HoodieDeleteRecordList; ordering values written as
/// absent, so a delete wins over any earlier version) with `header`.
Result<std::string> RenderDeleteBlock(const std::map<int32_t, std::string>& header,
                                      const std::vector<LogDelete>& deletes) {
  nlohmann::json list = nlohmann::json::array();
  for (const LogDelete& d : deletes) {
    list.push_back({{"recordKey", d.record_key}, {"partitionPath", d.partition_path}, {"orderingVal", nullptr}});
  }
  ARROW_ASSIGN_OR_RAISE(std::string schema, format::HoodieAvroSchema("HoodieDeleteRecordList"));
  ARROW_ASSIGN_OR_RAISE(std::string datum, format::WriteAvroDatum(schema, {{"deleteRecordList", list}}));
  const std::string block = BigEndian32(3) + BigEndian32(static_cast<int32_t>(datum.size())) + datum;
  return format::RenderLogBlock(LogBlockType::kDelete, header, block);
}

std::map<int32_t, std::string> BlockHeader(const std::string& instant_time, const std::string& avro_schema) {
  return {{static_cast<int32_t>(LogHeaderKey::kInstantTime), instant_time},
          {static_cast<int32_t>(LogHeaderKey::kSchema), avro_schema}};
}
}  // namespace

Result<WrittenLogFile> WriteLogFile(Storage& storage, const std::string& path, const LogFileContent& content,
                                    const ParquetWriteSettings& parquet) {
  WrittenLogFile written;
  const bool has_records = content.records != nullptr && content.records->num_rows() > 0;
  if (!has_records && content.deletes.empty()) return Status::Invalid("log file ", path, " would hold nothing");
  const auto header = BlockHeader(content.instant_time, content.avro_schema);
  std::string bytes;
  if (has_records) {
    ParquetWriteSettings block_settings = parquet;
    block_settings.avro_schema = content.avro_schema;
    ARROW_ASSIGN_OR_RAISE(auto encoded, EncodeParquetDataBlock(*content.records, block_settings));
    bytes += format::RenderLogBlock(LogBlockType::kParquetData, header, std::string_view(*encoded.bytes));
    written.column_stats = std::move(encoded.column_stats);
  }
  if (!content.deletes.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto block, RenderDeleteBlock(header, content.deletes));
    bytes += block;
  }
  written.size = static_cast<int64_t>(bytes.size());
  ARROW_RETURN_NOT_OK(storage.WriteString(path, bytes));
  return written;
}

Result<std::vector<format::FileColumnStats>> LogFileColumnStats(Storage& storage, const std::string& path) {
  ARROW_ASSIGN_OR_RAISE(auto file, storage.ReadFile(path));
  const std::string source = storage.root_uri() + "/" + path;
  const std::string_view bytes(reinterpret_cast<const char*>(file->data()), static_cast<size_t>(file->size()));
  ARROW_ASSIGN_OR_RAISE(auto blocks, format::ReadLogBlocks(bytes, source));
  const LogBlock* data = nullptr;
  for (const LogBlock& block : blocks) {
    if (block.type == LogBlockType::kCorrupt || block.type == LogBlockType::kDelete) continue;
    const bool records = block.type == LogBlockType::kParquetData || block.type == LogBlockType::kAvroData;
    if (!records || data != nullptr) return std::vector<format::FileColumnStats>();
    data = &block;
  }
  if (data == nullptr) return std::vector<format::FileColumnStats>();
  if (data->type == LogBlockType::kAvroData) {
    // No statistics stored: computed from the block's records, decoded under its schema.
    ARROW_ASSIGN_OR_RAISE(auto decoded, DecodeAvroBlock(*data, source));
    return RecordsColumnStats(*decoded);
  }
  ARROW_ASSIGN_OR_RAISE(auto stats, ParquetBlockColumnStats(BlockContent(file, *data), "log file " + source +
                                                                                        ", block at byte " +
                                                                                        std::to_string(data->offset)));
  return stats;
}

Result<std::string> RenderKeyedLogFile(const KeyedLogContent& content) {
  if (content.hfile.empty() && content.deletes.empty()) return Status::Invalid("a log file would hold nothing");
  const auto header = BlockHeader(content.instant_time, content.avro_schema);
  std::string bytes;
  if (!content.hfile.empty()) bytes += format::RenderLogBlock(LogBlockType::kHFileData, header, content.hfile);
  if (!content.deletes.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto block, RenderDeleteBlock(header, content.deletes));
    bytes += block;
  }
  return bytes;
}

Result<std::vector<LogFileBlock>> ReadLogFile(Storage& storage, const std::string& path, bool decode_hfile) {
  ARROW_ASSIGN_OR_RAISE(auto file, storage.ReadFile(path));
  const std::string source = storage.root_uri() + "/" + path;
  const std::string_view bytes(reinterpret_cast<const char*>(file->data()), static_cast<size_t>(file->size()));
  ARROW_ASSIGN_OR_RAISE(auto blocks, format::ReadLogBlocks(bytes, source));
  std::vector<LogFileBlock> out;
  out.reserve(blocks.size());
  for (const LogBlock& block : blocks) {
    LogFileBlock decoded;
    decoded.type = block.type;
    decoded.instant_time = block.instant_time();
    switch (block.type) {
      case LogBlockType::kCorrupt:
        break;
      case LogBlockType::kAvroData: {
        ARROW_ASSIGN_OR_RAISE(decoded.records, DecodeAvroBlock(block, source));
        break;
      }
      case LogBlockType::kParquetData: {
        ARROW_ASSIGN_OR_RAISE(decoded.records, DecodeParquetBlock(file, block, source));
        break;
      }
      case LogBlockType::kHFileData: {
        if (decode_hfile) {
          ARROW_ASSIGN_OR_RAISE(decoded.keyed_records, DecodeHFileBlock(file, block, source));
        } else {
          ARROW_ASSIGN_OR_RAISE(decoded.hfile, OpenHFileBlock(file, block, source));
          decoded.hfile_schema = block.Header(LogHeaderKey::kSchema);
          if (decoded.hfile_schema.empty()) return BadBlock(source, block, "an HFile data block without a schema header");
        }
        break;
      }
      case LogBlockType::kDelete: {
        ARROW_ASSIGN_OR_RAISE(decoded.deletes, DecodeDeleteBlock(block, source));
        break;
      }
      case LogBlockType::kCommand:
        decoded.target_instant_time = block.Header(LogHeaderKey::kTargetInstantTime);
        decoded.is_rollback = block.Header(LogHeaderKey::kCommandBlockType) == "0";
        break;
      default:
        return UnsupportedFeature("log file " + source + " has a block of type " +
                                  std::to_string(static_cast<int32_t>(block.type)) +
                                  " (CDC data), which this build does not read");
    }
    out.push_back(std::move(decoded));
  }
  return out;
}

}  // namespace lakeshore
