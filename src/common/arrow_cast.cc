#include "common/arrow_cast.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include <arrow/array.h>
#include <arrow/array/concatenate.h>
#include <arrow/buffer_builder.h>
#include <arrow/builder.h>
#include <arrow/compute/api.h>
#include <arrow/memory_pool.h>
#include <arrow/table.h>
#include <arrow/type.h>
#include <arrow/util/bitmap_ops.h>

namespace lakeshore {
namespace {

bool HasListView(const arrow::DataType& type) {
  if (type.id() == arrow::Type::LIST_VIEW || type.id() == arrow::Type::LARGE_LIST_VIEW) return true;
  for (const auto& f : type.fields()) {
    if (HasListView(*f->type())) return true;
  }
  return false;
}

/// A list view as a list of the same values: each valid entry's values gathered in order (a
/// view's entries may overlap or run out of order; a list's may not). Arrow's own
/// ListArray::FromListView (25.0) loses a sliced view's validity: every entry came out null.
template <typename ListType, typename ViewArray>
Result<std::shared_ptr<arrow::Array>> ViewAsList(const ViewArray& view, arrow::MemoryPool* pool) {
  using Offset = typename ListType::offset_type;
  const int64_t n = view.length();
  arrow::TypedBufferBuilder<Offset> offsets(pool);
  arrow::Int64Builder indices(pool);
  ARROW_RETURN_NOT_OK(offsets.Reserve(n + 1));
  int64_t end = 0;
  offsets.UnsafeAppend(0);
  for (int64_t i = 0; i < n; ++i) {
    if (view.IsValid(i)) {
      const int64_t from = view.value_offset(i);
      const int64_t size = view.value_length(i);
      if (from < 0 || size < 0 || from > view.values()->length() - size) {
        return Status::Invalid("a ", view.type()->ToString(), " entry reaches outside its values (offset ", from,
                               ", size ", size, ", values ", view.values()->length(), ")");
      }
      ARROW_RETURN_NOT_OK(indices.Reserve(size));
      for (int64_t k = 0; k < size; ++k) indices.UnsafeAppend(from + k);
      end += size;
      if (end > std::numeric_limits<Offset>::max()) {
        return Status::Invalid("a ", view.type()->ToString(), " holds more values than a list of its offsets can");
      }
    }
    offsets.UnsafeAppend(static_cast<Offset>(end));
  }
  ARROW_ASSIGN_OR_RAISE(auto index_array, indices.Finish());
  ARROW_ASSIGN_OR_RAISE(auto gathered, arrow::compute::Take(*view.values(), *index_array));
  ARROW_ASSIGN_OR_RAISE(auto offsets_buffer, offsets.Finish());
  std::shared_ptr<arrow::Buffer> validity;
  if (view.null_count() > 0) {
    ARROW_ASSIGN_OR_RAISE(validity, arrow::internal::CopyBitmap(pool, view.null_bitmap_data(), view.offset(), n));
  }
  auto type = std::make_shared<ListType>(view.type()->field(0));
  return std::make_shared<typename arrow::TypeTraits<ListType>::ArrayType>(type, n, std::move(offsets_buffer),
                                                                          std::move(gathered), std::move(validity),
                                                                          view.null_count());
}

/// `data` with every list view in it made a list (large_list for a large one), same values.
Result<std::shared_ptr<arrow::ArrayData>> ListViewsAsLists(const std::shared_ptr<arrow::ArrayData>& data) {
  const arrow::DataType& type = *data->type;
  if (!HasListView(type)) return data;
  auto* pool = arrow::default_memory_pool();
  if (type.id() == arrow::Type::LIST_VIEW) {
    ARROW_ASSIGN_OR_RAISE(auto list, ViewAsList<arrow::ListType>(arrow::ListViewArray(data), pool));
    return ListViewsAsLists(list->data());  // its values may hold list views too
  }
  if (type.id() == arrow::Type::LARGE_LIST_VIEW) {
    ARROW_ASSIGN_OR_RAISE(auto list, ViewAsList<arrow::LargeListType>(arrow::LargeListViewArray(data), pool));
    return ListViewsAsLists(list->data());
  }
  auto out = data->Copy();
  arrow::FieldVector fields;
  for (size_t i = 0; i < data->child_data.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(out->child_data[i], ListViewsAsLists(data->child_data[i]));
    fields.push_back(type.field(static_cast<int>(i))->WithType(out->child_data[i]->type));
  }
  switch (type.id()) {
    case arrow::Type::LIST:
      out->type = arrow::list(fields[0]);
      break;
    case arrow::Type::LARGE_LIST:
      out->type = arrow::large_list(fields[0]);
      break;
    case arrow::Type::FIXED_SIZE_LIST:
      out->type = arrow::fixed_size_list(fields[0], static_cast<const arrow::FixedSizeListType&>(type).list_size());
      break;
    case arrow::Type::MAP: {
      ARROW_ASSIGN_OR_RAISE(out->type,
                            arrow::MapType::Make(fields[0], static_cast<const arrow::MapType&>(type).keys_sorted()));
      break;
    }
    case arrow::Type::STRUCT:
      out->type = arrow::struct_(fields);
      break;
    default:
      return Status::NotImplemented("list views inside ", type.ToString(), " are not read");
  }
  return out;
}

Result<std::shared_ptr<arrow::Array>> CastChunk(const std::shared_ptr<arrow::Array>& chunk,
                                                const std::shared_ptr<arrow::DataType>& type,
                                                const arrow::compute::CastOptions& options) {
  ARROW_ASSIGN_OR_RAISE(auto lists, ListViewsAsLists(chunk->data()));
  auto source = arrow::MakeArray(lists);
  if (source->type_id() == arrow::Type::DICTIONARY && type->id() != arrow::Type::DICTIONARY) {
    // The dictionary cast first, then its values taken: Arrow 25 decodes no dictionary of view
    // values (polars exports a Categorical as dictionary<string_view>), and this casts each
    // distinct value once.
    const auto& dictionary = static_cast<const arrow::DictionaryArray&>(*source);
    ARROW_ASSIGN_OR_RAISE(auto values, CastChunk(dictionary.dictionary(), type, options));
    ARROW_ASSIGN_OR_RAISE(source, arrow::compute::Take(*values, *dictionary.indices()));
  }
  if (arrow::is_integer(source->type_id()) && arrow::is_decimal(type->id())) {
    // Arrow casts an integer only into a decimal with room for its type's every value (int64
    // into decimal(5, 2) was refused although 2 fits): through the widest decimal of the same
    // scale, whose cast down checks each value.
    const auto& decimal = static_cast<const arrow::DecimalType&>(*type);
    if (decimal.precision() < 38 && decimal.scale() >= 0 && decimal.scale() <= 18) {
      ARROW_ASSIGN_OR_RAISE(source, arrow::compute::Cast(*source, arrow::decimal128(38, decimal.scale()), options));
    }
  }
  std::shared_ptr<arrow::Array> cast = source;
  if (!source->type()->Equals(*type)) {
    auto direct = arrow::compute::Cast(*source, type, options);
    if (!direct.ok() && type->id() == arrow::Type::TIMESTAMP && arrow::is_string(source->type_id()) &&
        !static_cast<const arrow::TimestampType&>(*type).timezone().empty()) {
      // Text without a zone names a UTC instant (the table stores naive times as UTC, and
      // filters and the CLI read them so): parsed zone-less, then read in UTC.
      // At the column's unit, else at nanoseconds ("10:00:00.123000" into milliseconds), whose
      // cast down the safe cast refuses when it would drop a digit.
      const auto& ts = static_cast<const arrow::TimestampType&>(*type);
      for (auto unit : {ts.unit(), arrow::TimeUnit::NANO}) {
        auto naive = arrow::compute::Cast(*source, arrow::timestamp(unit), options);
        if (!naive.ok()) continue;
        direct = arrow::compute::Cast(**naive, type, options);
        break;
      }
    }
    ARROW_ASSIGN_OR_RAISE(cast, std::move(direct));
  }
  Status valid = cast->Validate();
  if (!valid.ok()) {
    return Status::Invalid("casting ", chunk->type()->ToString(), " to ", type->ToString(),
                           " gave a malformed array: ", valid.message());
  }
  return cast;
}

/// `length` empty values of `type`, none null (structs hold empty values all the way down).
Result<std::shared_ptr<arrow::Array>> EmptyValuesOf(const std::shared_ptr<arrow::DataType>& type, int64_t length) {
  ARROW_ASSIGN_OR_RAISE(auto builder, arrow::MakeBuilder(type));
  ARROW_RETURN_NOT_OK(builder->AppendEmptyValues(length));
  return builder->Finish();
}
}  // namespace

Result<std::shared_ptr<arrow::Array>> NullsOf(const std::shared_ptr<arrow::DataType>& type, int64_t length) {
  if (type->id() != arrow::Type::STRUCT) return arrow::MakeArrayOfNull(type, length);
  arrow::ArrayVector children;
  for (const auto& f : type->fields()) {
    ARROW_ASSIGN_OR_RAISE(auto child, f->nullable() ? NullsOf(f->type(), length) : EmptyValuesOf(f->type(), length));
    children.push_back(std::move(child));
  }
  ARROW_ASSIGN_OR_RAISE(auto validity, arrow::AllocateEmptyBitmap(length));  // all null
  return std::make_shared<arrow::StructArray>(type, length, std::move(children), std::move(validity), length);
}

Result<std::shared_ptr<arrow::Table>> ReadValidated(const std::shared_ptr<arrow::RecordBatchReader>& reader,
                                                    const std::string& what) {
  auto read = reader->ToTable();
  // The stream is the caller's (its producer failed: a query's error, a generator's), never
  // this table's storage, whatever code the producer gave.
  if (!read.ok()) return Status::Invalid(what, ": their Arrow stream failed: ", read.status().message());
  std::shared_ptr<arrow::Table> table = std::move(*read);
  Status valid = table->Validate();
  if (!valid.ok()) return Status::Invalid(what, " are malformed Arrow data: ", valid.message());
  return table;
}

Result<std::shared_ptr<arrow::Array>> CastValues(const std::shared_ptr<arrow::Array>& values,
                                                 const std::shared_ptr<arrow::DataType>& type,
                                                 const arrow::compute::CastOptions& options) {
  return CastChunk(values, type, options);
}

Result<std::shared_ptr<arrow::ChunkedArray>> CastColumn(const std::shared_ptr<arrow::ChunkedArray>& column,
                                                        const std::shared_ptr<arrow::DataType>& type,
                                                        const arrow::compute::CastOptions& options) {
  arrow::ArrayVector chunks;
  chunks.reserve(column->chunks().size());
  for (const auto& chunk : column->chunks()) {
    ARROW_ASSIGN_OR_RAISE(auto cast, CastChunk(chunk, type, options));
    chunks.push_back(std::move(cast));
  }
  return arrow::ChunkedArray::Make(std::move(chunks), type);
}

namespace {
bool IsScalarValueType(const arrow::DataType& type) {
  return arrow::is_numeric(type.id()) || arrow::is_decimal(type.id()) || type.id() == arrow::Type::BOOL ||
         arrow::is_temporal(type.id());
}

/// The first row where `a` and `b` (same length and chunking) differ by `equal`, else -1.
Result<int64_t> FirstDifference(const arrow::ChunkedArray& a, const arrow::ChunkedArray& b,
                                const arrow::EqualOptions& equal) {
  int64_t base = 0;
  for (int c = 0; c < a.num_chunks(); ++c) {
    const auto& x = *a.chunk(c);
    const auto& y = *b.chunk(c);
    if (x.length() != y.length()) return Status::Invalid("a cast changed a chunk's length");
    if (!x.Equals(y, equal)) {
      for (int64_t r = 0; r < x.length(); ++r) {
        if (!x.RangeEquals(r, r + 1, r, y, equal)) return base + r;
      }
    }
    base += x.length();
  }
  return -1;
}

std::string ValueAt(const arrow::ChunkedArray& column, int64_t row) {
  auto scalar = column.GetScalar(row);
  return scalar.ok() ? (*scalar)->ToString() : std::string("?");
}
}  // namespace

Status CheckCastKeepsValues(const std::shared_ptr<arrow::ChunkedArray>& from,
                            const std::shared_ptr<arrow::ChunkedArray>& cast, bool float_rounding) {
  if (from->num_chunks() != cast->num_chunks()) return Status::Invalid("a cast changed the column's chunks");
  // A dictionary is compared by the values it encodes.
  std::shared_ptr<arrow::ChunkedArray> source = from;
  if (from->type()->id() == arrow::Type::DICTIONARY) {
    const auto& values_type = *static_cast<const arrow::DictionaryType&>(*from->type()).value_type();
    if (!IsScalarValueType(values_type) && !arrow::is_nested(values_type.id())) return Status::OK();  // text
    arrow::ArrayVector decoded;
    for (const auto& chunk : from->chunks()) {
      const auto& dictionary = static_cast<const arrow::DictionaryArray&>(*chunk);
      ARROW_ASSIGN_OR_RAISE(auto values, arrow::compute::Take(*dictionary.dictionary(), *dictionary.indices()));
      decoded.push_back(std::move(values));
    }
    ARROW_ASSIGN_OR_RAISE(source, arrow::ChunkedArray::Make(std::move(decoded),
                                                            static_cast<const arrow::DictionaryType&>(*from->type()).value_type()));
  }
  const auto& type = *source->type();
  if (type.id() == arrow::Type::STRING && arrow::is_floating(cast->type()->id())) {
    // Text parsed into a float: a number it cannot hold came out infinite; only text naming
    // an infinity may.
    ARROW_ASSIGN_OR_RAISE(auto finite, arrow::compute::CallFunction("is_finite", {cast}));
    int64_t row = 0;
    for (int c = 0; c < source->num_chunks(); ++c) {
      const auto& text = static_cast<const arrow::StringArray&>(*source->chunk(c));
      const auto& flags = static_cast<const arrow::BooleanArray&>(*finite.chunked_array()->chunk(c));
      for (int64_t i = 0; i < text.length(); ++i, ++row) {
        if (!flags.IsValid(i) || flags.Value(i)) continue;
        std::string value(text.GetView(i));
        std::transform(value.begin(), value.end(), value.begin(), [](unsigned char ch) { return std::tolower(ch); });
        if (value.find("inf") != std::string::npos || value.find("nan") != std::string::npos) continue;
        return Status::Invalid("the value '", text.GetView(i), "' (row ", row, ") would be stored as ",
                               ValueAt(*cast, row), ", which loses information");
      }
    }
    return Status::OK();
  }
  const bool scalar = IsScalarValueType(type) && IsScalarValueType(*cast->type());
  const bool nested = arrow::is_nested(type.id()) && arrow::is_nested(cast->type()->id());
  if (!scalar && !nested) return Status::OK();
  auto back = CastColumn(cast, source->type());
  if (!back.ok()) return Status::OK();  // no way back to compare by (a value of another kind)
  const auto equal = arrow::EqualOptions::Defaults().nans_equal(true);
  int64_t changed = -1;
  if (float_rounding && scalar && arrow::is_floating(type.id()) && arrow::is_floating(cast->type()->id())) {
    // Rounding to the narrower float is what storing it means; overflowing to infinity is not.
    ARROW_ASSIGN_OR_RAISE(auto finite_before, arrow::compute::CallFunction("is_finite", {source}));
    ARROW_ASSIGN_OR_RAISE(auto finite_after, arrow::compute::CallFunction("is_finite", {*back}));
    ARROW_ASSIGN_OR_RAISE(changed, FirstDifference(*finite_before.chunked_array(), *finite_after.chunked_array(), equal));
  } else {
    ARROW_ASSIGN_OR_RAISE(changed, FirstDifference(*source, **back, equal));
  }
  if (changed < 0) return Status::OK();
  return Status::Invalid("the value ", ValueAt(*source, changed), " (row ", changed, ") would be stored as ",
                         ValueAt(*cast, changed), ", which loses information");
}

Result<std::shared_ptr<arrow::ChunkedArray>> CastColumnKeepingValues(const std::shared_ptr<arrow::ChunkedArray>& column,
                                                                     const std::shared_ptr<arrow::DataType>& type) {
  ARROW_ASSIGN_OR_RAISE(auto cast, CastColumn(column, type));
  ARROW_RETURN_NOT_OK(CheckCastKeepsValues(column, cast));
  return cast;
}

double FloatAsDouble(float value) {
  if (!std::isfinite(value) || value == 0.0f) return static_cast<double>(value);
  char text[64];
  const auto written = std::to_chars(text, text + sizeof(text), value);  // shortest round trip
  double out = static_cast<double>(value);
  std::from_chars(text, written.ptr, out);
  return out;
}

Result<std::shared_ptr<arrow::ChunkedArray>> FloatColumnAsDouble(const arrow::ChunkedArray& column) {
  if (column.type()->id() != arrow::Type::FLOAT) {
    return Status::Invalid("FloatColumnAsDouble of a ", column.type()->ToString(), " column");
  }
  arrow::ArrayVector chunks;
  for (const auto& chunk : column.chunks()) {
    const auto& floats = static_cast<const arrow::FloatArray&>(*chunk);
    arrow::DoubleBuilder builder;
    ARROW_RETURN_NOT_OK(builder.Reserve(floats.length()));
    for (int64_t i = 0; i < floats.length(); ++i) {
      if (floats.IsNull(i)) {
        builder.UnsafeAppendNull();
      } else {
        builder.UnsafeAppend(FloatAsDouble(floats.Value(i)));
      }
    }
    ARROW_ASSIGN_OR_RAISE(auto widened, builder.Finish());
    chunks.push_back(std::move(widened));
  }
  return std::make_shared<arrow::ChunkedArray>(std::move(chunks), arrow::float64());
}

Result<std::shared_ptr<arrow::Array>> CombineChunks(const arrow::ChunkedArray& column) {
  if (column.num_chunks() == 0) return arrow::MakeEmptyArray(column.type());
  if (column.num_chunks() == 1) return column.chunk(0);
  return arrow::Concatenate(column.chunks());
}

}  // namespace lakeshore
