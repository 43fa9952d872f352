#include "write/write_input.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>

#include <arrow/array.h>
#include <arrow/compute/api.h>
#include <arrow/util/byte_size.h>
#include <arrow/util/hashing.h>

#include "common/arrow_cast.h"
#include "table/partition_path.h"
#include "write/blob_location.h"
#include "lakeshore/table/blob.h"
#include "table/hoodie_table_config.h"
#include "table/record_key.h"

namespace lakeshore {
namespace {
/// The path ("scores.element", "tags.value") of the first field below `array` (at `path`) that
/// is declared non-nullable and holds a null, or "". A list's, a map's or a fixed-size list's
/// values count only within its valid entries (a null entry may span hidden values, as
/// pyarrow's null fixed-size lists do; Parquet's writer skips them too); a struct's children
/// count in every row (Parquet's writer refuses a null there even under a null struct).
/// O(nested values); the values of lists with null entries are gathered once.
Result<std::string> NullBelowNonNullable(const arrow::Array& array, const std::string& path) {
  auto check = [&](const arrow::Field& field, const std::shared_ptr<arrow::Array>& child,
                   const std::string& child_path) -> Result<std::string> {
    if (!field.nullable() && child->null_count() > 0) return child_path;
    return NullBelowNonNullable(*child, child_path);
  };
  // The values of the valid entries of a list-like `array`: a slice when no entry is null.
  auto valid_values = [&]() -> Result<std::shared_ptr<arrow::Array>> {
    switch (array.type_id()) {
      case arrow::Type::LARGE_LIST: {
        const auto& l = static_cast<const arrow::LargeListArray&>(array);
        if (l.null_count() > 0) return l.Flatten();
        return l.values()->Slice(l.value_offset(0), l.value_offset(l.length()) - l.value_offset(0));
      }
      case arrow::Type::FIXED_SIZE_LIST: {
        const auto& l = static_cast<const arrow::FixedSizeListArray&>(array);
        if (l.null_count() > 0) return l.Flatten();
        return l.values()->Slice(l.value_offset(0), l.length() * l.list_type()->list_size());
      }
      default: {  // LIST, MAP
        const auto& l = static_cast<const arrow::ListArray&>(array);
        if (l.null_count() > 0) return l.Flatten();
        return l.values()->Slice(l.value_offset(0), l.value_offset(l.length()) - l.value_offset(0));
      }
    }
  };
  switch (array.type_id()) {
    case arrow::Type::STRUCT: {
      const auto& s = static_cast<const arrow::StructArray&>(array);
      for (int i = 0; i < s.num_fields(); ++i) {
        const auto& field = *s.struct_type()->field(i);
        ARROW_ASSIGN_OR_RAISE(std::string found, check(field, s.field(i), path + "." + field.name()));
        if (!found.empty()) return found;
      }
      return std::string();
    }
    case arrow::Type::MAP: {
      ARROW_ASSIGN_OR_RAISE(auto entries, valid_values());
      const auto& pairs = static_cast<const arrow::StructArray&>(*entries);
      const auto& type = static_cast<const arrow::MapType&>(*array.type());
      ARROW_ASSIGN_OR_RAISE(std::string found,
                            check(*type.key_field(), pairs.field(0), path + "." + type.key_field()->name()));
      if (!found.empty()) return found;
      return check(*type.item_field(), pairs.field(1), path + "." + type.item_field()->name());
    }
    case arrow::Type::LIST:
    case arrow::Type::LARGE_LIST:
    case arrow::Type::FIXED_SIZE_LIST: {
      const auto& value_field = *static_cast<const arrow::BaseListType&>(*array.type()).value_field();
      ARROW_ASSIGN_OR_RAISE(auto values, valid_values());
      return check(value_field, values, path + "." + value_field.name());
    }
    default:
      return std::string();
  }
}

Result<std::shared_ptr<arrow::Table>> Conform(const arrow::Table& input, const arrow::Schema& target) {
  for (int i = 0; i < input.num_columns(); ++i) {
    const auto& name = input.schema()->field(i)->name();
    if (input.schema()->GetFieldIndex(name) < 0) {
      return SchemaMismatch("the batch has column '" + name + "' twice");
    }
  }
  for (const auto& f : input.schema()->fields()) {
    if (target.GetFieldIndex(f->name()) < 0) {
      return SchemaMismatch("the batch has column '" + f->name() + "', which is not in the table schema (" +
                            target.ToString(false) + ")");
    }
  }
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
  for (const auto& field : target.fields()) {
    auto column = input.GetColumnByName(field->name());
    if (column == nullptr) {
      return SchemaMismatch("the batch has no column '" + field->name() + "' (" + field->type()->ToString() + ")");
    }
    if (!column->type()->Equals(*field->type())) {
      // The table stores Hudi's (Avro's) types: an int16 column goes in as int32, a nanosecond
      // timestamp as microseconds, ... Only lossless casts are taken (a timestamp with
      // sub-microsecond digits is refused).
      auto cast = CastColumnKeepingValues(column, field->type());
      if (!cast.ok()) {
        return SchemaMismatch("column '" + field->name() + "' has type " + column->type()->ToString() +
                              " but the table expects " + field->type()->ToString() + " (" +
                              cast.status().message() + ")");
      }
      column = *cast;
    }
    if (!field->nullable() && column->null_count() > 0) {
      return SchemaMismatch("column '" + field->name() + "' is not nullable but the batch has " +
                            std::to_string(column->null_count()) + " nulls in it");
    }
    for (const auto& chunk : column->chunks()) {
      ARROW_ASSIGN_OR_RAISE(const std::string below, NullBelowNonNullable(*chunk, field->name()));
      if (!below.empty()) {
        return SchemaMismatch("column '" + field->name() + "' has a null in '" + below +
                              "', which the table schema declares not nullable");
      }
    }
    columns.push_back(column);
  }
  return arrow::Table::Make(arrow::schema(target.fields()), std::move(columns), input.num_rows());
}

std::shared_ptr<arrow::Schema> DeleteSchema(const TableConfig& config) {
  std::vector<std::shared_ptr<arrow::Field>> fields;
  for (const auto& f : config.schema->fields()) {
    bool needed = false;
    for (const auto& k : config.record_key_fields) needed |= (k == f->name());
    for (const auto& p : config.partition_fields) needed |= (p == f->name());
    if (needed) fields.push_back(f);
  }
  return arrow::schema(std::move(fields));
}

/// The partition fields alone: what delete_partition needs.
std::shared_ptr<arrow::Schema> PartitionSchema(const TableConfig& config) {
  std::vector<std::shared_ptr<arrow::Field>> fields;
  for (const auto& p : config.partition_fields) {
    auto f = config.schema->GetFieldByName(p);
    if (f != nullptr) fields.push_back(f);
  }
  return arrow::schema(std::move(fields));
}

// Keeps, per (partition, key), the row with the largest rank (the last row when no ranks).
// Open addressing over (hash, row) slots: no allocation per row.
std::vector<int64_t> Deduplicate(const WriteInput& in, const std::vector<int64_t>* ranks) {
  const size_t n = in.record_keys.size();
  size_t capacity = 16;
  while (capacity < 2 * n) capacity <<= 1;
  const uint64_t mask = capacity - 1;
  std::vector<uint64_t> hashes(capacity);
  std::vector<int64_t> best(capacity, -1);
  for (size_t r = 0; r < n; ++r) {
    const std::string_view key = in.record_keys[r];
    const int32_t partition = in.partitions.id_of_row[r];
    const uint64_t h = arrow::internal::ComputeStringHash<0>(key.data(), static_cast<int64_t>(key.size())) ^
                       (static_cast<uint64_t>(partition) * 0x9E3779B97F4A7C15ULL);
    for (uint64_t i = h & mask;; i = (i + 1) & mask) {
      int64_t& slot = best[i];
      if (slot < 0) {
        slot = static_cast<int64_t>(r);
        hashes[i] = h;
        break;
      }
      const auto s = static_cast<size_t>(slot);
      if (hashes[i] != h || in.partitions.id_of_row[s] != partition || in.record_keys[s] != key) continue;
      if (ranks == nullptr || (*ranks)[r] > (*ranks)[s]) slot = static_cast<int64_t>(r);
      break;
    }
  }
  // The kept rows in input order: marked, then collected in one pass (not sorted).
  std::vector<char> kept(n, 0);
  size_t count = 0;
  for (int64_t r : best) {
    if (r >= 0) {
      kept[static_cast<size_t>(r)] = 1;
      ++count;
    }
  }
  std::vector<int64_t> rows;
  rows.reserve(count);
  for (size_t r = 0; r < n; ++r) {
    if (kept[r]) rows.push_back(static_cast<int64_t>(r));
  }
  return rows;
}
}  // namespace

Result<std::vector<int64_t>> StableRanks(const std::shared_ptr<arrow::ChunkedArray>& values) {
  arrow::compute::ArraySortOptions options(arrow::compute::SortOrder::Ascending,
                                           arrow::compute::NullPlacement::AtStart);
  ARROW_ASSIGN_OR_RAISE(auto indices, arrow::compute::SortIndices(*values, options));
  const auto& idx = static_cast<const arrow::UInt64Array&>(*indices);
  std::vector<uint64_t> order(idx.raw_values(), idx.raw_values() + idx.length());
  if (arrow::is_floating(values->type()->id())) {
    // Hudi compares doubles as Java's Double.compareTo: NaN above every number (Arrow places
    // NaNs beside the nulls) and -0.0 below 0.0 (Arrow ties them). NaNs go last, and within
    // the zeros the negative ones first, each in their order.
    ARROW_ASSIGN_OR_RAISE(auto wide, arrow::compute::Cast(values, arrow::float64()));
    enum : char { kOther, kNaN, kNegativeZero, kZero };
    std::vector<char> kind;
    kind.reserve(order.size());
    for (const auto& chunk : wide.chunked_array()->chunks()) {
      const auto& doubles = static_cast<const arrow::DoubleArray&>(*chunk);
      for (int64_t i = 0; i < doubles.length(); ++i) {
        const double v = doubles.IsValid(i) ? doubles.Value(i) : 1.0;
        kind.push_back(std::isnan(v) ? kNaN : (v == 0.0 ? (std::signbit(v) ? kNegativeZero : kZero) : kOther));
      }
    }
    std::stable_partition(order.begin(), order.end(), [&](uint64_t r) { return kind[r] != kNaN; });
    auto is_zero = [&](uint64_t r) { return kind[r] == kNegativeZero || kind[r] == kZero; };
    auto first = std::find_if(order.begin(), order.end(), is_zero);
    auto last = std::find_if_not(first, order.end(), is_zero);
    std::stable_partition(first, last, [&](uint64_t r) { return kind[r] == kNegativeZero; });
  }
  std::vector<int64_t> ranks(order.size());
  for (size_t i = 0; i < order.size(); ++i) ranks[order[i]] = static_cast<int64_t>(i);
  return ranks;
}

namespace {
/// Record keys and partition values end up in file names and commit metadata (JSON, UTF-8):
/// a string key or partition column must hold valid UTF-8, which data imported through the
/// Arrow C interface does not guarantee. O(bytes of those columns).
Status CheckKeyColumnsAreUtf8(const arrow::Table& table, const TableConfig& config) {
  auto check = [&](const std::string& field, const char* role) -> Status {
    auto column = table.GetColumnByName(field);
    if (column == nullptr || !arrow::is_string(column->type()->id())) return Status::OK();
    Status st = column->ValidateFull();
    if (!st.ok()) {
      return SchemaMismatch(std::string(role) + " field '" + field + "' holds a value that is not valid UTF-8: " +
                            st.message());
    }
    return Status::OK();
  };
  for (const auto& f : config.record_key_fields) ARROW_RETURN_NOT_OK(check(f, "record key"));
  for (const auto& f : config.partition_fields) ARROW_RETURN_NOT_OK(check(f, "partition"));
  return Status::OK();
}
/// True when values of `type` are or hold blobs.
bool HasBlobs(const arrow::DataType& type) {
  if (IsBlobType(type)) return true;
  for (const auto& f : type.fields()) {
    if (HasBlobs(*f->type())) return true;
  }
  return false;
}

/// Blob values must be one of RFC-100's two shapes: INLINE with data, OUT_OF_LINE with a
/// reference to a non-empty path, offsets and lengths not negative, and outside what a vacuum
/// of the table may delete (`placement`). A null blob is allowed.
/// `array` holds blobs or values with blobs inside (structs, lists, maps: each found by its
/// type), named `name` in errors.
Status CheckBlobValues(const arrow::Array& array, const std::string& name, BlobPlacement& placement) {
  const auto& type = *array.type();
  if (IsBlobType(type)) {
    const auto& blob = static_cast<const arrow::StructArray&>(array);
    const auto& kind_of = static_cast<const arrow::StringArray&>(*blob.field(0));
    const auto& data = *blob.field(1);
    const auto& reference = static_cast<const arrow::StructArray&>(*blob.field(2));
    const auto& path = static_cast<const arrow::StringArray&>(*reference.field(0));
    const auto& offset = static_cast<const arrow::Int64Array&>(*reference.field(1));
    const auto& length = static_cast<const arrow::Int64Array&>(*reference.field(2));
    for (int64_t i = 0; i < blob.length(); ++i) {
      if (blob.IsNull(i)) continue;
      auto bad = [&](const std::string& what) {
        return SchemaMismatch("blob column '" + name + "', row " + std::to_string(i) + ": " + what);
      };
      const std::string_view kind = kind_of.IsNull(i) ? std::string_view() : kind_of.GetView(i);
      if (kind == "INLINE") {
        if (data.IsNull(i)) return bad("an INLINE blob without data");
      } else if (kind == "OUT_OF_LINE") {
        if (reference.IsNull(i) || path.IsNull(i) || path.GetView(i).empty()) {
          return bad("an OUT_OF_LINE blob without a reference to a file");
        }
        if (offset.IsValid(i) && offset.Value(i) < 0) return bad("a negative offset");
        if (length.IsValid(i) && length.Value(i) < 0) return bad("a negative length");
        const Status outside = placement.Check(path.GetView(i));
        if (!outside.ok()) return bad("an OUT_OF_LINE blob " + outside.message());
      } else {
        return bad("type '" + std::string(kind) + "' is neither INLINE nor OUT_OF_LINE");
      }
    }
    return Status::OK();
  }
  switch (type.id()) {
    case arrow::Type::STRUCT: {
      const auto& fields = static_cast<const arrow::StructArray&>(array);
      for (int f = 0; f < type.num_fields(); ++f) {
        ARROW_ASSIGN_OR_RAISE(auto child, fields.GetFlattenedField(f));
        ARROW_RETURN_NOT_OK(CheckBlobValues(*child, name + "." + type.field(f)->name(), placement));
      }
      return Status::OK();
    }
    case arrow::Type::LIST:
      return CheckBlobValues(*static_cast<const arrow::ListArray&>(array).values(), name + "[]", placement);
    case arrow::Type::LARGE_LIST:
      return CheckBlobValues(*static_cast<const arrow::LargeListArray&>(array).values(), name + "[]", placement);
    case arrow::Type::MAP:
      return CheckBlobValues(*static_cast<const arrow::MapArray&>(array).items(), name + "{}", placement);
    default:
      return Status::OK();
  }
}

/// CheckBlobValues over every column of `table`.
Status CheckBlobColumns(const arrow::Table& table, const std::string& table_root,
                        const std::vector<std::string>& partition_columns) {
  std::optional<BlobPlacement> placement;  // made at the first blob column
  for (int c = 0; c < table.num_columns(); ++c) {
    if (!HasBlobs(*table.schema()->field(c)->type())) continue;
    if (!placement) {
      ARROW_ASSIGN_OR_RAISE(placement, BlobPlacement::For(table_root, partition_columns));
    }
    for (const auto& chunk : table.column(c)->chunks()) {
      ARROW_RETURN_NOT_OK(CheckBlobValues(*chunk, table.schema()->field(c)->name(), *placement));
    }
  }
  return Status::OK();
}
}  // namespace

Result<WriteInput> PrepareWriteInput(const TableConfig& config, WriteOperation op,
                                     const std::shared_ptr<arrow::RecordBatchReader>& reader,
                                     const std::string& table_root) {
  if (op == WriteOperation::kDeletePartition && config.partition_fields.empty()) {
    // Its rows name no partition, and every row fell in the table's one: each dropped it whole.
    return Status::Invalid("table '", config.name, "' is not partitioned: delete_partition drops partitions; delete "
                           "records by key, or empty the table with insert_overwrite_table");
  }
  ARROW_ASSIGN_OR_RAISE(auto raw, ReadValidated(reader, "the records to write"));
  WriteInput in;
  in.records_in = raw->num_rows();
  auto target = op == WriteOperation::kDelete            ? DeleteSchema(config)
                : op == WriteOperation::kDeletePartition ? PartitionSchema(config)
                                                         : config.schema;
  if (target != config.schema) {
    // Whole rows may name what to delete: the table's other columns are not needed (a column
    // the table does not have is still refused, below).
    for (int c = raw->num_columns() - 1; c >= 0; --c) {
      const std::string& name = raw->schema()->field(c)->name();
      if (target->GetFieldIndex(name) < 0 && config.schema->GetFieldIndex(name) >= 0) {
        ARROW_ASSIGN_OR_RAISE(raw, raw->RemoveColumn(c));
      }
    }
  }
  ARROW_ASSIGN_OR_RAISE(in.table, Conform(*raw, *target));
  if (op == WriteOperation::kDeletePartition) {
    // Only the partitions the batch names: no keys, no rows to write.
    ARROW_ASSIGN_OR_RAISE(in.partitions, ComputePartitions(*in.table, config.partition_fields,
                                                            PartitionStyle{config.hive_style_partitioning,
                                                                           config.url_encode_partitions}));
    return in;
  }
  ARROW_RETURN_NOT_OK(CheckKeyColumnsAreUtf8(*in.table, config));
  ARROW_RETURN_NOT_OK(CheckBlobColumns(*in.table, table_root, config.partition_fields));
  ARROW_ASSIGN_OR_RAISE(const bool complex_keys, config.ComplexRecordKeys());
  ARROW_ASSIGN_OR_RAISE(in.key_column, ComputeRecordKeys(*in.table, config.record_key_fields, complex_keys));
  in.record_keys = StringViews(*in.key_column);
  if (in.table->num_rows() > 0) {
    in.bytes_per_record = std::max<int64_t>(1, arrow::util::TotalBufferSize(*in.table) / in.table->num_rows());
  }
  ARROW_ASSIGN_OR_RAISE(in.partitions, ComputePartitions(*in.table, config.partition_fields,
                                                          PartitionStyle{config.hive_style_partitioning,
                                                                         config.url_encode_partitions}));
  if (op == WriteOperation::kUpsert || op == WriteOperation::kDelete) {
    std::vector<int64_t> ranks;
    bool ordered = op == WriteOperation::kUpsert && !config.ordering_field.empty();
    if (ordered) {
      ARROW_ASSIGN_OR_RAISE(ranks, StableRanks(in.table->GetColumnByName(config.ordering_field)));
    }
    in.rows = Deduplicate(in, ordered ? &ranks : nullptr);
  } else {
    in.rows.resize(static_cast<size_t>(in.table->num_rows()));
    for (size_t r = 0; r < in.rows.size(); ++r) in.rows[r] = static_cast<int64_t>(r);
  }
  return in;
}

}  // namespace lakeshore
