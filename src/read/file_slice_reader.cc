#include "read/file_slice_reader.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include <arrow/array/concatenate.h>
#include <arrow/array/util.h>
#include <arrow/builder.h>
#include <arrow/compute/api.h>
#include <arrow/util/decimal.h>

#include "common/arrow_cast.h"
#include "index/key_lookup.h"
#include "io/base_file.h"
#include "io/log_file.h"
#include "table/file_naming.h"
#include "table/meta_columns.h"

namespace lakeshore {
namespace {

constexpr const char* kIsDeleted = "_hoodie_is_deleted";

/// An ordering value, comparable within its kind. Hudi's default ordering value (a record or
/// delete without one) is the integer 0; a record whose ordering field is null orders below
/// every value (Hudi's DefaultHoodieRecordPayload: a null stored value gives way, a null
/// incoming one loses), as the copy-on-write merge ranks it (StableRanks).
struct Ordering {
  enum Kind { kInt, kDouble, kString, kDecimal, kNull } kind = kInt;
  int64_t i = 0;
  double d = 0;
  std::string s;
  bool is_default = true;
  arrow::Decimal128 decimal;  ///< kDecimal, at `scale` (one scale per table: sources are conformed)
  int32_t scale = 0;

  /// -1, 0, 1; nullopt when the kinds cannot be compared. Doubles compare as Java's
  /// Double.compareTo (Hudi's): NaN above every number, equal to itself; -0.0 below 0.0.
  std::optional<int> Compare(const Ordering& o) const {
    if (kind == kNull || o.kind == kNull) return kind == o.kind ? 0 : (kind == kNull ? -1 : 1);
    if (kind == kString || o.kind == kString) {
      if (kind != o.kind) return std::nullopt;
      return s < o.s ? -1 : (s > o.s ? 1 : 0);
    }
    if (kind == kInt && o.kind == kInt) return i < o.i ? -1 : (i > o.i ? 1 : 0);
    if (kind == kDecimal && o.kind == kDecimal && scale == o.scale) {
      return decimal < o.decimal ? -1 : (decimal > o.decimal ? 1 : 0);
    }
    const double a = AsDouble(), b = o.AsDouble();
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) == std::isnan(b) ? 0 : (std::isnan(a) ? 1 : -1);
    if (a == b && a == 0.0 && std::signbit(a) != std::signbit(b)) return std::signbit(a) ? -1 : 1;  // -0.0 < 0.0
    return a < b ? -1 : (a > b ? 1 : 0);
  }

 private:
  double AsDouble() const {
    switch (kind) {
      case kInt:
        return static_cast<double>(i);
      case kDecimal:
        return decimal.ToDouble(scale);
      default:
        return d;
    }
  }
};

Ordering OrderingOfJson(const nlohmann::json& v) {
  Ordering o;
  if (v.is_number_integer()) {
    o.i = v.get<int64_t>();
    o.is_default = o.i == 0;
  } else if (v.is_number()) {
    o.kind = Ordering::kDouble;
    o.d = v.get<double>();
    o.is_default = false;
  } else if (v.is_string()) {
    o.kind = Ordering::kString;
    o.s = v.get<std::string>();
    o.is_default = false;
  } else if (v.is_boolean()) {
    o.i = v.get<bool>() ? 1 : 0;
    o.is_default = false;
  }
  return o;
}

/// The column `name` of `table` as one array of `type` (nullptr when the table has none).
Result<std::shared_ptr<arrow::Array>> CombinedColumn(const arrow::Table& table, const std::string& name,
                                                     const std::shared_ptr<arrow::DataType>& type) {
  auto column = table.GetColumnByName(name);
  if (column == nullptr) return nullptr;
  ARROW_ASSIGN_OR_RAISE(auto combined, CombineChunks(*column));
  if (!combined->type()->Equals(*type)) {
    ARROW_ASSIGN_OR_RAISE(auto cast, arrow::compute::Cast(*combined, type));
    return cast;
  }
  return combined;
}

/// A source's ordering values, converted once to int64, double or utf8; an Ordering is made
/// only for the rows a merge compares.
struct OrderingColumn {
  Ordering::Kind kind = Ordering::kInt;
  std::shared_ptr<arrow::Array> values;  ///< null when the table has no ordering field

  Ordering At(int64_t r) const {
    if (values == nullptr) return Ordering{};
    if (values->IsNull(r)) return Ordering{Ordering::kNull};
    switch (kind) {
      case Ordering::kDouble:
        return Ordering{Ordering::kDouble, 0, static_cast<const arrow::DoubleArray&>(*values).Value(r), {}, false};
      case Ordering::kString:
        return Ordering{Ordering::kString, 0, 0,
                        std::string(static_cast<const arrow::StringArray&>(*values).GetView(r)), false};
      case Ordering::kInt: {
        const int64_t v = static_cast<const arrow::Int64Array&>(*values).Value(r);
        return Ordering{Ordering::kInt, v, 0, {}, v == 0};
      }
      case Ordering::kDecimal: {
        Ordering o{Ordering::kDecimal};
        o.is_default = false;
        o.decimal = arrow::Decimal128(static_cast<const arrow::Decimal128Array&>(*values).GetValue(r));
        o.scale = static_cast<const arrow::Decimal128Type&>(*values->type()).scale();
        return o;
      }
      case Ordering::kNull:
        break;
    }
    return Ordering{};
  }
};

Result<OrderingColumn> Orderings(const arrow::Table& table, const std::string& field) {
  OrderingColumn out;
  auto column = table.GetColumnByName(field);
  if (field.empty() || column == nullptr) return out;
  const auto& type = *column->type();
  if (type.id() == arrow::Type::DECIMAL128) {  // exactly: a double rounds beyond 15 digits
    out.kind = Ordering::kDecimal;
    ARROW_ASSIGN_OR_RAISE(out.values, CombineChunks(*column));
  } else if (type.id() == arrow::Type::FLOAT) {
    // As a float reads under a double field (FloatAsDouble: order kept among floats, and a
    // float stored before the field widened compares with the doubles after as it reads; an
    // exact cast made 0.1f beat a later 0.1, and the update was lost).
    out.kind = Ordering::kDouble;
    ARROW_ASSIGN_OR_RAISE(auto widened, FloatColumnAsDouble(*column));
    ARROW_ASSIGN_OR_RAISE(out.values, CombineChunks(*widened));
  } else if (arrow::is_floating(type.id()) || arrow::is_decimal(type.id())) {
    out.kind = Ordering::kDouble;
    ARROW_ASSIGN_OR_RAISE(out.values, CombinedColumn(table, field, arrow::float64()));
  } else if (arrow::is_string(type.id()) || arrow::is_binary_like(type.id())) {
    out.kind = Ordering::kString;
    ARROW_ASSIGN_OR_RAISE(out.values, CombinedColumn(table, field, arrow::utf8()));
  } else {
    // Integers, booleans, dates, times and timestamps order as their integer values.
    ARROW_ASSIGN_OR_RAISE(auto combined, CombineChunks(*column));
    if (arrow::is_temporal(type.id())) {
      auto data = combined->data()->Copy();
      data->type = type.id() == arrow::Type::DATE32 || type.id() == arrow::Type::TIME32 ? arrow::int32() : arrow::int64();
      combined = arrow::MakeArray(data);
    }
    ARROW_ASSIGN_OR_RAISE(auto cast, arrow::compute::Cast(*combined, arrow::int64()));
    out.values = cast;
  }
  return out;
}

/// The rows of one source (the base file or one data block), with what merging needs.
struct Source {
  std::shared_ptr<arrow::Table> table;  ///< conformed to the full schema
  std::shared_ptr<arrow::StringArray> keys;
  OrderingColumn orderings;
  std::shared_ptr<arrow::BooleanArray> is_deleted;  ///< null when the column is absent
};

Result<Source> MakeSource(const std::shared_ptr<arrow::Table>& table, const SliceReadSpec& spec,
                          const std::shared_ptr<arrow::Schema>& out_schema, const std::string& source_name) {
  Source s;
  ARROW_ASSIGN_OR_RAISE(s.table, ConformToSchema(table, out_schema, source_name));
  ARROW_ASSIGN_OR_RAISE(auto keys, CombinedColumn(*table, meta_columns::kRecordKey, arrow::utf8()));
  if (keys == nullptr) {
    return UnsupportedFeature(source_name + " has no _hoodie_record_key column: merging log files of a table "
                              "without meta fields is not supported yet");
  }
  s.keys = std::static_pointer_cast<arrow::StringArray>(keys);
  ARROW_ASSIGN_OR_RAISE(s.orderings, Orderings(*table, spec.ordering_field));
  ARROW_ASSIGN_OR_RAISE(auto deleted, CombinedColumn(*table, kIsDeleted, arrow::boolean()));
  if (deleted != nullptr) s.is_deleted = std::static_pointer_cast<arrow::BooleanArray>(deleted);
  return s;
}

/// The version of a key the merge keeps so far.
struct Kept {
  int source = -2;  ///< -1: deleted; -2: not seen yet
  int64_t row = 0;
  Ordering ordering;
};

/// The merge of the versions of the keys the log blocks touch, each key known by its id (its
/// row in the slice's log-key lookup), in Hudi's two steps (HoodieFileGroupReader's
/// BufferedRecordMerger): the log blocks' versions are merged among themselves in log order
/// (`deltaMerge`), then the result with the base file's version (`finalMerge`). So under
/// event-time ordering a delete without an ordering value (a "commit-time" delete) removes
/// what came before it in the logs and the base, but a later log version with a smaller
/// ordering value than the base's loses to the base again, as in Hudi's readers.
class Merger {
 public:
  Merger(RecordMergeMode mode, size_t keys) : mode_(mode), base_(keys), log_(keys) {}

  /// A version from the base file (source 0).
  void RecordBase(int64_t key, int64_t row, const Ordering& ordering, bool deleted) {
    Kept& kept = base_[static_cast<size_t>(key)];
    const Kept version{deleted ? kDeleted : 0, row, ordering};
    if (kept.source == kUnseen || KeepsNewer(kept, version)) kept = version;  // a key twice in a base
  }

  /// A version from a log data block (`deleted`: its `_hoodie_is_deleted` is set).
  void RecordLog(int64_t key, int source, int64_t row, const Ordering& ordering, bool deleted) {
    Kept& kept = log_[static_cast<size_t>(key)];
    const Kept version{deleted ? kDeleted : source, row, ordering};
    if (kept.source == kUnseen || KeepsNewer(kept, version)) kept = version;
  }

  /// An entry of a delete block.
  void DeleteKey(int64_t key, const Ordering& ordering) {
    Kept& kept = log_[static_cast<size_t>(key)];
    const Kept deletion{kDeleted, 0, ordering};
    if (kept.source == kUnseen || mode_ != RecordMergeMode::kEventTimeOrdering) {
      kept = deletion;
      return;
    }
    if (IsCommitTimeDelete(kept)) return;  // nothing outlives it
    // A delete with an ordering value smaller than the kept version's (of the same kind) is
    // obsolete.
    if (!ordering.is_default && ordering.kind == kept.ordering.kind) {
      auto cmp = kept.ordering.Compare(ordering);
      if (cmp && *cmp > 0) return;
    }
    kept = deletion;
  }

  /// Surviving rows per source, in row order: each key's base and log versions merged.
  std::vector<std::vector<int64_t>> Survivors(size_t sources) const {
    std::vector<std::vector<int64_t>> out(sources);
    for (size_t k = 0; k < log_.size(); ++k) {
      const Kept& base = base_[k];
      const Kept& log = log_[k];
      const Kept& kept = log.source == kUnseen ? base : (base.source == kUnseen || KeepsNewer(base, log) ? log : base);
      if (kept.source >= 0) out[static_cast<size_t>(kept.source)].push_back(kept.row);
    }
    for (auto& rows : out) std::sort(rows.begin(), rows.end());
    return out;
  }

 private:
  static constexpr int kUnseen = -2;
  static constexpr int kDeleted = -1;

  /// A delete without an ordering value: under event-time ordering it wins by commit time.
  static bool IsCommitTimeDelete(const Kept& k) { return k.source == kDeleted && k.ordering.is_default; }

  /// True when `newer` replaces `older` (Hudi's shouldKeepNewerRecord): always under
  /// commit-time ordering; under event-time ordering when either is a commit-time delete, or
  /// when `newer`'s ordering value is not smaller (ties go to the later write; values that
  /// cannot be compared too).
  bool KeepsNewer(const Kept& older, const Kept& newer) const {
    if (mode_ != RecordMergeMode::kEventTimeOrdering) return true;
    if (IsCommitTimeDelete(newer) || IsCommitTimeDelete(older)) return true;
    auto cmp = newer.ordering.Compare(older.ordering);
    return !cmp || *cmp >= 0;
  }

  RecordMergeMode mode_;
  std::vector<Kept> base_;
  std::vector<Kept> log_;
};

/// kCorruptMetadata when log file `path`, of a visible instant of a table whose log files are
/// written whole, holds a corrupt stretch: it was truncated or overwritten after its commit, and
/// skipping the stretch would silently undo committed updates and deletes.
Status CheckWrittenWhole(Storage& storage, const std::string& path, const std::vector<LogFileBlock>& blocks,
                         const SliceReadSpec& spec) {
  if (!spec.log_files_written_whole) return Status::OK();
  const bool damaged = std::any_of(blocks.begin(), blocks.end(),
                                   [](const LogFileBlock& b) { return b.type == format::LogBlockType::kCorrupt; });
  if (!damaged) return Status::OK();
  const auto name = ParseDataFileName(BaseName(path));
  if (!name || !spec.instant_is_visible(name->instant_time)) return Status::OK();
  return CorruptMetadata("log file " + storage.root_uri() + "/" + path + " of completed instant " + name->instant_time +
                         " is damaged: part of it is no Hudi log block (truncated or overwritten after its commit), "
                         "and its committed records cannot be read; restore the file from a copy, or restore the "
                         "table to a savepoint before " + name->instant_time);
}

}  // namespace

Result<std::shared_ptr<arrow::Table>> ReadFileSlice(Storage& storage, const FileSlice& slice, const SliceReadSpec& spec) {
  // The columns read: those asked for, and what merging needs (the key, the ordering field,
  // _hoodie_is_deleted when the table has it). The base file is read projected to them.
  std::shared_ptr<arrow::Schema> out_schema = spec.schema;
  std::vector<std::string> base_columns;  // empty: all
  if (!spec.columns.empty()) {
    std::set<std::string> wanted(spec.columns.begin(), spec.columns.end());
    wanted.insert(meta_columns::kRecordKey);
    if (!spec.ordering_field.empty()) wanted.insert(spec.ordering_field);
    wanted.insert(kIsDeleted);
    std::vector<std::shared_ptr<arrow::Field>> fields;
    for (const auto& f : spec.schema->fields()) {
      if (wanted.count(f->name()) == 0) continue;
      fields.push_back(f);
      base_columns.push_back(f->name());
    }
    out_schema = arrow::schema(fields);
  }
  std::shared_ptr<arrow::Table> base;
  if (slice.base_file) {
    ARROW_ASSIGN_OR_RAISE(base, ReadBaseFile(storage, slice.base_file->path, base_columns, slice.base_file->size,
                                             /*missing_ok=*/true));
  } else {
    ARROW_ASSIGN_OR_RAISE(base, arrow::Table::MakeEmpty(out_schema));
  }
  const std::string base_name = slice.base_file ? slice.base_file->path : std::string("an empty base");
  if (spec.base_only || slice.log_files.empty()) return ConformToSchema(base, out_schema, base_name);

  // Every block of the slice's log files, in order; then what the scanner keeps.
  std::vector<LogFileBlock> blocks;
  std::vector<std::string> block_files;
  for (const auto& path : slice.log_files) {
    ARROW_ASSIGN_OR_RAISE(auto file_blocks, ReadLogFile(storage, path));
    ARROW_RETURN_NOT_OK(CheckWrittenWhole(storage, path, file_blocks, spec));
    for (auto& b : file_blocks) {
      blocks.push_back(std::move(b));
      block_files.push_back(path);
    }
  }
  // A rollback command block voids the earlier blocks of its target instant.
  std::vector<bool> keep(blocks.size(), false);
  for (size_t i = 0; i < blocks.size(); ++i) {
    const LogFileBlock& b = blocks[i];
    if (b.type == format::LogBlockType::kCommand) {
      if (!b.is_rollback) continue;
      for (size_t j = 0; j < i; ++j) {
        if (blocks[j].instant_time == b.target_instant_time) keep[j] = false;
      }
      continue;
    }
    keep[i] = b.type != format::LogBlockType::kCorrupt && spec.instant_is_visible(b.instant_time);
  }
  bool any = false;
  for (bool k : keep) any = any || k;
  if (!any) return ConformToSchema(base, out_schema, base_name);
  if (spec.merge_mode == RecordMergeMode::kCustom) {
    return UnsupportedFeature("file slice " + base_name + " has log files to merge, but the table's record merge "
                              "mode is CUSTOM (a payload or merger class), which this build does not run");
  }

  // The log blocks' sources first: only keys they touch need merging. Every other base row
  // passes through as it is, without a lookup structure of its own.
  std::vector<Source> sources;
  ARROW_ASSIGN_OR_RAISE(Source base_source, MakeSource(base, spec, out_schema, base_name));
  sources.push_back(std::move(base_source));
  std::vector<int> source_of_block(blocks.size(), -1);
  std::vector<std::string_view> log_key_list;
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (!keep[i]) continue;
    if (blocks[i].records != nullptr) {
      ARROW_ASSIGN_OR_RAISE(Source s, MakeSource(blocks[i].records, spec, out_schema, block_files[i]));
      for (int64_t r = 0; r < s.keys->length(); ++r) {
        if (!s.keys->IsNull(r)) log_key_list.push_back(s.keys->GetView(r));
      }
      source_of_block[i] = static_cast<int>(sources.size());
      sources.push_back(std::move(s));
    }
    for (const LogDelete& d : blocks[i].deletes) log_key_list.push_back(d.record_key);
  }
  // Each key the logs touch gets an id: its first position in log_key_list.
  std::vector<int64_t> positions(log_key_list.size());
  for (size_t k = 0; k < positions.size(); ++k) positions[k] = static_cast<int64_t>(k);
  const KeyLookup log_keys(log_key_list, positions);
  Merger merger(spec.merge_mode, log_key_list.size());
  constexpr size_t kBatch = 1024;
  std::string_view views[kBatch];
  int64_t rows_of[kBatch];
  int64_t ids[kBatch];
  auto add_rows = [&](int index, std::vector<int64_t>* untouched) {
    const Source& s = sources[static_cast<size_t>(index)];
    size_t n = 0;
    auto flush = [&] {
      log_keys.FindMany(views, n, ids);
      for (size_t j = 0; j < n; ++j) {
        const int64_t r = rows_of[j];
        const bool deleted = s.is_deleted != nullptr && s.is_deleted->IsValid(r) && s.is_deleted->Value(r);
        if (ids[j] < 0) {  // only base rows can miss: the logs do not touch this key
          if (!deleted && untouched != nullptr) untouched->push_back(r);
          continue;
        }
        if (index == 0) {
          merger.RecordBase(ids[j], r, s.orderings.At(r), deleted);
        } else {
          merger.RecordLog(ids[j], index, r, s.orderings.At(r), deleted);
        }
      }
      n = 0;
    };
    for (int64_t r = 0; r < s.keys->length(); ++r) {
      if (s.keys->IsNull(r)) continue;
      views[n] = s.keys->GetView(r);
      rows_of[n++] = r;
      if (n == kBatch) flush();
    }
    flush();
  };
  std::vector<int64_t> base_untouched;
  add_rows(0, &base_untouched);
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (!keep[i]) continue;
    if (source_of_block[i] >= 0) add_rows(source_of_block[i], nullptr);
    for (const LogDelete& d : blocks[i].deletes) {
      merger.DeleteKey(log_keys.Find(d.record_key), OrderingOfJson(d.ordering_value));
    }
  }
  std::vector<std::shared_ptr<arrow::Table>> parts;
  auto survivors = merger.Survivors(sources.size());
  if (!base_untouched.empty()) {
    std::vector<int64_t>& base_rows = survivors[0];  // both sorted: merge them
    const auto middle = static_cast<std::ptrdiff_t>(base_rows.size());
    base_rows.insert(base_rows.end(), base_untouched.begin(), base_untouched.end());
    std::inplace_merge(base_rows.begin(), base_rows.begin() + middle, base_rows.end());
  }
  for (size_t s = 0; s < sources.size(); ++s) {
    if (survivors[s].empty()) continue;
    arrow::Int64Builder indices;
    ARROW_RETURN_NOT_OK(indices.AppendValues(survivors[s]));
    ARROW_ASSIGN_OR_RAISE(auto index_array, indices.Finish());
    ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(sources[s].table, index_array));
    parts.push_back(taken.table());
  }
  if (parts.empty()) return arrow::Table::MakeEmpty(out_schema);
  return arrow::ConcatenateTables(parts);
}

}  // namespace lakeshore
