// Internal: Arrow data from callers made safe for what reads it next: read whole and checked,
// cast to the types a table stores.
#pragma once

#include <memory>
#include <string>

#include <arrow/chunked_array.h>
#include <arrow/compute/cast.h>
#include <arrow/record_batch.h>
#include <arrow/type_fwd.h>

#include "lakeshore/status.h"

namespace lakeshore {

/// `column` as `type`, by Arrow's cast with `options`, made safe for what reads it next (the
/// Parquet writer, compute kernels, which trust an array's buffers):
/// - list views (list_view, large_list_view, at any depth: in structs, lists and map values)
///   become lists first: Arrow 25's cast from a list view yields an array whose offsets buffer
///   is one entry short, and the Parquet writer read past it (a segfault);
/// - every chunk of the result is validated (Arrow's structural Validate: buffer sizes, child
///   lengths; O(chunks), not O(rows)), so a cast kernel's malformed output is an error here.
/// - text without a zone cast to a timestamp with one names the UTC instant (Arrow's cast asks
///   for an offset), as filters and the CLI read such text.
/// Errors: the cast's own (kInvalid, kNotImplemented), or kInvalid for a malformed result.
Result<std::shared_ptr<arrow::ChunkedArray>> CastColumn(
    const std::shared_ptr<arrow::ChunkedArray>& column, const std::shared_ptr<arrow::DataType>& type,
    const arrow::compute::CastOptions& options = arrow::compute::CastOptions::Safe());

/// CastColumn of one array.
Result<std::shared_ptr<arrow::Array>> CastValues(
    const std::shared_ptr<arrow::Array>& values, const std::shared_ptr<arrow::DataType>& type,
    const arrow::compute::CastOptions& options = arrow::compute::CastOptions::Safe());

/// kInvalid naming the first changed value when `cast` (CastColumn of `from`, chunk for chunk)
/// does not hold `from`'s values. Arrow's safe cast still rounds a double into a decimal's
/// scale, drops a timestamp's time of day into a date and takes any non-zero integer as true:
/// casts between numbers, decimals, booleans and temporal types, and of nested types (structs,
/// lists, maps: every value inside them; a null struct's fields are not compared), are checked
/// by casting back and comparing (NaN equal to NaN); a dictionary by the values it encodes.
/// With `float_rounding` a float narrowed to a smaller float may round, as every float write
/// does, but not overflow to infinity (at the top level; inside nested types every value must
/// survive); without it (a filter value, which must name exactly what it matches) it may not.
/// Casts from strings (parsed) are not checked here. Cost: one cast back and one comparison.
Status CheckCastKeepsValues(const std::shared_ptr<arrow::ChunkedArray>& from,
                            const std::shared_ptr<arrow::ChunkedArray>& cast, bool float_rounding = true);

/// CastColumn to `type`, then CheckCastKeepsValues (float rounding allowed at the top level):
/// the cast a conformance of caller data to a stored type takes. Errors: the cast's, or the
/// check's kInvalid naming the first changed value. Cost: when the types differ, the cast, one
/// cast back and one comparison.
Result<std::shared_ptr<arrow::ChunkedArray>> CastColumnKeepingValues(const std::shared_ptr<arrow::ChunkedArray>& column,
                                                                     const std::shared_ptr<arrow::DataType>& type);

/// Everything `reader` yields, as one table, each chunk validated structurally (Arrow's
/// Validate: buffer sizes and child lengths against the lengths, O(chunks), not O(rows)): data
/// handed in through the Arrow C interface is not checked by anyone before us, and a buffer
/// shorter than its length says was read past by the Parquet writer and compute kernels.
/// `what` names the data in errors ("the records to write"). Errors: kInvalid, for a stream
/// whose producer failed (whatever its code: the stream is never storage) or malformed data.
Result<std::shared_ptr<arrow::Table>> ReadValidated(const std::shared_ptr<arrow::RecordBatchReader>& reader,
                                                    const std::string& what);

/// `length` nulls of `type`, storable: under a null struct, a non-nullable field holds empty
/// values (0, "", false, empty lists), not nulls. Arrow's MakeArrayOfNull leaves them null, and
/// the Parquet writer refuses that ("declared non-nullable but contains nulls"): records
/// written before a blob column was added got such a value and could not be rewritten.
Result<std::shared_ptr<arrow::Array>> NullsOf(const std::shared_ptr<arrow::DataType>& type, int64_t length);

/// A stored float read as a double the way Hudi widens it (HoodieAvroUtils rewrites a float
/// under a double schema as `Double.valueOf(value + "")`, and hudi-rs reads it alike): the
/// float's shortest decimal text read as a double, so 0.1f reads 0.1, not
/// 0.10000000149011612. NaN, the infinities and both zeros keep; the mapping keeps order (a
/// file's float bounds widen to the bounds of its widened values).
double FloatAsDouble(float value);

/// A float column as double, value by value FloatAsDouble (nulls kept): a float column of a
/// file written before the table's schema widened it. Cost: one text round trip per value.
Result<std::shared_ptr<arrow::ChunkedArray>> FloatColumnAsDouble(const arrow::ChunkedArray& column);

/// `column` as one array: its only chunk as it is, an empty array of its type when it has no
/// chunk (Arrow's Concatenate refuses none: "Must pass at least one array", which an empty
/// stream from Python gives), else its chunks concatenated. Cost: a copy only for several chunks.
Result<std::shared_ptr<arrow::Array>> CombineChunks(const arrow::ChunkedArray& column);

}  // namespace lakeshore
