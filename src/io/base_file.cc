#include "io/base_file.h"

#include <arrow/array/util.h>
#include <arrow/builder.h>
#include <arrow/util/key_value_metadata.h>
#include <arrow/compute/api.h>
#include <arrow/io/memory.h>
#include <arrow/scalar.h>
#include <arrow/util/byte_size.h>
#include <functional>
#include <thread>
#include <optional>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/schema.h>
#include <parquet/arrow/writer.h>
#include <parquet/exception.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>
#include <parquet/statistics.h>
#include <parquet/properties.h>

#include "common/arrow_cast.h"
#include "common/byte_compare.h"
#include "common/memory_pool.h"
#include "common/side_by_side.h"
#include "common/utf8.h"
#include "format/bloom_filter.h"
#include "table/meta_columns.h"

namespace lakeshore {
namespace {
Result<arrow::Compression::type> Codec(const std::string& name) {
  if (name == "snappy") return arrow::Compression::SNAPPY;
  if (name == "zstd") return arrow::Compression::ZSTD;
  if (name == "gzip") return arrow::Compression::GZIP;
  if (name == "lz4") return arrow::Compression::LZ4;
  if (name == "none") return arrow::Compression::UNCOMPRESSED;
  return Status::Invalid("unknown compression '", name, "'");
}

bool DictionaryCandidate(const arrow::DataType& type) {
  return arrow::is_primitive(type.id()) || arrow::is_base_binary_like(type.id()) ||
         arrow::is_decimal(type.id());
}

// Flat columns whose sampled values are mostly distinct: a dictionary attempt there is wasted
// work (the writer builds a dictionary, outgrows the page limit and falls back to plain
// encoding) and usually a larger file. Sampled at evenly spaced rows; cost O(sample).
Result<std::vector<std::string>> MostlyDistinctColumns(const arrow::Table& rows) {
  constexpr int64_t kSample = 4096;
  std::vector<std::string> out;
  int64_t n = rows.num_rows();
  if (n < 2 * kSample) return out;  // small files: dictionary attempts are cheap
  arrow::Int64Builder picks;
  for (int64_t i = 0; i < kSample; ++i) ARROW_RETURN_NOT_OK(picks.Append(i * (n / kSample)));
  ARROW_ASSIGN_OR_RAISE(auto indices, picks.Finish());
  for (int c = 0; c < rows.num_columns(); ++c) {
    const auto& field = rows.schema()->field(c);
    if (!DictionaryCandidate(*field->type()) || field->name() == meta_columns::kRecordKey) continue;
    ARROW_ASSIGN_OR_RAISE(auto sample, arrow::compute::Take(rows.column(c), indices));
    ARROW_ASSIGN_OR_RAISE(auto distinct, arrow::compute::CallFunction("count_distinct", {sample}));
    int64_t count = distinct.scalar_as<arrow::Int64Scalar>().value;
    if (count * 2 > kSample) out.push_back(field->name());
  }
  return out;
}

/// What Hudi's writer puts in a base file's footer, and the key range it states.
struct HudiFooterContent {
  std::shared_ptr<const arrow::KeyValueMetadata> metadata;
  /// In byte order, for Lakeshore's commit metadata and pruning; empty when the file has no keys.
  std::pair<std::string, std::string> key_range;
};

/// Byte order (std::string_view's), for KeyRange: the order Lakeshore's own key ranges, the
/// indexes and the readers' pruning compare in.
struct ByteOrder {
  static uint64_t Prefix(std::string_view key) { return BigEndianPrefix(key); }
  static int Compare(std::string_view a, std::string_view b) { return CompareBytes(a, b); }
};

/// Java's String order (common/utf8.h), for KeyRange: the order of the footer's key range,
/// which Hudi's Java readers prune files by.
struct Utf16Order {
  static uint64_t Prefix(std::string_view key) { return Utf16OrderPrefix(key); }
  static int Compare(std::string_view a, std::string_view b) { return CompareUtf16Order(a, b); }
};

/// The least and greatest of many keys in `Order`. Each key is first compared by its first
/// eight bytes read as one integer in that order; the bytes are compared only on a tie, so a
/// million unique keys cost a million integer comparisons, not two million string comparisons.
template <typename Order>
class KeyRange {
 public:
  void Add(std::string_view key) {
    const uint64_t prefix = Order::Prefix(key);
    if (!any_) {
      min_ = max_ = key;
      min_prefix_ = max_prefix_ = prefix;
      any_ = true;
      return;
    }
    if (prefix < min_prefix_ || (prefix == min_prefix_ && Order::Compare(key, min_) < 0)) {
      min_ = key;
      min_prefix_ = prefix;
    }
    if (prefix > max_prefix_ || (prefix == max_prefix_ && Order::Compare(key, max_) > 0)) {
      max_ = key;
      max_prefix_ = prefix;
    }
  }
  std::string_view min() const { return min_; }  ///< "" when no key was added
  std::string_view max() const { return max_; }

 private:
  bool any_ = false;
  std::string_view min_, max_;
  uint64_t min_prefix_ = 0, max_prefix_ = 0;
};

/// Hudi's footer: the Avro schema, the min and max record key and the bloom filter of the keys,
/// from one pass over the key column.
Result<HudiFooterContent> HudiFooter(const arrow::Table& rows, const ParquetWriteSettings& settings) {
  auto kv = std::make_shared<arrow::KeyValueMetadata>();
  HudiFooterContent out;
  out.metadata = kv;
  if (!settings.avro_schema.empty()) kv->Append("parquet.avro.schema", settings.avro_schema);
  auto keys = rows.GetColumnByName(meta_columns::kRecordKey);
  if (keys == nullptr || rows.num_rows() == 0) return out;
  std::vector<std::shared_ptr<arrow::Array>> texts;
  std::vector<std::string_view> views;
  views.reserve(static_cast<size_t>(keys->length()));
  KeyRange<ByteOrder> range;
  KeyRange<Utf16Order> java_range;  // the footer's: Java readers compare keys as Strings
  for (const auto& chunk : keys->chunks()) {
    ARROW_ASSIGN_OR_RAISE(auto text, arrow::compute::Cast(*chunk, arrow::utf8()));
    const auto& strings = static_cast<const arrow::StringArray&>(*text);
    for (int64_t i = 0; i < strings.length(); ++i) {
      if (!strings.IsValid(i)) continue;
      const std::string_view key = strings.GetView(i);
      range.Add(key);
      java_range.Add(key);
      views.push_back(key);
    }
    texts.push_back(std::move(text));
  }
  out.key_range = {std::string(range.min()), std::string(range.max())};
  kv->Append("hoodie_min_record_key", std::string(java_range.min()));
  kv->Append("hoodie_max_record_key", std::string(java_range.max()));
  if (settings.bloom_filter) {
    ARROW_ASSIGN_OR_RAISE(auto filter, format::BloomFilter::Make(format::BloomFilterType::kDynamicV0));
    // Hudi's 30 chained hashes per key are the largest part of a base file write's CPU: spread
    // them, unless other files keep the cores busy.
    filter.AddAll(views, settings.parallel_within_file
                             ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))
                             : 1);
    kv->Append("org.apache.hudi.bloomfilter", filter.Serialize());
    kv->Append("hoodie_bloom_filter_type_code", filter.type_code());
  }
  return out;
}
}  // namespace

Result<std::shared_ptr<arrow::Table>> ConformToSchema(const std::shared_ptr<arrow::Table>& table,
                                                      const std::shared_ptr<arrow::Schema>& schema,
                                                      const std::string& source) {
  if (table->schema()->Equals(*schema, /*check_metadata=*/false)) return table;
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
  for (const auto& field : schema->fields()) {
    auto column = table->GetColumnByName(field->name());
    if (column == nullptr) {
      ARROW_ASSIGN_OR_RAISE(auto nulls, NullsOf(field->type(), table->num_rows()));
      columns.push_back(std::make_shared<arrow::ChunkedArray>(nulls));
      continue;
    }
    if (column->type()->id() == arrow::Type::FLOAT && field->type()->id() == arrow::Type::DOUBLE) {
      // A float column widened by a schema change reads as Hudi and hudi-rs read it.
      ARROW_ASSIGN_OR_RAISE(column, FloatColumnAsDouble(*column));
    } else if (!column->type()->Equals(*field->type())) {
      auto cast = CastColumnKeepingValues(column, field->type());
      if (!cast.ok()) {
        return Status::Invalid(source, ": column '", field->name(), "' of type ", column->type()->ToString(),
                               " cannot be read as the table's ", field->type()->ToString(), ": ",
                               cast.status().message());
      }
      column = *cast;
    }
    columns.push_back(std::move(column));
  }
  return arrow::Table::Make(schema, std::move(columns), table->num_rows());
}

namespace {
/// What EncodeParquet wrote: the key range the Hudi footer states, and the file's metadata as
/// the writer closed it.
struct EncodedParquet {
  std::pair<std::string, std::string> key_range;
  std::shared_ptr<parquet::FileMetaData> metadata;
};

/// Encodes `rows` as one Parquet file into `sink` (not closed) with `settings`; the footer comes
/// from `footer` (run while the rows encode).
Result<EncodedParquet> EncodeParquet(
    const arrow::Table& rows, const ParquetWriteSettings& settings,
    const std::shared_ptr<arrow::io::OutputStream>& sink, bool hudi_footer) {
  ARROW_ASSIGN_OR_RAISE(auto codec, Codec(settings.compression));
  // Record keys are unique within a file, and so are many user columns (sampled): a dictionary
  // attempt there is wasted work before the writer falls back to plain encoding. The other
  // meta columns are near-constant and dictionary-encode to almost nothing.
  parquet::WriterProperties::Builder builder;
  builder.compression(codec)->max_row_group_length(settings.row_group_rows)->disable_dictionary(
      meta_columns::kRecordKey);
  // No reader prunes on the sequence number or the file name (Hudi's column stats index always
  // covers the commit time, record key and partition path, never these two): their min/max
  // would be a comparison per row for nothing (a tenth of the encoding's time).
  builder.disable_statistics(meta_columns::kCommitSeqno)->disable_statistics(meta_columns::kFileName);
  ARROW_ASSIGN_OR_RAISE(auto distinct_columns, MostlyDistinctColumns(rows));
  for (const auto& name : distinct_columns) builder.disable_dictionary(name);
  auto props = builder.build();
  // No Arrow schema in the footer: readers see Parquet's types (utf8 meta columns), as Hudi's
  // own files give them.
  auto arrow_props =
      parquet::ArrowWriterProperties::Builder().set_use_threads(settings.parallel_within_file)->build();
  // In parallel: buffered row groups, each batch's columns encoded side by side on Arrow's CPU
  // pool (WriteTable encodes them one after another). Otherwise WriteTable streams the pages.
  ARROW_ASSIGN_OR_RAISE(auto writer, parquet::arrow::FileWriter::Open(*rows.schema(), arrow::default_memory_pool(),
                                                                      sink, props, arrow_props));
  // Hudi's footer (the bloom filter's hashing above all) is computed while the rows encode.
  Status st;
  Result<HudiFooterContent> footer = Status::UnknownError("footer not computed");
  RunSideBySide(2, [&](size_t i) {
    if (i == 1) {
      if (hudi_footer) {
        footer = HudiFooter(rows, settings);
        return;
      }
      HudiFooterContent only_schema;
      auto kv = std::make_shared<arrow::KeyValueMetadata>();
      if (!settings.avro_schema.empty()) kv->Append("parquet.avro.schema", settings.avro_schema);
      only_schema.metadata = kv;
      footer = std::move(only_schema);
      return;
    }
    if (!settings.parallel_within_file) {
      st = writer->WriteTable(rows, settings.row_group_rows);
      return;
    }
    arrow::TableBatchReader batches(rows);
    batches.set_chunksize(settings.row_group_rows);
    std::shared_ptr<arrow::RecordBatch> batch;
    while (st.ok()) {
      st = batches.ReadNext(&batch);
      if (!st.ok() || batch == nullptr) break;
      st = writer->WriteRecordBatch(*batch);
    }
  });
  ARROW_RETURN_NOT_OK(st);
  ARROW_RETURN_NOT_OK(footer.status());
  ARROW_RETURN_NOT_OK(writer->AddKeyValueMetadata(footer->metadata));
  ARROW_RETURN_NOT_OK(writer->Close());
  return EncodedParquet{std::move(footer->key_range), writer->metadata()};
}
}  // namespace

ParquetWriteSettings ForFilesAtOnce(ParquetWriteSettings settings, int64_t files, int parallelism) {
  const int64_t at_once = std::min<int64_t>(std::max<int64_t>(files, 1), std::max(parallelism, 1));
  settings.parallel_within_file = at_once < static_cast<int64_t>(std::max(1u, std::thread::hardware_concurrency()));
  return settings;
}

Result<BaseFileWriteResult> WriteBaseFile(Storage& storage, const std::string& path,
                                          const arrow::Table& rows,
                                          const ParquetWriteSettings& settings) {
  ARROW_ASSIGN_OR_RAISE(auto sink, storage.OpenOutputStream(path));
  ARROW_ASSIGN_OR_RAISE(auto encoded, EncodeParquet(rows, settings, sink, /*hudi_footer=*/true));
  auto& range = encoded.key_range;
  BaseFileWriteResult result;
  ARROW_ASSIGN_OR_RAISE(result.size, sink->Tell());
  ARROW_RETURN_NOT_OK(sink->Close());  // the file appears whole, now
  result.num_records = rows.num_rows();
  result.min_record_key = std::move(range.first);
  result.max_record_key = std::move(range.second);
  return result;
}

Result<EncodedDataBlock> EncodeParquetDataBlock(const arrow::Table& rows, const ParquetWriteSettings& settings) {
  ARROW_ASSIGN_OR_RAISE(auto sink, arrow::io::BufferOutputStream::Create());
  ARROW_ASSIGN_OR_RAISE(auto encoded, EncodeParquet(rows, settings, sink, /*hudi_footer=*/false));
  EncodedDataBlock out;
  ARROW_ASSIGN_OR_RAISE(out.bytes, sink->Finish());
  ARROW_ASSIGN_OR_RAISE(out.column_stats, ParquetColumnStats(*encoded.metadata, "a new Parquet data block"));
  return out;
}

namespace {
/// A failed read of the base file `path`'s pages, naming it: a page whose CRC does not match
/// is damage (kCorruptMetadata); other failures keep their kind (a storage error stays
/// retryable).
Status DataReadError(const Status& st, const std::string& path) {
  if (st.message().find("CRC checksum") != std::string::npos) {
    return CorruptMetadata("base file '" + path + "' is damaged: " + st.message());
  }
  return st.WithMessage("base file '", path, "': ", st.message());
}
}  // namespace

parquet::ReaderProperties DataReaderProperties() {
  parquet::ReaderProperties props(ReadMemoryPool());
  props.set_page_checksum_verification(true);
  return props;
}

namespace {
/// The top-level byte-array leaves of `metadata` that every row group stores as dictionary
/// pages only (its encoding statistics say so): Hudi's near-constant meta columns, and
/// low-cardinality strings. Reading their indices and expanding the dictionary afterwards
/// (ExpandDictionaries) costs a fraction of Arrow's value-by-value decode of such pages.
std::vector<int> DictionaryOnlyLeaves(const parquet::FileMetaData& metadata) {
  std::vector<int> out;
  const parquet::SchemaDescriptor* schema = metadata.schema();
  for (int c = 0; c < schema->num_columns(); ++c) {
    const parquet::ColumnDescriptor* column = schema->Column(c);
    if (column->physical_type() != parquet::Type::BYTE_ARRAY || column->path()->ToDotVector().size() != 1) continue;
    const auto& logical = column->logical_type();
    if (logical && !logical->is_string() && !logical->is_none()) continue;  // strings and plain binaries only
    bool dictionary_only = metadata.num_row_groups() > 0;
    for (int rg = 0; rg < metadata.num_row_groups() && dictionary_only; ++rg) {
      auto chunk = metadata.RowGroup(rg)->ColumnChunk(c);
      const auto& stats = chunk->encoding_stats();
      dictionary_only = chunk->has_dictionary_page() && !stats.empty();
      for (const auto& page : stats) {
        const bool data = page.page_type == parquet::PageType::DATA_PAGE || page.page_type == parquet::PageType::DATA_PAGE_V2;
        if (data && page.encoding != parquet::Encoding::RLE_DICTIONARY && page.encoding != parquet::Encoding::PLAIN_DICTIONARY) {
          dictionary_only = false;
        }
      }
    }
    if (dictionary_only) out.push_back(c);
  }
  return out;
}

/// `table` with each dictionary column (read so by DictionaryOnlyLeaves) expanded into its
/// value type, chunk by chunk: what a plain read gives, at the cost of one gather.
Result<std::shared_ptr<arrow::Table>> ExpandDictionaries(const std::shared_ptr<arrow::Table>& table) {
  std::vector<std::shared_ptr<arrow::Field>> fields = table->schema()->fields();
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns = table->columns();
  bool any = false;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i]->type()->id() != arrow::Type::DICTIONARY) continue;
    any = true;
    const auto& value_type = static_cast<const arrow::DictionaryType&>(*fields[i]->type()).value_type();
    arrow::ArrayVector dense;
    for (const auto& chunk : columns[i]->chunks()) {
      const auto& encoded = static_cast<const arrow::DictionaryArray&>(*chunk);
      ARROW_ASSIGN_OR_RAISE(auto values, arrow::compute::Take(encoded.dictionary(), encoded.indices()));
      dense.push_back(values.make_array());
    }
    columns[i] = std::make_shared<arrow::ChunkedArray>(std::move(dense), value_type);
    fields[i] = fields[i]->WithType(value_type);
  }
  if (!any) return table;
  return arrow::Table::Make(arrow::schema(fields, table->schema()->metadata()), std::move(columns), table->num_rows());
}

/// Opens the base file `path`; with `dictionaries`, its dictionary-only string columns read as
/// dictionaries (DictionaryOnlyLeaves), for ExpandDictionaries to expand.
Result<std::unique_ptr<parquet::arrow::FileReader>> OpenBaseFile(Storage& storage, const std::string& path,
                                                                 std::optional<int64_t> size_hint,
                                                                 bool dictionaries = false) {
  ARROW_ASSIGN_OR_RAISE(auto input, storage.OpenInputFile(path, size_hint));
  parquet::ArrowReaderProperties arrow_props;
  arrow_props.set_pre_buffer(true);
  arrow_props.set_use_threads(true);
  parquet::arrow::FileReaderBuilder builder;
  Status st = builder.Open(input, DataReaderProperties());
  if (!st.ok()) return CorruptMetadata("base file '" + path + "' is not a readable Parquet file: " + st.message());
  builder.memory_pool(ReadMemoryPool());
  if (dictionaries) {
    for (int leaf : DictionaryOnlyLeaves(*builder.raw_reader()->metadata())) arrow_props.set_read_dictionary(leaf, true);
  }
  builder.properties(arrow_props);
  return builder.Build();
}
}  // namespace

Result<std::shared_ptr<arrow::Schema>> ReadBaseFileSchema(Storage& storage, const std::string& path,
                                                          std::optional<int64_t> size_hint) {
  ARROW_ASSIGN_OR_RAISE(auto reader, OpenBaseFile(storage, path, size_hint));
  std::shared_ptr<arrow::Schema> schema;
  ARROW_RETURN_NOT_OK(reader->GetSchema(&schema));
  return schema;
}

Result<std::vector<format::FileColumnStats>> ParquetColumnStats(const parquet::FileMetaData& metadata,
                                                                const std::string& source) {
  std::vector<format::FileColumnStats> columns;
  try {
  // Top-level primitive columns: a leaf whose path has one element.
  const parquet::SchemaDescriptor* schema = metadata.schema();
  for (int c = 0; c < schema->num_columns(); ++c) {
    const parquet::ColumnDescriptor* column = schema->Column(c);
    if (column->path()->ToDotVector().size() != 1) continue;
    format::FileColumnStats out;
    out.column = column->name();
    format::ColumnStatsValue& stats = out.value;
    stats.value_count = metadata.num_rows();
    bool bounded = true;
    for (int rg = 0; rg < metadata.num_row_groups(); ++rg) {
      auto chunk = metadata.RowGroup(rg)->ColumnChunk(c);
      stats.total_size += chunk->total_compressed_size();
      stats.total_uncompressed_size += chunk->total_uncompressed_size();
      auto rg_stats = chunk->statistics();
      if (!rg_stats) {
        bounded = false;
        continue;
      }
      if (rg_stats->HasNullCount()) stats.null_count += rg_stats->null_count();
      if (!rg_stats->HasMinMax()) {
        // No bound: only a row group of nulls alone may lack one.
        if (!rg_stats->HasNullCount() || rg_stats->null_count() != metadata.RowGroup(rg)->num_rows()) bounded = false;
        continue;
      }
      std::shared_ptr<arrow::Scalar> min, max;
      if (!parquet::arrow::StatisticsAsScalars(*rg_stats, &min, &max).ok() || !min || !max) {
        bounded = false;
        continue;
      }
      if (!stats.min || format::BoundBefore(min, stats.min)) stats.min = min;
      if (!stats.max || format::BoundBefore(stats.max, max)) stats.max = max;
    }
    if (!bounded) stats.min = stats.max = nullptr;
    columns.push_back(std::move(out));
  }
  } catch (const std::exception& e) {  // statistics are decoded on first access
    return CorruptMetadata(source + " has Parquet column statistics that do not decode: " + e.what());
  }
  return columns;
}

Result<BaseFileFooter> ReadBaseFileFooter(Storage& storage, const std::string& path, std::optional<int64_t> size_hint) {
  ARROW_ASSIGN_OR_RAISE(auto input, storage.OpenInputFile(path, size_hint));
  std::shared_ptr<parquet::FileMetaData> metadata;
  try {
    metadata = parquet::ReadMetaData(input);
  } catch (const std::exception& e) {
    return CorruptMetadata("base file '" + path + "' has no readable Parquet footer: " + e.what());
  }
  BaseFileFooter footer;
  footer.num_rows = metadata->num_rows();
  if (const auto& kv = metadata->key_value_metadata()) {
    for (int64_t i = 0; i < kv->size(); ++i) footer.key_value[kv->key(i)] = kv->value(i);
  }
  ARROW_ASSIGN_OR_RAISE(footer.columns, ParquetColumnStats(*metadata, "base file '" + path + "'"));
  return footer;
}

Result<std::shared_ptr<arrow::Table>> ReadBaseFile(Storage& storage, const std::string& path,
                                                   const std::vector<std::string>& columns,
                                                   std::optional<int64_t> size_hint, bool missing_ok) {
  ARROW_ASSIGN_OR_RAISE(auto reader, OpenBaseFile(storage, path, size_hint, /*dictionaries=*/true));
  // The footer's key-value metadata (Hudi's bloom filter: hundreds of KB per file) is left off
  // the result: a read of many files held one copy per file until they were concatenated.
  if (columns.empty()) {
    auto whole = reader->ReadTable();
    if (!whole.ok()) return DataReadError(whole.status(), path);
    ARROW_ASSIGN_OR_RAISE(auto expanded, ExpandDictionaries(*whole));
    return expanded->ReplaceSchemaMetadata(nullptr);
  }
  // Map each top-level column name to its Parquet leaf columns (nested types have several).
  const auto& fields = reader->manifest().schema_fields;
  std::vector<int> leaves;
  std::function<void(const parquet::arrow::SchemaField&)> collect =
      [&](const parquet::arrow::SchemaField& f) {
        if (f.is_leaf()) leaves.push_back(f.column_index);
        for (const auto& c : f.children) collect(c);
      };
  for (const auto& name : columns) {
    bool found = false;
    for (const auto& f : fields) {
      if (f.field->name() == name) {
        collect(f);
        found = true;
        break;
      }
    }
    if (!found && !missing_ok) return Status::Invalid("base file '", path, "' has no column '", name, "'");
  }
  if (leaves.empty()) {
    // None of the columns is in the file (all added since it was written): no columns, but
    // every row, for the caller to fill (reading no leaves gave a table of no rows).
    return arrow::Table::Make(arrow::schema(arrow::FieldVector{}), arrow::ChunkedArrayVector{},
                              reader->parquet_reader()->metadata()->num_rows());
  }
  auto read = reader->ReadTable(leaves);
  if (!read.ok()) return DataReadError(read.status(), path);
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Table> table, ExpandDictionaries(*read));
  // ReadTable returns columns in file order; restore the order the caller asked for.
  std::vector<int> order;
  for (const auto& name : columns) {
    const int index = table->schema()->GetFieldIndex(name);
    if (index >= 0) order.push_back(index);
  }
  ARROW_ASSIGN_OR_RAISE(table, table->SelectColumns(order));
  return table->ReplaceSchemaMetadata(nullptr);
}

}  // namespace lakeshore
