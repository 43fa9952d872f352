#include "read/partition_filter.h"

#include <arrow/array.h>
#include <arrow/builder.h>
#include <arrow/compute/api.h>
#include <arrow/util/string.h>

#include <optional>

#include "common/parse_number.h"
#include "read/predicate.h"
#include "table/partition_path.h"

namespace lakeshore {
namespace {

/// How rendered values of a field order.
enum class Order { kInteger, kReal, kText };

Order OrderOf(const arrow::DataType& type) {
  if (arrow::is_integer(type.id())) return Order::kInteger;
  if (arrow::is_floating(type.id()) || arrow::is_decimal(type.id())) return Order::kReal;
  return Order::kText;  // strings, booleans; dates and timestamps render in fixed-width ISO form
}

template <typename T>
int Sign(const T& a, const T& b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

/// Compares two renderings of values of one field; numbers by value.
int Compare(const std::string& a, const std::string& b, Order order) {
  if (order == Order::kInteger) {
    auto x = ParseInt64(a), y = ParseInt64(b);
    if (x && y) return Sign(*x, *y);
  } else if (order == Order::kReal) {
    auto x = ParseFiniteDouble(a), y = ParseFiniteDouble(b);
    if (x && y) return Sign(*x, *y);
  }
  return Sign(a, b);
}

struct CompiledPredicate {
  std::string field;
  PredicateOp op = PredicateOp::kEq;
  Order order = Order::kText;
  std::vector<std::string> values;  ///< the non-null values, rendered
  bool has_null = false;            ///< a null was among the values
  /// The null folder also holds, for this field, "" and the folder's own name as a value (each
  /// rendered into that folder's name by Hudi's key generators, which put "" there).
  bool null_folder_holds_text = false;

  /// Whether the null folder may hold a match: a null value, or a text that lives there too.
  bool MatchesNullFolder() const {
    return Matches(std::nullopt) ||
           (null_folder_holds_text && (Matches(std::string()) || Matches(std::string(kNullPartitionValue))));
  }
  /// Whether the rows of the null folder must be filtered too: its values answer differently.
  bool SplitsNullFolder() const {
    if (!null_folder_holds_text) return false;
    const bool null = Matches(std::nullopt);
    return null != Matches(std::string()) || null != Matches(std::string(kNullPartitionValue));
  }

  bool Matches(const std::optional<std::string>& value) const {
    auto any_equal = [&] {
      for (const auto& v : values) {
        if (Compare(*value, v, order) == 0) return true;
      }
      return false;
    };
    switch (op) {
      case PredicateOp::kEq: return has_null ? !value : value && any_equal();
      case PredicateOp::kNe: return has_null ? value.has_value() : value && !any_equal();
      case PredicateOp::kIn: return value ? any_equal() : has_null;
      case PredicateOp::kNotIn: return value && !any_equal();
      case PredicateOp::kLt: return value && Compare(*value, values[0], order) < 0;
      case PredicateOp::kLe: return value && Compare(*value, values[0], order) <= 0;
      case PredicateOp::kGt: return value && Compare(*value, values[0], order) > 0;
      case PredicateOp::kGe: return value && Compare(*value, values[0], order) >= 0;
    }
    return false;
  }
};

Result<CompiledPredicate> Compile(const TableConfig& config, const PartitionPredicate& p, bool empty_in_null_folder) {
  bool known = false;
  for (const auto& f : config.partition_fields) known |= (f == p.field);
  auto field = config.schema->GetFieldByName(p.field);
  if (!known || field == nullptr) {
    return Status::Invalid("filter field '", p.field, "' is not a partition field of the table (partition fields: ",
                           arrow::internal::JoinStrings(config.partition_fields, ", "), ")");
  }
  ARROW_ASSIGN_OR_RAISE(auto typed, TypePredicate(*field, p, "partition filter"));
  CompiledPredicate out;
  out.field = p.field;
  out.order = OrderOf(*field->type());
  out.op = typed.op;
  out.has_null = typed.has_null;
  out.null_folder_holds_text = empty_in_null_folder && arrow::is_base_binary_like(field->type()->id());
  ARROW_ASSIGN_OR_RAISE(auto rendered, ValuesAsStrings(std::make_shared<arrow::ChunkedArray>(typed.values)));
  for (auto& v : rendered) {
    if (v) out.values.push_back(std::move(*v));
  }
  return out;
}

}  // namespace

PartitionPredicate PartitionPredicate::FromStrings(std::string field, std::string op,
                                                   const std::vector<std::string>& values) {
  arrow::StringBuilder builder;
  for (const auto& v : values) (void)builder.Append(v);
  std::shared_ptr<arrow::Array> array;
  if (!builder.Finish(&array).ok()) array = nullptr;  // only on allocation failure; Compile reports it
  return {std::move(field), std::move(op), std::move(array)};
}

Result<PartitionFilter> MakePartitionFilter(const TableConfig& config, const std::vector<PartitionPredicate>& predicates,
                                            bool empty_in_null_folder) {
  PartitionFilter out;
  if (predicates.empty()) return out;
  std::vector<CompiledPredicate> compiled;
  for (const auto& p : predicates) {
    ARROW_ASSIGN_OR_RAISE(auto c, Compile(config, p, empty_in_null_folder));
    if (c.SplitsNullFolder()) out.on_rows.push_back(p);
    compiled.push_back(std::move(c));
  }
  const PartitionStyle style{config.hive_style_partitioning, config.url_encode_partitions};
  out.paths = [compiled = std::move(compiled), fields = config.partition_fields, style](const std::string& path) {
    auto parsed = ParsePartitionPath(path, fields, style);
    if (!parsed.ok()) return false;
    for (const auto& p : compiled) {
      std::optional<std::string> value;
      bool present = false;
      for (const auto& [field, v] : *parsed) {
        if (field != p.field) continue;
        present = true;
        if (v != kNullPartitionValue) value = v;
      }
      if (!present || !(value ? p.Matches(value) : p.MatchesNullFolder())) return false;
    }
    return true;
  };
  return out;
}

}  // namespace lakeshore
