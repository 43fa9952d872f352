#include "delta/action_reader.h"

#include <algorithm>
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
#include "delta/json_action_parser.h"
#include "delta/paths.h"

namespace lakeshore::delta {
namespace {

// ---- typed access to possibly-missing, possibly-null struct children ----------------------

/// A nullable view of one struct column; every accessor tolerates a missing child. Children
/// are resolved once (by name, a short linear scan) so the per-row accessors allocate nothing
/// but the values they return. Not thread-safe (child views are memoized).
class StructView {
 public:
  explicit StructView(const std::shared_ptr<arrow::Array>& array)
      : array_(std::dynamic_pointer_cast<arrow::StructArray>(array)) {
    if (!array_) return;
    const auto& type = static_cast<const arrow::StructType&>(*array_->type());
    for (int k = 0; k < type.num_fields(); ++k) children_.emplace_back(type.field(k)->name(), array_->field(k));
  }
  bool present() const { return array_ != nullptr; }
  bool IsValid(int64_t i) const { return array_ && array_->IsValid(i); }

  const StructView& Child(const std::string& name) const {
    for (const auto& [n, view] : subviews_) {
      if (n == name) return *view;
    }
    subviews_.emplace_back(name, std::make_unique<StructView>(Raw(name)));
    return *subviews_.back().second;
  }
  const std::shared_ptr<arrow::Array>& Raw(const std::string& name) const {
    static const std::shared_ptr<arrow::Array> kNone;
    for (const auto& [n, a] : children_) {
      if (n == name) return a;
    }
    return kNone;
  }
  std::optional<std::string> String(const std::string& name, int64_t i) const {
    const auto& a = Raw(name);
    if (!a || a->IsNull(i)) return std::nullopt;
    switch (a->type_id()) {
      case arrow::Type::STRING: return static_cast<const arrow::StringArray&>(*a).GetString(i);
      case arrow::Type::LARGE_STRING: return static_cast<const arrow::LargeStringArray&>(*a).GetString(i);
      case arrow::Type::BINARY: return static_cast<const arrow::BinaryArray&>(*a).GetString(i);
      case arrow::Type::STRING_VIEW: return std::string(static_cast<const arrow::StringViewArray&>(*a).GetView(i));
      default: return std::nullopt;
    }
  }
  std::optional<int64_t> Int(const std::string& name, int64_t i) const {
    const auto& a = Raw(name);
    if (!a || a->IsNull(i)) return std::nullopt;
    switch (a->type_id()) {
      case arrow::Type::INT64: return static_cast<const arrow::Int64Array&>(*a).Value(i);
      case arrow::Type::INT32: return static_cast<const arrow::Int32Array&>(*a).Value(i);
      case arrow::Type::INT16: return static_cast<const arrow::Int16Array&>(*a).Value(i);
      case arrow::Type::INT8: return static_cast<const arrow::Int8Array&>(*a).Value(i);
      default: return std::nullopt;
    }
  }
  std::vector<std::string> Strings(const std::string& name, int64_t i) const {
    std::vector<std::string> out;
    auto a = std::dynamic_pointer_cast<arrow::ListArray>(Raw(name));
    if (!a || a->IsNull(i)) return out;
    auto values = std::dynamic_pointer_cast<arrow::StringArray>(a->values());
    if (!values) return out;
    for (int32_t k = a->value_offset(i); k < a->value_offset(i) + a->value_length(i); ++k) {
      if (values->IsValid(k)) out.push_back(values->GetString(k));
    }
    return out;
  }
  /// A string→string map (a Parquet map column).
  std::map<std::string, std::string> StringMap(const std::string& name, int64_t i) const {
    std::map<std::string, std::string> out;
    const auto& a = Raw(name);
    if (!a || a->IsNull(i)) return out;
    if (auto m = std::dynamic_pointer_cast<arrow::MapArray>(a)) {
      auto keys = std::dynamic_pointer_cast<arrow::StringArray>(m->keys());
      auto items = std::dynamic_pointer_cast<arrow::StringArray>(m->items());
      if (!keys || !items) return out;
      for (int32_t k = m->value_offset(i); k < m->value_offset(i) + m->value_length(i); ++k) {
        if (items->IsValid(k)) out[keys->GetString(k)] = items->GetString(k);
      }
      return out;
    }
    return out;
  }

 private:
  std::shared_ptr<arrow::StructArray> array_;
  std::vector<std::pair<std::string, std::shared_ptr<arrow::Array>>> children_;
  mutable std::vector<std::pair<std::string, std::unique_ptr<StructView>>> subviews_;
};

Result<std::string> DecodedPath(const StructView& s, int64_t i, const std::string& kind,
                                const std::string& source) {
  return DecodeActionPath(s.String("path", i), kind, source, i + 1);
}

Result<std::optional<DeletionVectorDescriptor>> ReadDv(const StructView& owner, int64_t i,
                                                       const std::string& source) {
  const StructView& dv = owner.Child("deletionVector");
  if (!dv.IsValid(i)) return std::optional<DeletionVectorDescriptor>();
  RawDeletionVector raw{dv.String("storageType", i), dv.String("pathOrInlineDv", i), dv.Int("offset", i),
                        dv.Int("sizeInBytes", i), dv.Int("cardinality", i)};
  ARROW_ASSIGN_OR_RAISE(auto d, MakeDeletionVector(std::move(raw), source, i + 1));
  return std::optional<DeletionVectorDescriptor>(std::move(d));
}

}  // namespace

Status CorruptAction(const std::string& source, int64_t action_number, const std::string& what) {
  return CorruptMetadata("Delta log file '" + source + "' action " + std::to_string(action_number) + ": " + what);
}

Result<std::string> DecodeActionPath(const std::optional<std::string>& raw, const std::string& kind,
                                     const std::string& source, int64_t action_number) {
  if (!raw || raw->empty()) return CorruptAction(source, action_number, kind + " action without a path");
  auto decoded = PercentDecode(*raw);  // log paths are URL-encoded once
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
Result<ActionSet> ActionsFromRows(const arrow::RecordBatch& batch, int64_t begin, int64_t end,
                                  const std::string& source) {
  auto column = [&](const char* name) { return StructView(batch.GetColumnByName(name)); };
  StructView add = column("add"), remove = column("remove"), cdc = column("cdc"),
             meta = column("metaData"), protocol = column("protocol"),
             commit = column("commitInfo"), sidecar = column("sidecar");
  ActionSet out;
  for (int64_t i = begin; i < end; ++i) {
    bool any = false;
    if (add.IsValid(i)) {
      AddFile f;
      ARROW_ASSIGN_OR_RAISE(f.path, DecodedPath(add, i, "add", source));
      f.size = add.Int("size", i).value_or(0);
      f.modification_time = add.Int("modificationTime", i).value_or(0);
      ARROW_ASSIGN_OR_RAISE(f.deletion_vector, ReadDv(add, i, source));
      out.adds.push_back(std::move(f));
      any = true;
    }
    if (remove.IsValid(i)) {
      RemoveFile f;
      ARROW_ASSIGN_OR_RAISE(f.path, DecodedPath(remove, i, "remove", source));
      f.deletion_timestamp = remove.Int("deletionTimestamp", i);
      f.size = remove.Int("size", i);
      ARROW_ASSIGN_OR_RAISE(f.deletion_vector, ReadDv(remove, i, source));
      out.removes.push_back(std::move(f));
      any = true;
    }
    if (cdc.IsValid(i)) {
      CdcFile f;
      ARROW_ASSIGN_OR_RAISE(f.path, DecodedPath(cdc, i, "cdc", source));
      f.size = cdc.Int("size", i).value_or(0);
      out.cdc.push_back(std::move(f));
      any = true;
    }
    if (meta.IsValid(i)) {
      Metadata m;
      m.id = meta.String("id", i).value_or("");
      m.partition_columns = meta.Strings("partitionColumns", i);
      m.configuration = meta.StringMap("configuration", i);
      out.metadata = std::move(m);
      any = true;
    }
    if (protocol.IsValid(i)) {
      Protocol p;
      auto reader = protocol.Int("minReaderVersion", i);
      auto writer = protocol.Int("minWriterVersion", i);
      if (!reader || !writer) return CorruptAction(source, i + 1, "protocol action without minReaderVersion/minWriterVersion");
      p.min_reader_version = static_cast<int32_t>(*reader);
      p.min_writer_version = static_cast<int32_t>(*writer);
      p.reader_features = protocol.Strings("readerFeatures", i);
      p.writer_features = protocol.Strings("writerFeatures", i);
      out.protocol = std::move(p);
      any = true;
    }
    if (commit.IsValid(i)) {
      CommitInfo c;
      c.timestamp = commit.Int("timestamp", i);
      c.in_commit_timestamp = commit.Int("inCommitTimestamp", i);
      c.operation = commit.String("operation", i).value_or("");
      out.commit_info = std::move(c);
      any = true;
    }
    if (sidecar.IsValid(i)) {
      SidecarFile s;
      ARROW_ASSIGN_OR_RAISE(s.path, DecodedPath(sidecar, i, "sidecar", source));
      s.size_in_bytes = sidecar.Int("sizeInBytes", i).value_or(0);
      out.sidecars.push_back(std::move(s));
      any = true;
    }
    if (any) ++out.num_actions;
  }
  return out;
}

}  // namespace

Result<ActionSet> ActionsFromTable(const arrow::Table& table, const std::string& source) {
  ARROW_ASSIGN_OR_RAISE(auto batch, table.CombineChunksToBatch());
  return ActionsFromRows(*batch, 0, batch->num_rows(), source);
}

Result<ActionSet> ParseJsonActions(const std::shared_ptr<arrow::Buffer>& data,
                                   const std::string& source) {
  return ParseJsonCommit(std::string_view(reinterpret_cast<const char*>(data->data()),
                                          static_cast<size_t>(data->size())),
                         source);
}

Result<ActionSet> ReadParquetActions(Storage& storage, const std::string& path, bool include_adds) {
  auto corrupt = [&](const Status& st) {
    return CorruptMetadata("Delta checkpoint file '" + path + "' cannot be read: " + st.message());
  };
  auto file = storage.OpenInputFile(path);
  if (!file.ok()) return corrupt(file.status());
  std::unique_ptr<parquet::arrow::FileReader> reader;
  try {
    auto opened = parquet::arrow::OpenFile(*file, MetadataMemoryPool());
    if (!opened.ok()) return corrupt(opened.status());
    reader = std::move(*opened);
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
  for (const auto& f : reader->manifest().schema_fields) walk(f, "", false);
  if (leaves.empty()) return ActionSet{};
  try {
    auto table = reader->ReadTable(leaves);
    if (!table.ok()) return corrupt(table.status());
    return ActionsFromTable(**table, path);
  } catch (const parquet::ParquetException& e) {
    return corrupt(Status::IOError(e.what()));
  }
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
