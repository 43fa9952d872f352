#include "delta/action_reader.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>
#include <limits>
#include <set>

#include <arrow/array.h>
#include <arrow/type.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/schema.h>
#include <parquet/exception.h>

#include "common/memory_pool.h"
#include "common/percent_encoding.h"
#include "common/side_by_side.h"
#include "delta/json_action_parser.h"
#include "delta/paths.h"

namespace lakeshore::delta {
namespace {

// ---- typed access to possibly-missing, possibly-null struct children ----------------------

/// One leaf column, resolved once: per-row accessors that look nothing up and allocate nothing.
/// A missing column, or one of another type, reads as null in every row.
class Leaf {
 public:
  Leaf() = default;
  explicit Leaf(const std::shared_ptr<arrow::Array>& array) : array_(array) {
    if (!array_) return;
    if (array_->type_id() == arrow::Type::DICTIONARY) {
      // A dictionary-encoded column reads through its dictionary.
      const auto& dict = static_cast<const arrow::DictionaryArray&>(*array_);
      dictionary_ = std::make_shared<Leaf>(dict.dictionary());
      kind_ = dictionary_->kind_;
      return;
    }
    switch (array_->type_id()) {
      case arrow::Type::STRING: case arrow::Type::BINARY: case arrow::Type::LARGE_STRING:
      case arrow::Type::STRING_VIEW:
        kind_ = kText;
        break;
      case arrow::Type::INT64: case arrow::Type::INT32: case arrow::Type::INT16: case arrow::Type::INT8:
        kind_ = kInteger;
        break;
      default:
        break;
    }
  }
  /// Whether the column holds text (a missing column does not).
  bool is_text() const { return kind_ == kText; }
  /// Whether the column holds integers (a missing column does not).
  bool is_integer() const { return kind_ == kInteger; }
  std::optional<std::string_view> Text(int64_t i) const {
    if (kind_ != kText || array_->IsNull(i)) return std::nullopt;
    if (dictionary_) return dictionary_->Text(static_cast<const arrow::DictionaryArray&>(*array_).GetValueIndex(i));
    switch (array_->type_id()) {
      case arrow::Type::STRING: return static_cast<const arrow::StringArray&>(*array_).GetView(i);
      case arrow::Type::BINARY: return static_cast<const arrow::BinaryArray&>(*array_).GetView(i);
      case arrow::Type::LARGE_STRING: return static_cast<const arrow::LargeStringArray&>(*array_).GetView(i);
      default: return static_cast<const arrow::StringViewArray&>(*array_).GetView(i);
    }
  }
  std::optional<std::string> String(int64_t i) const {
    auto view = Text(i);
    return view ? std::optional<std::string>(std::string(*view)) : std::nullopt;
  }
  std::optional<int64_t> Int(int64_t i) const {
    if (kind_ != kInteger || array_->IsNull(i)) return std::nullopt;
    if (dictionary_) return dictionary_->Int(static_cast<const arrow::DictionaryArray&>(*array_).GetValueIndex(i));
    switch (array_->type_id()) {
      case arrow::Type::INT64: return static_cast<const arrow::Int64Array&>(*array_).Value(i);
      case arrow::Type::INT32: return static_cast<const arrow::Int32Array&>(*array_).Value(i);
      case arrow::Type::INT16: return static_cast<const arrow::Int16Array&>(*array_).Value(i);
      default: return static_cast<const arrow::Int8Array&>(*array_).Value(i);
    }
  }

 private:
  enum Kind { kNone, kText, kInteger };
  std::shared_ptr<arrow::Array> array_;
  std::shared_ptr<Leaf> dictionary_;  ///< set for a dictionary-encoded column
  Kind kind_ = kNone;
};

/// A nullable view of one struct column; every accessor tolerates a missing child. Children
/// are found by name once, when the view is made: rows are read through the Leaf and
/// StructView objects it hands out.
class StructView {
 public:
  StructView() = default;
  explicit StructView(const std::shared_ptr<arrow::Array>& array)
      : array_(std::dynamic_pointer_cast<arrow::StructArray>(array)) {}
  bool IsValid(int64_t i) const { return array_ && array_->IsValid(i); }

  std::shared_ptr<arrow::Array> Raw(std::string_view name) const {
    if (!array_) return nullptr;
    const auto& type = static_cast<const arrow::StructType&>(*array_->type());
    for (int k = 0; k < type.num_fields(); ++k) {
      if (type.field(k)->name() == name) return array_->field(k);
    }
    return nullptr;
  }
  Leaf LeafOf(std::string_view name) const { return Leaf(Raw(name)); }
  StructView Child(std::string_view name) const { return StructView(Raw(name)); }

  /// Row `i` of a list-of-text column (list or large_list of any text type); empty when the
  /// column is missing or the row null. Invalid when the column is there with another type: a
  /// list read as empty would drop a table's features or retention unnoticed.
  Result<std::vector<std::string>> Strings(std::string_view name, int64_t i) const {
    auto raw = Raw(name);
    if (!raw || raw->IsNull(i)) return std::vector<std::string>{};
    switch (raw->type_id()) {
      case arrow::Type::LIST: return Texts(static_cast<const arrow::ListArray&>(*raw), i, name);
      case arrow::Type::LARGE_LIST: return Texts(static_cast<const arrow::LargeListArray&>(*raw), i, name);
      default: return Unreadable(name, *raw, "a list of strings");
    }
  }
  /// Row `i` of a string→string map column (keys and values of any text type), as Strings.
  Result<std::map<std::string, std::string>> StringMap(std::string_view name, int64_t i) const {
    std::map<std::string, std::string> out;
    auto raw = Raw(name);
    if (!raw || raw->IsNull(i)) return out;
    if (raw->type_id() != arrow::Type::MAP) return Unreadable(name, *raw, "a map of strings to strings");
    const auto& m = static_cast<const arrow::MapArray&>(*raw);
    const Leaf keys(m.keys()), items(m.items());
    if (!keys.is_text() || !items.is_text()) return Unreadable(name, *raw, "a map of strings to strings");
    for (int64_t k = m.value_offset(i); k < m.value_offset(i) + m.value_length(i); ++k) {
      auto key = keys.Text(k);
      auto item = items.Text(k);
      if (key && item) out[std::string(*key)] = std::string(*item);
    }
    return out;
  }

 private:
  template <typename ListArray>
  static Result<std::vector<std::string>> Texts(const ListArray& list, int64_t i, std::string_view name) {
    const Leaf values(list.values());
    if (!values.is_text()) return Unreadable(name, list, "a list of strings");
    std::vector<std::string> out;
    for (int64_t k = list.value_offset(i); k < list.value_offset(i) + list.value_length(i); ++k) {
      if (auto v = values.Text(k)) out.emplace_back(*v);
    }
    return out;
  }
  static Status Unreadable(std::string_view name, const arrow::Array& column, const char* expected) {
    return Status::Invalid("column '", name, "' is ", column.type()->ToString(), ", not ", expected);
  }

 private:
  std::shared_ptr<arrow::StructArray> array_;
};

/// A deletionVector struct's leaves, resolved once.
struct DvColumns {
  explicit DvColumns(const StructView& owner)
      : dv(owner.Child("deletionVector")),
        storage_type(dv.LeafOf("storageType")),
        path_or_inline(dv.LeafOf("pathOrInlineDv")),
        offset(dv.LeafOf("offset")),
        size_in_bytes(dv.LeafOf("sizeInBytes")),
        cardinality(dv.LeafOf("cardinality")) {}

  Result<std::optional<DeletionVectorDescriptor>> Read(int64_t i, const std::string& source) const {
    if (!dv.IsValid(i)) return std::optional<DeletionVectorDescriptor>();
    RawDeletionVector raw{storage_type.String(i), path_or_inline.String(i), offset.Int(i), size_in_bytes.Int(i),
                          cardinality.Int(i)};
    ARROW_ASSIGN_OR_RAISE(auto d, MakeDeletionVector(std::move(raw), source, i + 1));
    return std::optional<DeletionVectorDescriptor>(std::move(d));
  }

  StructView dv;
  Leaf storage_type, path_or_inline, offset, size_in_bytes, cardinality;
};

}  // namespace

Status CorruptAction(const std::string& source, int64_t action_number, const std::string& what) {
  return CorruptMetadata("Delta log file '" + source + "' action " + std::to_string(action_number) + ": " + what);
}

Result<std::string> DecodeActionPath(std::optional<std::string_view> raw, const std::string& kind,
                                     const std::string& source, int64_t action_number) {
  if (!raw || raw->empty()) return CorruptAction(source, action_number, kind + " action without a path");
  auto decoded = DecodeLogPath(*raw);  // log paths are URL-encoded once
  if (!decoded.ok()) return CorruptAction(source, action_number, kind + " path: " + decoded.status().message());
  return std::move(*decoded);
}

Result<DeletionVectorDescriptor> MakeDeletionVector(RawDeletionVector raw, const std::string& source,
                                                    int64_t action_number) {
  if (!raw.storage_type || !raw.path_or_inline_dv) {
    return CorruptAction(source, action_number, "deletion vector without storageType or pathOrInlineDv");
  }
  const std::string& type = *raw.storage_type;
  if (type != "u" && type != "p" && type != "i") {
    return CorruptAction(source, action_number, "deletion vector storage type '" + type + "' is not one of u, p, i");
  }
  DeletionVectorDescriptor d;
  d.storage_type = std::move(*raw.storage_type);
  d.path_or_inline_dv = std::move(*raw.path_or_inline_dv);
  if (raw.offset) d.offset = static_cast<int32_t>(*raw.offset);
  d.size_in_bytes = static_cast<int32_t>(raw.size_in_bytes.value_or(0));
  d.cardinality = raw.cardinality.value_or(0);
  return d;
}

std::string DeletionVectorDescriptor::UniqueId() const {
  std::string id = storage_type + path_or_inline_dv;
  if (offset) id += "@" + std::to_string(*offset);
  return id;
}

namespace {

/// Converts rows [begin, end) of `batch` into one ActionSet; errors name `source` with the row
/// number relative to `begin`.
/// `value`, or its error as the corrupt action of row `row` of `source`.
template <typename T>
Result<T> Readable(Result<T> value, const std::string& source, int64_t row) {
  if (!value.ok()) return CorruptAction(source, row + 1, value.status().message());
  return value;
}

/// What a leaf column the reader takes must hold.
enum class LeafType { kText, kInteger };

/// kCorruptMetadata when the column `action`.`path` (a leaf, or "deletionVector" a struct, under
/// `owner`) is there with a type the reader cannot take: it would read as null in every row, so
/// a tombstone would lose its time (and expire at once) and an add its deletion vector, and a
/// vacuum would delete files those actions keep. A missing column is fine (it is optional), and
/// so is one of Arrow's null type (no value to misread).
Status CheckLeaf(const StructView& owner, const std::string& name, LeafType expected, const std::string& column,
                 const std::string& source) {
  auto raw = owner.Raw(name);
  // A column of Arrow's null type holds no value: reading it as null in every row is exact.
  if (!raw || raw->type_id() == arrow::Type::NA) return Status::OK();
  const Leaf leaf(raw);
  if (expected == LeafType::kText ? leaf.is_text() : leaf.is_integer()) return Status::OK();
  return CorruptMetadata("Delta checkpoint '" + source + "' has its '" + column + "' column typed " +
                         raw->type()->ToString() + ", not " + (expected == LeafType::kText ? "a string" : "an integer"));
}

/// CheckLeaf of every leaf an action's rows are read through, and of its deletion vector.
Status CheckActionColumns(const StructView& owner, const std::string& action,
                          const std::vector<std::pair<const char*, LeafType>>& leaves, bool has_deletion_vector,
                          const std::string& source) {
  for (const auto& [name, type] : leaves) {
    ARROW_RETURN_NOT_OK(CheckLeaf(owner, name, type, action + "." + name, source));
  }
  if (!has_deletion_vector) return Status::OK();
  auto dv = owner.Raw("deletionVector");
  if (!dv || dv->type_id() == arrow::Type::NA) return Status::OK();
  if (dv->type_id() != arrow::Type::STRUCT) {
    return CorruptMetadata("Delta checkpoint '" + source + "' has its '" + action + ".deletionVector' column typed " +
                           dv->type()->ToString() + ", not a struct");
  }
  const StructView view(dv);
  for (const auto& [name, type] : std::vector<std::pair<const char*, LeafType>>{{"storageType", LeafType::kText},
                                                                               {"pathOrInlineDv", LeafType::kText},
                                                                               {"offset", LeafType::kInteger},
                                                                               {"sizeInBytes", LeafType::kInteger},
                                                                               {"cardinality", LeafType::kInteger}}) {
    ARROW_RETURN_NOT_OK(CheckLeaf(view, name, type, action + ".deletionVector." + name, source));
  }
  return Status::OK();
}

Result<ActionSet> ActionsFromRows(const arrow::RecordBatch& batch, int64_t begin, int64_t end,
                                  const std::string& source) {
  // An action column that is there but not a struct would read as no action in every row.
  for (const char* name : {"add", "remove", "cdc", "metaData", "protocol", "commitInfo", "sidecar", "txn",
                           "domainMetadata", "checkpointMetadata"}) {
    auto c = batch.GetColumnByName(name);
    if (c && c->type_id() != arrow::Type::STRUCT) {
      return CorruptMetadata("Delta checkpoint '" + source + "' has its '" + name + "' column typed " +
                             c->type()->ToString() + ", not a struct");
    }
  }
  auto column = [&](const char* name) { return StructView(batch.GetColumnByName(name)); };
  const StructView add = column("add"), remove = column("remove"), cdc = column("cdc"),
                   meta = column("metaData"), protocol = column("protocol"), commit = column("commitInfo"),
                   sidecar = column("sidecar"), txn = column("txn"), domain = column("domainMetadata"),
                   checkpoint_metadata = column("checkpointMetadata");
  const StructView* all_actions[] = {&add,    &remove, &cdc, &meta,   &protocol,
                                     &commit, &sidecar, &txn, &domain, &checkpoint_metadata};
  // Every leaf a row reads is of a type it can take (else it would read as null).
  constexpr LeafType kText = LeafType::kText, kInteger = LeafType::kInteger;
  ARROW_RETURN_NOT_OK(CheckActionColumns(add, "add", {{"path", kText}, {"size", kInteger}, {"modificationTime", kInteger}},
                                         true, source));
  ARROW_RETURN_NOT_OK(CheckActionColumns(
      remove, "remove", {{"path", kText}, {"deletionTimestamp", kInteger}, {"size", kInteger}}, true, source));
  ARROW_RETURN_NOT_OK(CheckActionColumns(cdc, "cdc", {{"path", kText}, {"size", kInteger}}, false, source));
  ARROW_RETURN_NOT_OK(CheckActionColumns(sidecar, "sidecar", {{"path", kText}, {"sizeInBytes", kInteger}}, false, source));
  ARROW_RETURN_NOT_OK(CheckActionColumns(meta, "metaData", {{"id", kText}}, false, source));
  ARROW_RETURN_NOT_OK(CheckActionColumns(
      protocol, "protocol", {{"minReaderVersion", kInteger}, {"minWriterVersion", kInteger}}, false, source));
  ARROW_RETURN_NOT_OK(CheckActionColumns(
      commit, "commitInfo", {{"timestamp", kInteger}, {"inCommitTimestamp", kInteger}, {"operation", kText}}, false,
      source));
  // Every leaf a row reads, found once for the whole batch.
  const Leaf add_path = add.LeafOf("path"), add_size = add.LeafOf("size"),
             add_mtime = add.LeafOf("modificationTime");
  const DvColumns add_dv(add);
  const Leaf remove_path = remove.LeafOf("path"), remove_time = remove.LeafOf("deletionTimestamp"),
             remove_size = remove.LeafOf("size");
  const DvColumns remove_dv(remove);
  const Leaf cdc_path = cdc.LeafOf("path"), cdc_size = cdc.LeafOf("size");
  const Leaf sidecar_path = sidecar.LeafOf("path"), sidecar_size = sidecar.LeafOf("sizeInBytes");
  const Leaf meta_id = meta.LeafOf("id");
  const Leaf min_reader = protocol.LeafOf("minReaderVersion"), min_writer = protocol.LeafOf("minWriterVersion");
  const Leaf commit_time = commit.LeafOf("timestamp"), commit_ict = commit.LeafOf("inCommitTimestamp"),
             commit_operation = commit.LeafOf("operation");
  ActionSet out;
  for (int64_t i = begin; i < end; ++i) {
    // A row is one action, as a log line is: a row holding two is not guessed at.
    int actions = 0;
    for (const StructView* a : all_actions) actions += a->IsValid(i) ? 1 : 0;
    if (actions > 1) return CorruptAction(source, i + 1, "more than one action in one row (each row holds one)");
    bool any = false;
    if (add.IsValid(i)) {
      AddFile f;
      ARROW_ASSIGN_OR_RAISE(f.path, DecodeActionPath(add_path.Text(i), "add", source, i + 1));
      f.size = add_size.Int(i).value_or(0);
      f.modification_time = add_mtime.Int(i).value_or(0);
      ARROW_ASSIGN_OR_RAISE(f.deletion_vector, add_dv.Read(i, source));
      out.adds.push_back(std::move(f));
      any = true;
    }
    if (remove.IsValid(i)) {
      RemoveFile f;
      ARROW_ASSIGN_OR_RAISE(f.path, DecodeActionPath(remove_path.Text(i), "remove", source, i + 1));
      f.deletion_timestamp = remove_time.Int(i);
      f.size = remove_size.Int(i);
      ARROW_ASSIGN_OR_RAISE(f.deletion_vector, remove_dv.Read(i, source));
      out.removes.push_back(std::move(f));
      any = true;
    }
    if (cdc.IsValid(i)) {
      CdcFile f;
      ARROW_ASSIGN_OR_RAISE(f.path, DecodeActionPath(cdc_path.Text(i), "cdc", source, i + 1));
      f.size = cdc_size.Int(i).value_or(0);
      out.cdc.push_back(std::move(f));
      any = true;
    }
    if (meta.IsValid(i)) {
      Metadata m;
      m.id = meta_id.String(i).value_or("");
      ARROW_ASSIGN_OR_RAISE(m.partition_columns, Readable(meta.Strings("partitionColumns", i), source, i));
      ARROW_ASSIGN_OR_RAISE(m.configuration, Readable(meta.StringMap("configuration", i), source, i));
      out.metadata = std::move(m);
      any = true;
    }
    if (protocol.IsValid(i)) {
      Protocol p;
      auto reader = min_reader.Int(i);
      auto writer = min_writer.Int(i);
      if (!reader || !writer) {
        return CorruptAction(source, i + 1, "protocol action without minReaderVersion/minWriterVersion");
      }
      p.min_reader_version = static_cast<int32_t>(*reader);
      p.min_writer_version = static_cast<int32_t>(*writer);
      ARROW_ASSIGN_OR_RAISE(p.reader_features, Readable(protocol.Strings("readerFeatures", i), source, i));
      ARROW_ASSIGN_OR_RAISE(p.writer_features, Readable(protocol.Strings("writerFeatures", i), source, i));
      out.protocol = std::move(p);
      any = true;
    }
    if (commit.IsValid(i)) {
      CommitInfo c;
      c.timestamp = commit_time.Int(i);
      c.in_commit_timestamp = commit_ict.Int(i);
      c.operation = commit_operation.String(i).value_or("");
      out.commit_info = std::move(c);
      any = true;
    }
    if (sidecar.IsValid(i)) {
      SidecarFile s;
      ARROW_ASSIGN_OR_RAISE(s.path, DecodeActionPath(sidecar_path.Text(i), "sidecar", source, i + 1));
      s.size_in_bytes = sidecar_size.Int(i).value_or(0);
      out.sidecars.push_back(std::move(s));
      any = true;
    }
    if (any) ++out.num_actions;
  }
  return out;
}

}  // namespace

void AppendActions(ActionSet& into, ActionSet&& later) {
  auto append = [](auto& to, auto& from) {
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  };
  append(into.adds, later.adds);
  append(into.removes, later.removes);
  append(into.cdc, later.cdc);
  append(into.sidecars, later.sidecars);
  if (later.protocol) into.protocol = std::move(later.protocol);
  if (later.metadata) into.metadata = std::move(later.metadata);
  if (later.commit_info) into.commit_info = std::move(later.commit_info);
  into.num_actions += later.num_actions;
}

Result<ActionSet> ActionsFromTable(const arrow::Table& table, const std::string& source) {
  ARROW_ASSIGN_OR_RAISE(auto batch, table.CombineChunksToBatch());
  const int64_t n = batch->num_rows();
  constexpr int64_t kRowsToSplit = 16384;
  if (n < kRowsToSplit) return ActionsFromRows(*batch, 0, n, source);
  // A large checkpoint's rows convert in two halves side by side.
  const int64_t half = n / 2;
  Result<ActionSet> first = Status::UnknownError("not converted"), rest = Status::UnknownError("not converted");
  RunSideBySide(2, [&](size_t i) {
    if (i == 0) {
      first = ActionsFromRows(*batch, 0, half, source);
    } else {
      rest = ActionsFromRows(*batch, half, n, source);
    }
  });
  ARROW_RETURN_NOT_OK(first.status());
  ARROW_RETURN_NOT_OK(rest.status());
  AppendActions(*first, std::move(*rest));
  return first;
}

Result<ActionSet> ParseJsonActions(const std::shared_ptr<arrow::Buffer>& data,
                                   const std::string& source) {
  return ParseJsonCommit(std::string_view(reinterpret_cast<const char*>(data->data()),
                                          static_cast<size_t>(data->size())),
                         source);
}

Result<ActionSet> ReadParquetActions(Storage& storage, const std::string& path, bool include_adds,
                                     ParquetActionFile kind, int64_t expected_size) {
  const std::string what = kind == ParquetActionFile::kSidecar ? "Delta sidecar file '" : "Delta checkpoint file '";
  auto corrupt = [&](const Status& st) { return CorruptMetadata(what + path + "' cannot be read: " + st.message()); };
  auto file = storage.OpenInputFile(path);
  if (!file.ok()) return corrupt(file.status());
  if (kind == ParquetActionFile::kSidecar) {
    // The protocol requires the size; no Parquet file has none.
    if (expected_size <= 0) {
      return CorruptMetadata(what + path + "' is named by a sidecar action without a size above 0 (sizeInBytes " +
                             std::to_string(expected_size) + ")");
    }
    auto size = (*file)->GetSize();
    if (!size.ok()) return corrupt(size.status());
    if (*size != expected_size) {
      return CorruptMetadata(what + path + "' holds " + std::to_string(*size) + " bytes, but its sidecar action says " +
                             std::to_string(expected_size) + ": it was truncated or replaced");
    }
  }
  std::unique_ptr<parquet::arrow::FileReader> reader;
  try {
    auto opened = parquet::arrow::OpenFile(*file, ReadMemoryPool());
    if (!opened.ok()) return corrupt(opened.status());
    reader = std::move(*opened);
    reader->set_use_threads(true);  // columns decode in parallel
  } catch (const parquet::ParquetException& e) {
    return corrupt(Status::IOError(e.what()));
  }
  // Project only the leaves an ActionSet reads: never `stats`, `partitionValues`, `tags`.
  static const std::set<std::string> kWanted = {
      "add.path", "add.size", "add.modificationTime", "add.deletionVector",
      "remove.path", "remove.deletionTimestamp", "remove.size", "remove.deletionVector",
      "cdc.path", "cdc.size", "metaData.id", "metaData.partitionColumns",
      "metaData.configuration", "protocol", "commitInfo.timestamp",
      "commitInfo.inCommitTimestamp", "commitInfo.operation", "sidecar.path",
      "sidecar.sizeInBytes"};
  std::vector<int> leaves;
  std::function<void(const parquet::arrow::SchemaField&, const std::string&, bool)> walk =
      [&](const parquet::arrow::SchemaField& f, const std::string& prefix, bool keep) {
        std::string name = prefix.empty() ? f.field->name() : prefix + "." + f.field->name();
        if (!include_adds && name == "add") return;
        bool k = keep || kWanted.count(name) > 0;
        if (f.is_leaf()) {
          if (k) leaves.push_back(f.column_index);
          return;
        }
        // Lists and maps nest inner levels; their whole subtree is kept once the parent is.
        for (const auto& c : f.children) walk(c, name, k);
      };
  // Which action columns the file has: a foreign Parquet file (or one missing `add`) read as
  // an action file would hold no files at all, and a vacuum would take every data file.
  // An action column is read by name, so two columns whose names a reader may take for one
  // (`add` twice, or `add` and `Add`: Delta's names are case-insensitive) leave it unknown
  // which holds the rows; and a struct without the fields that identify its rows (`path`, and
  // a sidecar's size) has none that can be read: both would pass for "no actions".
  bool has_add = false, has_remove = false, has_sidecar = false;
  std::set<std::string> seen_names;
  for (const auto& f : reader->manifest().schema_fields) {
    std::string name = f.field->name();
    std::string folded = name;
    std::transform(folded.begin(), folded.end(), folded.begin(), [](unsigned char c) { return std::tolower(c); });
    if (!seen_names.insert(folded).second) {
      return CorruptMetadata(what + path + "' has two columns named '" + folded +
                             "' (Delta's column names are case-insensitive)");
    }
    const bool is_struct = f.field->type()->id() == arrow::Type::STRUCT;
    if (is_struct && (name == "add" || name == "remove" || name == "sidecar")) {
      const auto& type = static_cast<const arrow::StructType&>(*f.field->type());
      const char* missing = type.GetFieldIndex("path") < 0                                      ? "path"
                            : name == "sidecar" && type.GetFieldIndex("sizeInBytes") < 0 ? "sizeInBytes"
                                                                                          : nullptr;
      if (missing != nullptr) {
        return CorruptMetadata(what + path + "' has a column `" + name + "` without its `" + missing + "` field");
      }
    }
    has_add |= name == "add" && is_struct;
    has_remove |= name == "remove" && is_struct;
    has_sidecar |= name == "sidecar" && is_struct;
    walk(f, "", false);
  }
  if (kind == ParquetActionFile::kSidecar && !has_add) {
    return CorruptMetadata(what + path + "' has no `add` column: it is not a sidecar of a Delta checkpoint");
  }
  if (kind == ParquetActionFile::kCheckpoint && !(has_add && has_remove) && !has_sidecar) {
    return CorruptMetadata(what + path + "' has no `" + (has_add ? "remove" : "add") +
                           "` column (nor `sidecar`): it is not a Delta checkpoint");
  }
  ActionSet actions;
  if (!leaves.empty()) {
    try {
      auto table = reader->ReadTable(leaves);
      if (!table.ok()) return corrupt(table.status());
      ARROW_ASSIGN_OR_RAISE(actions, ActionsFromTable(**table, path));
    } catch (const parquet::ParquetException& e) {
      return corrupt(Status::IOError(e.what()));
    }
  }
  if (kind == ParquetActionFile::kCheckpoint && !has_add && actions.sidecars.empty()) {
    return CorruptMetadata(what + path + "' has no `add` column and names no sidecar: it lists no files");
  }
  return actions;
}

Result<ActionSet> ReadActionFile(Storage& storage, const std::string& path, bool include_adds) {
  if (path.size() >= 8 && path.compare(path.size() - 8, 8, ".parquet") == 0) {
    return ReadParquetActions(storage, path, include_adds);
  }
  auto data = storage.ReadFile(path);
  if (!data.ok()) {
    return CorruptMetadata("Delta log file '" + path + "' cannot be read: " + data.status().message());
  }
  ARROW_ASSIGN_OR_RAISE(auto actions, ParseJsonActions(*data, path));
  if (!include_adds) actions.adds.clear();
  return actions;
}

}  // namespace lakeshore::delta
