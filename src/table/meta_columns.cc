#include "table/meta_columns.h"

#include <arrow/builder.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <arrow/scalar.h>

namespace lakeshore::meta_columns {

bool IsReserved(const std::string& name) { return name.rfind("_hoodie_", 0) == 0; }

std::shared_ptr<arrow::DataType> ConstantType() {
  static const auto type = arrow::dictionary(arrow::int32(), arrow::utf8());
  return type;
}

namespace {
/// `length` int32 zeros: a slice of one zeroed buffer the process keeps (grown to the longest
/// request), so the three constant columns of every file written share it instead of each
/// allocating and filling its own. Buffers are immutable; the slice keeps its buffer alive.
Result<std::shared_ptr<arrow::Array>> ZeroIndices(int64_t length) {
  static std::mutex mu;
  // Never destroyed: released at exit it would return memory to a pool already torn down.
  static auto* zeros = new std::shared_ptr<arrow::Buffer>();
  const int64_t bytes = length * static_cast<int64_t>(sizeof(int32_t));
  std::shared_ptr<arrow::Buffer> buffer;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (*zeros == nullptr || (*zeros)->size() < bytes) {
      ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Buffer> fresh, arrow::AllocateBuffer(bytes));
      std::memset(fresh->mutable_data(), 0, static_cast<size_t>(bytes));
      *zeros = std::move(fresh);
    }
    buffer = *zeros;
  }
  return std::make_shared<arrow::Int32Array>(length, arrow::SliceBuffer(buffer, 0, bytes));
}
}  // namespace

Result<std::shared_ptr<arrow::Array>> MakeConstantColumn(const std::string& value, int64_t length) {
  if (length < 0 || length > std::numeric_limits<int64_t>::max() / 4) return Status::Invalid("constant column of ", length, " rows");
  ARROW_ASSIGN_OR_RAISE(auto dictionary, arrow::MakeArrayFromScalar(arrow::StringScalar(value), 1));
  ARROW_ASSIGN_OR_RAISE(auto zeros, ZeroIndices(length));
  return arrow::DictionaryArray::FromArrays(ConstantType(), zeros, dictionary);
}

const std::vector<std::shared_ptr<arrow::Field>>& Fields() {
  static const std::vector<std::shared_ptr<arrow::Field>> fields = {
      arrow::field(kCommitTime, arrow::utf8()), arrow::field(kCommitSeqno, arrow::utf8()),
      arrow::field(kRecordKey, arrow::utf8()), arrow::field(kPartition, arrow::utf8()),
      arrow::field(kFileName, arrow::utf8())};
  return fields;
}

namespace {
/// The decimal digits of every value in [first, first + n): the characters their row numbers
/// take. first >= 0.
int64_t DigitsOfRange(int64_t first, int64_t n) {
  const int64_t end = first + n;  // exclusive
  int64_t total = 0;
  int64_t low = 0, high = 10;  // the values with `digits` digits: [low, high)
  for (int64_t digits = 1;; ++digits) {
    const int64_t from = std::max(first, low), to = std::min(end, high);
    if (from < to) total += (to - from) * digits;
    if (high >= end || digits == 19) return total;
    low = high;
    high = digits == 18 ? INT64_MAX : high * 10;
  }
}

/// The seqno values of rows first..first+n-1, offsets of `Offset` width, into exactly sized
/// buffers: one pass, no copy.
template <typename Offset, typename ArrayType>
Result<std::shared_ptr<arrow::Array>> FillSeqno(const std::string& prefix, int64_t first, int64_t n, int64_t bytes) {
  ARROW_ASSIGN_OR_RAISE(auto offsets, arrow::AllocateBuffer((n + 1) * static_cast<int64_t>(sizeof(Offset))));
  ARROW_ASSIGN_OR_RAISE(auto data, arrow::AllocateBuffer(bytes));
  auto* off = reinterpret_cast<Offset*>(offsets->mutable_data());
  char* begin = reinterpret_cast<char*>(data->mutable_data());
  char* end = begin + bytes;
  char* pos = begin;
  for (int64_t i = 0; i < n; ++i) {
    off[i] = static_cast<Offset>(pos - begin);
    std::memcpy(pos, prefix.data(), prefix.size());
    pos = std::to_chars(pos + prefix.size(), end, first + i).ptr;
  }
  off[n] = static_cast<Offset>(pos - begin);
  return std::make_shared<ArrayType>(n, std::move(offsets), std::move(data));
}
}  // namespace

Result<std::shared_ptr<arrow::Array>> MakeSeqnoColumn(const std::string& instant, const std::string& file,
                                                      int64_t first, int64_t n) {
  if (first < 0 || n < 0 || first > INT64_MAX - n) return Status::Invalid("seqno rows out of range");
  const std::string prefix = instant + "_" + file + "_";
  const int64_t bytes = n * static_cast<int64_t>(prefix.size()) + DigitsOfRange(first, n);
  // utf8 as every other string column when it fits, 64-bit offsets beyond.
  if (bytes <= std::numeric_limits<int32_t>::max()) return FillSeqno<int32_t, arrow::StringArray>(prefix, first, n, bytes);
  return FillSeqno<int64_t, arrow::LargeStringArray>(prefix, first, n, bytes);
}

std::shared_ptr<arrow::Schema> WithMetaColumns(const arrow::Schema& schema) {
  std::vector<std::shared_ptr<arrow::Field>> fields = Fields();
  for (const auto& f : schema.fields()) fields.push_back(f);
  return arrow::schema(std::move(fields));
}

}  // namespace lakeshore::meta_columns
