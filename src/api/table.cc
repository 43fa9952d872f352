#include "lakeshore/table/table.h"

#include <algorithm>
#include <cctype>

#include "format/avro_schema.h"
#include "io/base_file.h"
#include "lakeshore/table/table_options.h"
#include "read/snapshot_reader.h"
#include "read/table_view.h"
#include "read/record_lookup.h"
#include "read/secondary_lookup.h"
#include "services/metadata/secondary_index_writer.h"
#include "services/archive/timeline_archiver.h"
#include "services/metadata/metadata_archival.h"
#include "services/clustering/clusterer.h"
#include "services/compaction/compactor.h"
#include "services/savepoint/savepoints.h"
#include "write/schema_evolution.h"
#include "table/layout.h"
#include "table/meta_columns.h"
#include "actions/table_context.h"
#include "services/metadata/metadata_writer.h"
#include "services/metadata/indexing_instant.h"
#include "write/rollback.h"
#include "write/write_client.h"

namespace lakeshore {

const char* WriteOperationName(WriteOperation op) {
  switch (op) {
    case WriteOperation::kInsert: return "insert";
    case WriteOperation::kUpsert: return "upsert";
    case WriteOperation::kDelete: return "delete";
    case WriteOperation::kBulkInsert: return "bulk_insert";
    case WriteOperation::kInsertOverwrite: return "insert_overwrite";
    case WriteOperation::kInsertOverwriteTable: return "insert_overwrite_table";
    case WriteOperation::kDeletePartition: return "delete_partition";
  }
  return "?";
}

bool IsReplaceOperation(WriteOperation op) {
  return op == WriteOperation::kInsertOverwrite || op == WriteOperation::kInsertOverwriteTable ||
         op == WriteOperation::kDeletePartition;
}

Result<WriteOperation> ParseWriteOperation(const std::string& name) {
  for (auto op : {WriteOperation::kInsert, WriteOperation::kUpsert, WriteOperation::kDelete,
                  WriteOperation::kBulkInsert, WriteOperation::kInsertOverwrite, WriteOperation::kInsertOverwriteTable,
                  WriteOperation::kDeletePartition})
    if (name == WriteOperationName(op)) return op;
  return Status::Invalid("unknown write operation '", name,
                         "' (insert, upsert, delete, bulk_insert, insert_overwrite, insert_overwrite_table, "
                         "delete_partition)");
}

class Table::Impl {
 public:
  TableContext ctx;
};

namespace {
Result<std::shared_ptr<Storage>> OpenStorage(const std::string& uri, const TableOpenOptions& options) {
  if (options.storage_override) return options.storage_override;
  return Storage::Open(uri, options.storage);
}

/// A table is created only where nothing else is: a vacuum of the new table would otherwise
/// delete the files already there (the user's, or another table's). AlreadyExists if a
/// Lakeshore table is there; Invalid naming a few entries if anything else is. One listing.
Status CheckEmptyForCreate(Storage& storage, const std::string& uri) {
  ARROW_ASSIGN_OR_RAISE(bool exists, HoodieTableConfig::Exists(storage));
  if (exists) return Status::AlreadyExists("a table already exists at ", uri);
  ARROW_ASSIGN_OR_RAISE(auto entries, storage.List("", /*recursive=*/false));
  std::vector<std::string> foreign;
  for (const auto& e : entries) {
    if (e.path != layout::kMetaDir) foreign.push_back(e.is_dir ? e.path + "/" : e.path);
  }
  if (foreign.empty()) return Status::OK();
  std::sort(foreign.begin(), foreign.end());
  std::string shown;
  for (size_t i = 0; i < foreign.size() && i < 5; ++i) shown += (i ? ", '" : "'") + foreign[i] + "'";
  if (foreign.size() > 5) shown += " and " + std::to_string(foreign.size() - 5) + " more";
  return Status::Invalid("cannot create a table at ", uri, ": the folder is not empty (it holds ", shown,
                         "); a table is created only in an empty or new folder, since vacuuming it "
                         "would delete files it does not track");
}
/// True when layout 1's archived timeline holds anything: the commits there are not read.
Result<bool> HasArchivedInstants(Storage& storage, const HoodieTableConfig& hoodie) {
  ARROW_ASSIGN_OR_RAISE(auto archived, storage.List(hoodie.archive_folder, /*recursive=*/true));
  for (const auto& e : archived) {
    if (!e.is_dir) return true;
  }
  return false;
}

/// A base file's schema (its types are what readers return) brought to the table's latest Avro
/// schema, which a schema evolution may have changed since the file was written: columns added
/// since come in (nullable), widened ones take their new type, the order is the schema's. An
/// Avro schema that does not convert leaves the file's schema as it is.
std::shared_ptr<arrow::Schema> WithEvolution(const std::shared_ptr<arrow::Schema>& file_schema, const std::string& avro,
                                             const std::string& source) {
  if (avro.empty()) return file_schema;
  auto user = format::AvroSchemaToArrow(avro, source);
  if (!user.ok()) return file_schema;
  std::vector<std::shared_ptr<arrow::Field>> fields;
  for (const auto& f : file_schema->fields()) {
    if (meta_columns::IsReserved(f->name())) fields.push_back(f);
  }
  for (const auto& f : (*user)->fields()) {
    if (meta_columns::IsReserved(f->name())) continue;
    auto in_file = file_schema->GetFieldByName(f->name());
    if (in_file == nullptr) {
      fields.push_back(f->WithNullable(true));
      continue;
    }
    auto field = in_file;
    if (!in_file->type()->Equals(*f->type()) && IsWidening(*in_file->type(), *f->type())) field = field->WithType(f->type());
    // A column the schema made nullable since the file was written takes nulls now.
    if (f->nullable() && !field->nullable()) field = field->WithNullable(true);
    fields.push_back(field);
  }
  // Columns the file has that the schema does not name (it cannot drop any): kept.
  for (const auto& f : file_schema->fields()) {
    if (!meta_columns::IsReserved(f->name()) && (*user)->GetFieldByName(f->name()) == nullptr) fields.push_back(f);
  }
  return arrow::schema(fields);
}

Result<std::shared_ptr<arrow::Schema>> ResolveHoodieSchema(TableContext& ctx) {
  ARROW_ASSIGN_OR_RAISE(auto timeline, ctx.LoadTimeline());
  ARROW_ASSIGN_OR_RAISE(auto commits, ctx.LoadCommits(timeline));
  std::string source;
  ctx.avro_schema = ctx.LatestAvroSchema(commits, &source);
  ARROW_ASSIGN_OR_RAISE(FileSystemView view, TableView(ctx, timeline, commits, ""));
  for (const FileGroup* g : view.LiveFileGroups()) {
    const FileSlice& slice = g->latest();
    if (!slice.base_file) continue;
    ARROW_ASSIGN_OR_RAISE(auto file_schema, ReadBaseFileSchema(*ctx.storage, slice.base_file->path, slice.base_file->size));
    return WithEvolution(file_schema, ctx.avro_schema, source);
  }
  const std::string& avro = ctx.avro_schema;
  if (avro.empty()) {
    return CorruptMetadata("Hudi table " + ctx.uri + " has no schema: no base file, no commit schema and no "
                           "hoodie.table.create.schema");
  }
  ARROW_ASSIGN_OR_RAISE(auto user, format::AvroSchemaToArrow(avro, source));
  std::vector<std::shared_ptr<arrow::Field>> fields;
  for (const char* meta : {"_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key",
                           "_hoodie_partition_path", "_hoodie_file_name"}) {
    fields.push_back(arrow::field(meta, arrow::utf8()));
  }
  for (const auto& f : user->fields()) {
    if (!meta_columns::IsReserved(f->name())) fields.push_back(f);
  }
  return arrow::schema(fields);
}

/// Re-reads the table's schema into `ctx` as Open reads it (after a change to it, or a rollback
/// or restore that may have undone one): the full schema, the user schema and the Avro schema
/// base files carry.
Status ReloadSchema(TableContext& ctx) {
  ARROW_ASSIGN_OR_RAISE(ctx.full_schema, ResolveHoodieSchema(ctx));
  std::vector<std::shared_ptr<arrow::Field>> user;
  for (const auto& f : ctx.full_schema->fields()) {
    if (!meta_columns::IsReserved(f->name())) user.push_back(f);
  }
  ctx.config.schema = arrow::schema(user);
  if (!ctx.avro_schema.empty() && !ctx.read_only_reason) {
    ARROW_ASSIGN_OR_RAISE(ctx.parquet.avro_schema, format::WithHudiMetaFields(ctx.avro_schema));
  }
  return Status::OK();
}

}  // namespace

Table::Table(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Table::~Table() = default;

namespace {
/// Whether `hoodie` lists in flight a metadata partition Lakeshore does not keep current itself
/// (a secondary index) that is not among `own_builds`: one another writer builds.
bool HasForeignBuildInFlight(const HoodieTableConfig& hoodie, const std::vector<std::string>& own_builds) {
  return std::any_of(hoodie.metadata_partitions_inflight.begin(), hoodie.metadata_partitions_inflight.end(),
                     [&](const std::string& p) {
                       return !KeptCurrentByLakeshore(p) &&
                              std::find(own_builds.begin(), own_builds.end(), p) == own_builds.end();
                     });
}

/// The partitions in flight on `hoodie` that are crashed builds of Lakeshore's own, told by
/// their pending indexing instants (the timeline is read only when some partition needs it).
std::vector<std::string> OwnPendingBuilds(TableContext& ctx, const HoodieTableConfig& hoodie) {
  if (!HasForeignBuildInFlight(hoodie, {})) return {};
  auto timeline = ctx.LoadTimeline();
  if (!timeline.ok()) return {};
  auto builds = PartitionsOfPendingLakeshoreBuilds(ctx, *timeline);
  return builds.ok() ? std::move(*builds) : std::vector<std::string>{};
}

/// Refuses writes this build cannot make Hudi-correct on `hoodie`; OK for the tables it writes.
/// `own_builds`: the partitions of Lakeshore builds left pending (a crash), which the next
/// writer settles.
std::optional<std::string> WhyNotWritable(const HoodieTableConfig& hoodie, const std::vector<std::string>& own_builds) {
  if (hoodie.table_version != 8 && hoodie.table_version != 9) {
    return "table version " + std::to_string(hoodie.table_version) + " (this build writes versions 8 and 9)";
  }
  // Lakeshore keeps the files and record_index partitions current and drops the others at its
  // first write; a partition another writer is building (Hudi's async indexer) is left alone.
  for (const auto& p : hoodie.metadata_partitions_inflight) {
    if (!KeptCurrentByLakeshore(p) && std::find(own_builds.begin(), own_builds.end(), p) == own_builds.end()) {
      return "a table whose metadata partition '" + p + "' is being built by another writer";
    }
  }
  if (!hoodie.populate_meta_fields) return std::string("a table without meta fields");
  if (hoodie.merge_mode == RecordMergeMode::kCustom) return std::string("a table with a CUSTOM record merge mode");
  switch (hoodie.key_generator) {
    case KeyGeneratorKind::kSimple:
      if (hoodie.record_key_fields.size() > 1 || hoodie.partition_fields.size() > 1) {
        return std::string("a SIMPLE key generator over several fields");
      }
      break;
    case KeyGeneratorKind::kComplex:
      if (hoodie.record_key_encoding == TableConfig::KeyEncoding::kUnknown) return UnknownKeyEncodingReason();
      break;
    case KeyGeneratorKind::kNonPartitioned:
      break;
    default:
      return std::string("a timestamp-based, custom or unknown key generator (read-only here)");
  }
  return std::nullopt;
}

/// Why `ctx` (whose table has `hoodie`) is only read: WhyNotWritable, or an archive this build
/// does not read.
std::optional<std::string> ReadOnlyReason(TableContext& ctx, const HoodieTableConfig& hoodie) {
  auto reason = WhyNotWritable(hoodie, OwnPendingBuilds(ctx, hoodie));
  if (!reason && ctx.has_unread_archive) {
    reason = "a table with archived instants (" + hoodie.archive_folder + "), whose commits this build does not read yet";
  }
  return reason;
}
}  // namespace

Result<std::shared_ptr<Table>> Table::Create(const std::string& uri, TableConfig config, TableOpenOptions options) {
  ARROW_RETURN_NOT_OK(config.Validate());
  // hoodie.table.name is required: a table created without one could not be opened again.
  if (config.name.empty()) return Status::Invalid("a table needs a name (hoodie.table.name); got an empty one");
  // The schema as Hudi stores it (Avro): every reader of the table sees these types.
  config.schema = format::NormalizeForHudi(*config.schema);
  const std::string record = format::AvroSafeName(config.name);
  ARROW_ASSIGN_OR_RAISE(std::string avro, format::ArrowSchemaToAvro(*config.schema, record + "_record", "hoodie." + record));
  NewHoodieTable spec;
  spec.name = config.name;
  spec.table_type = config.table_type == TableType::kMergeOnRead ? HoodieTableType::kMergeOnRead
                                                                  : HoodieTableType::kCopyOnWrite;
  spec.record_key_fields = config.record_key_fields;
  spec.partition_fields = config.partition_fields;
  spec.ordering_field = config.ordering_field;
  spec.avro_schema = std::move(avro);
  for (const auto& [key, value] : config.properties) spec.extra.emplace_back(key, value);
  const std::string text = NewTableProperties(spec).Render("Created by Lakeshore");

  ARROW_ASSIGN_OR_RAISE(auto storage, OpenStorage(uri, options));
  ARROW_RETURN_NOT_OK(CheckEmptyForCreate(*storage, uri));
  ARROW_ASSIGN_OR_RAISE(bool created, storage->PutIfAbsentString(layout::kPropertiesFile, text));
  if (!created) return Status::AlreadyExists("a table already exists at ", uri);
  options.storage_override = storage;
  return Open(uri, std::move(options));
}

Result<std::shared_ptr<Table>> Table::Open(const std::string& uri, TableOpenOptions options) {
  ARROW_ASSIGN_OR_RAISE(auto storage, OpenStorage(uri, options));
  ARROW_ASSIGN_OR_RAISE(bool exists, HoodieTableConfig::Exists(*storage));
  if (!exists) {
    return Status::IOError("no table at ", uri, " (", layout::kPropertiesFile, " is missing)");
  }
  ARROW_ASSIGN_OR_RAISE(auto hoodie, HoodieTableConfig::Load(*storage));
  auto impl = std::make_unique<Impl>();
  TableContext& ctx = impl->ctx;
  if (hoodie.timeline_layout_version >= 2) {
    ctx.archive_folder = hoodie.archive_folder;  // read with the active timeline
  } else {
    ARROW_ASSIGN_OR_RAISE(ctx.has_unread_archive, HasArchivedInstants(*storage, hoodie));
  }
  ctx.uri = uri;
  ctx.storage = std::move(storage);
  ctx.clock = options.clock ? options.clock : Clock::System();
  ctx.engine = options.engine ? options.engine : Engine::Default();
  ctx.timeline_location = TimelineLocation{hoodie.timeline_folder,
                                           static_cast<TimelineLayout>(hoodie.timeline_layout_version)};
  ctx.config.name = hoodie.name;
  ctx.config.record_key_fields = hoodie.record_key_fields;
  ctx.config.partition_fields = hoodie.partition_fields;
  ctx.config.hive_style_partitioning = hoodie.hive_style_partitioning;
  ctx.config.url_encode_partitions = hoodie.url_encode_partitions;
  ctx.config.record_key_encoding = hoodie.record_key_encoding;
  ctx.config.ordering_field = hoodie.ordering_fields.empty() ? "" : hoodie.ordering_fields[0];
  ctx.config.table_type = hoodie.is_merge_on_read() ? TableType::kMergeOnRead : TableType::kCopyOnWrite;
  // Lakeshore's typed options live in hoodie.properties beside Hudi's keys.
  ctx.config.properties = hoodie.TableOptions();
  if (!options.properties.empty()) {
    Properties overrides;
    for (const auto& [k, v] : options.properties) overrides[k] = v;
    ARROW_RETURN_NOT_OK(ValidateProperties(overrides, table_options::All()));
    for (const auto& [k, v] : options.properties) ctx.config.properties[k] = v;
    // With the stored ones, as create checks them (keep.min.commits below keep.max.commits, ...):
    // else each write would commit and then fail its archival.
    ARROW_RETURN_NOT_OK(table_options::ValidateOptionRelations(ctx.config.properties));
  }
  ctx.read_only_reason = ReadOnlyReason(ctx, hoodie);
  if (ctx.read_only_reason && HasForeignBuildInFlight(hoodie, {})) {
    // It may pass: another writer's build completes, or a crashed build of ours is being
    // recovered (its indexing instant removed before its partition is unlisted): every write
    // asks again, from hoodie.properties and the timeline as they are then.
    ctx.recheck_read_only = [](TableContext& c) -> Result<std::optional<std::string>> {
      ARROW_ASSIGN_OR_RAISE(auto now, HoodieTableConfig::Load(*c.storage));
      return ReadOnlyReason(c, now);
    };
  }
  ctx.hoodie = std::move(hoodie);
  ARROW_RETURN_NOT_OK(ctx.LoadSettings());
  ARROW_RETURN_NOT_OK(ReloadSchema(ctx));
  if (!options.properties.empty() && ctx.config.schema) {
    Properties overrides(options.properties.begin(), options.properties.end());
    ARROW_RETURN_NOT_OK(table_options::CheckOptionColumns(overrides, ctx.config.schema->field_names()));
  }
  return std::shared_ptr<Table>(new Table(std::move(impl)));
}

const TableConfig& Table::config() const { return impl_->ctx.config; }
std::shared_ptr<arrow::Schema> Table::full_schema() const { return impl_->ctx.full_schema; }
const std::shared_ptr<Storage>& Table::storage() const { return impl_->ctx.storage; }
std::string Table::uri() const { return impl_->ctx.uri; }

Result<WriteResult> Table::Write(WriteOperation op, std::shared_ptr<arrow::RecordBatchReader> data,
                                 const WriteOptions& options) {
  ARROW_RETURN_NOT_OK(impl_->ctx.CheckWritable("write to"));
  ARROW_ASSIGN_OR_RAISE(auto result, ExecuteWrite(impl_->ctx, op, data, options));
  if (impl_->ctx.inline_compaction_delta_commits > 0) {
    // Hudi's inline compaction: after the write has committed, when enough deltacommits piled up.
    CompactionOptions compaction;
    compaction.min_delta_commits = impl_->ctx.inline_compaction_delta_commits;
    compaction.progress = options.progress;
    auto compacted = Compact(compaction);
    if (!compacted.ok()) {
      return compacted.status().WithMessage("write ", result.instant_time, " committed, but its inline compaction failed: ",
                                            compacted.status().message());
    }
    if (compacted->completed) result.compaction_instant = compacted->instant_time;
  }
  if (impl_->ctx.automatic_archival && !impl_->ctx.archive_folder.empty()) {
    // Hudi's automatic archival: the count the commit saw (plus an inline compaction) says
    // whether one is due, so a write that leaves nothing to move lists nothing more.
    ARROW_ASSIGN_OR_RAISE(int64_t keep_max, table_options::kArchiveKeepMaxCommits.Get(impl_->ctx.config.properties));
    const int64_t active = result.active_write_instants + (result.compaction_instant.empty() ? 0 : 1);
    if (active > keep_max) {
      auto archived = Archive(ArchiveOptions{});
      if (!archived.ok()) {
        return archived.status().WithMessage("write ", result.instant_time,
                                             " committed, but the archival after it failed: ",
                                             archived.status().message());
      }
      result.archived_instants = std::move(archived->archived_instants);
    }
  }
  return result;
}

Result<std::shared_ptr<arrow::Table>> Table::Read(const ReadOptions& options) {
  return ReadSnapshot(impl_->ctx, options);
}

std::pair<std::vector<std::string>, std::vector<std::string>> Table::MetadataPartitions() const {
  // As storage says now (another process may have built or dropped one since the open).
  auto fresh = HoodieTableConfig::Load(*impl_->ctx.storage);
  const auto& hoodie = fresh.ok() ? std::optional<HoodieTableConfig>(*fresh) : impl_->ctx.hoodie;
  if (!hoodie) return {};
  return {hoodie->metadata_partitions, hoodie->metadata_partitions_inflight};
}

Status Table::CreateIndex(const std::string& name, const std::string& column) {
  ARROW_RETURN_NOT_OK(impl_->ctx.CheckWritable("build an index of"));
  const bool secondary = IsSecondaryIndexPartition(name);
  if (name != kMetadataFiles && name != kMetadataRecordIndex && name != kMetadataBloomFilters &&
      name != kMetadataColumnStats && name != kMetadataPartitionStats && !secondary) {
    return Status::Invalid("this build builds the metadata table's files, record_index, bloom_filters, "
                           "column_stats, partition_stats and secondary_index_<name> partitions, not '", name, "'");
  }
  if (secondary && (name.size() == std::string("secondary_index_").size() || column.empty())) {
    return Status::Invalid("a secondary index is named secondary_index_<name> and built on a column: got '", name,
                           "' on '", column, "'");
  }
  // Before anything is written: a "../x" or an overlong name failed only when its folder was
  // made, and every later write, rebuilding it, failed the same way.
  if (secondary) ARROW_RETURN_NOT_OK(CheckNewSecondaryIndexName(name));
  if (!secondary && !column.empty()) {
    return Status::Invalid("only a secondary index is built on a column; '", name, "' is not one");
  }
  if (secondary && meta_columns::IsReserved(column.substr(0, column.find('.')))) {
    return Status::Invalid("cannot build a secondary index on '", column, "': it is one of Hudi's meta columns (the "
                           "record index, record_index, locates record keys)");
  }
  ARROW_ASSIGN_OR_RAISE(auto serial, impl_->ctx.SerializeWrites("build an index of"));
  ARROW_ASSIGN_OR_RAISE(auto guard, impl_->ctx.Lock().Acquire("build an index"));
  guard->KeepAlive();  // a build reads the whole table: it may outlast one lease
  {
    // A write past its decision is completed first: built without it, the index would miss its
    // keys once it is rolled forward.
    ARROW_ASSIGN_OR_RAISE(auto timeline, impl_->ctx.LoadTimeline());
    ARROW_RETURN_NOT_OK(RollForwardDecidedWrites(impl_->ctx, timeline).status());
  }
  // What the table lists now: an undo of a failed build keeps these.
  auto [before, before_inflight] = MetadataPartitions();
  if (secondary) {
    // The definition first (checked before anything is written), then the build.
    IndexDefinition def{name, "secondary_index", "identity", {column}, {}, "V2"};
    std::string why;
    if (!MaintainableSecondaryIndex(impl_->ctx, {{name, def}}, name, &why)) {
      return Status::Invalid("cannot build a secondary index on '", column, "' of ", impl_->ctx.uri, ": ", why);
    }
    if (std::find(before.begin(), before.end(), name) != before.end()) {
      return Status::Invalid("table ", impl_->ctx.uri, " already has the index '", name, "'; drop it first");
    }
  }
  before.insert(before.end(), before_inflight.begin(), before_inflight.end());
  if (secondary) {
    // Folders of names that differ only in case are one folder on case-insensitive storage
    // (macOS, Windows, some object-store gateways): two indexes would write into one.
    auto lower = [](std::string text) {
      for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return text;
    };
    for (const auto& p : before) {
      if (p != name && lower(p) == lower(name)) {
        return Status::Invalid("table ", impl_->ctx.uri, " has the index '", p, "', which '", name,
                               "' differs from only in case: their folders would be one on case-insensitive storage");
      }
    }
  }
  Status built = secondary ? WriteSecondaryIndexDefinition(impl_->ctx, name, column) : Status::OK();
  if (built.ok()) built = BuildMetadataPartitions(impl_->ctx, {name}, *guard, /*refuse_twins=*/true);
  if (!built.ok() && !IsError(built, ErrorKind::kCrashInjected)) {
    // A build that failed leaves the table as it was (best effort: a crash is what recovery
    // settles): the partitions it listed dropped (the files partition too, when it came first),
    // a secondary index's definition removed. Else the next write would rebuild them, and fail
    // with them while the cause stays.
    auto [listed, inflight] = MetadataPartitions();
    std::vector<std::string> undo;
    for (const auto* list : {&listed, &inflight}) {
      for (const auto& p : *list) {
        if (std::find(before.begin(), before.end(), p) == before.end()) undo.push_back(p);
      }
    }
    (void)DropMetadataPartitions(impl_->ctx, undo, *guard);
    if (secondary) (void)RemoveIndexDefinition(impl_->ctx, name);
  }
  ARROW_RETURN_NOT_OK(built);
  // Built. A failed release only delays the next writer until the lease runs out.
  (void)guard->Release();
  return Status::OK();
}

Status Table::DropIndex(const std::string& name) {
  ARROW_RETURN_NOT_OK(impl_->ctx.CheckWritable("drop an index of"));
  ARROW_ASSIGN_OR_RAISE(auto serial, impl_->ctx.SerializeWrites("drop an index of"));
  ARROW_ASSIGN_OR_RAISE(auto guard, impl_->ctx.Lock().Acquire("drop an index"));
  auto [built, inflight] = MetadataPartitions();
  const bool listed = std::find(built.begin(), built.end(), name) != built.end() ||
                      std::find(inflight.begin(), inflight.end(), name) != inflight.end();
  // A secondary index a replace operation dropped keeps its definition until the next write
  // rebuilds it: dropping it then removes the definition.
  bool defined = false;
  if (IsSecondaryIndexPartition(name)) {
    ARROW_ASSIGN_OR_RAISE(auto defs, LoadTableIndexDefinitions(impl_->ctx));
    defined = defs.count(name) > 0;
  }
  if (!listed && !defined) return Status::Invalid("table ", impl_->ctx.uri, " has no index '", name, "'");
  ARROW_RETURN_NOT_OK(DropMetadataPartitions(impl_->ctx, {name}, *guard));
  // A dropped secondary index loses its definition too (as Hudi's DROP INDEX): no later write
  // rebuilds it.
  // Dropping files drops the whole metadata table, and every secondary index with it.
  for (const auto& p : name == kMetadataFiles ? built : std::vector<std::string>{name}) {
    if (IsSecondaryIndexPartition(p)) ARROW_RETURN_NOT_OK(RemoveIndexDefinition(impl_->ctx, p));
  }
  (void)guard->Release();  // dropped; a failed release only delays the next writer
  return Status::OK();
}

Result<std::shared_ptr<arrow::Table>> Table::Lookup(const std::shared_ptr<arrow::RecordBatchReader>& keys) {
  return LookupRecords(impl_->ctx, keys);
}

Result<std::shared_ptr<arrow::Table>> Table::LookupSecondary(const std::string& index,
                                                             const std::shared_ptr<arrow::RecordBatchReader>& values) {
  return lakeshore::LookupSecondary(impl_->ctx, index, values);
}

Result<std::shared_ptr<arrow::Table>> Table::ReadIncremental(const std::string& start_exclusive,
                                                             const std::string& end_inclusive,
                                                             const ReadOptions& options) {
  return lakeshore::ReadIncremental(impl_->ctx, start_exclusive, end_inclusive, options);
}

Result<std::string> Table::Rollback(const std::string& instant_time) {
  ARROW_RETURN_NOT_OK(impl_->ctx.CheckWritable("roll back"));
  ARROW_ASSIGN_OR_RAISE(auto serial, impl_->ctx.SerializeWrites("roll back"));
  ARROW_ASSIGN_OR_RAISE(auto rollback, RollbackCompletedInstant(impl_->ctx, instant_time));
  // A schema change rolled back: the schema before it is the table's again.
  ARROW_RETURN_NOT_OK(ReloadSchema(impl_->ctx));
  return rollback;
}

Result<std::string> Table::Restore(const std::string& savepoint_time) {
  ARROW_RETURN_NOT_OK(impl_->ctx.CheckWritable("restore"));
  ARROW_ASSIGN_OR_RAISE(auto serial, impl_->ctx.SerializeWrites("restore"));
  ARROW_ASSIGN_OR_RAISE(auto restore, RestoreToSavepoint(impl_->ctx, savepoint_time));
  ARROW_RETURN_NOT_OK(ReloadSchema(impl_->ctx));  // as of the savepoint
  return restore;
}

Result<SavepointView> Table::CreateSavepoint(const std::string& instant_time, const std::string& user,
                                            const std::string& comment) {
  ARROW_ASSIGN_OR_RAISE(auto serial, impl_->ctx.SerializeWrites("savepoint"));
  return lakeshore::CreateSavepoint(impl_->ctx, instant_time, user, comment);
}

Status Table::DeleteSavepoint(const std::string& instant_time) {
  ARROW_ASSIGN_OR_RAISE(auto serial, impl_->ctx.SerializeWrites("delete a savepoint of"));
  return lakeshore::DeleteSavepoint(impl_->ctx, instant_time);
}

Result<std::vector<SavepointView>> Table::Savepoints() { return ListSavepoints(impl_->ctx); }

Result<ArchiveResult> Table::Archive(const ArchiveOptions& options) {
  ARROW_ASSIGN_OR_RAISE(auto serial, impl_->ctx.SerializeWrites("archive"));
  ARROW_ASSIGN_OR_RAISE(auto result, ArchiveTimeline(impl_->ctx, options));
  // The data timeline's archival moves the metadata timeline's bound: archive it too.
  ARROW_ASSIGN_OR_RAISE(auto metadata, ArchiveMetadataTimeline(impl_->ctx, options));
  result.metadata_archived_instants = std::move(metadata.archived_instants);
  return result;
}

Result<CompactionResult> Table::Compact(const CompactionOptions& options) {
  ARROW_RETURN_NOT_OK(impl_->ctx.CheckWritable("compact"));
  ARROW_ASSIGN_OR_RAISE(auto serial, impl_->ctx.SerializeWrites("compact"));
  return CompactTable(impl_->ctx, options);
}

Result<ClusteringResult> Table::Cluster(const ClusteringOptions& options) {
  ARROW_RETURN_NOT_OK(impl_->ctx.CheckWritable("cluster"));
  ARROW_ASSIGN_OR_RAISE(auto serial, impl_->ctx.SerializeWrites("cluster"));
  return ClusterTable(impl_->ctx, options);
}

Status Table::EvolveSchema(const std::shared_ptr<arrow::Schema>& schema) {
  TableContext& ctx = impl_->ctx;
  ARROW_RETURN_NOT_OK(CommitSchemaEvolution(ctx, schema).status());
  // The new schema is the table's from now on.
  return ReloadSchema(ctx);
}

Result<std::vector<InstantView>> Table::Timeline() {
  ARROW_ASSIGN_OR_RAISE(auto timeline, impl_->ctx.LoadTimeline());
  std::vector<InstantView> out;
  for (const auto& i : timeline.instants()) {
    out.push_back({i.time, i.action, InstantStateName(i.state), i.completion_time});
  }
  return out;
}

Result<std::vector<std::string>> Table::Files(const std::optional<std::string>& as_of) {
  ARROW_ASSIGN_OR_RAISE(auto view, ViewAsOf(impl_->ctx, as_of));
  std::vector<std::string> out;
  for (const FileGroup* g : view.LiveFileGroups()) {
    const FileSlice& slice = g->latest();
    if (slice.base_file) out.push_back(impl_->ctx.storage->ExternalPath(slice.base_file->path));
    for (const auto& log : slice.log_files) out.push_back(impl_->ctx.storage->ExternalPath(log));
  }
  return out;
}

Result<std::vector<std::string>> Table::RollbackFailedWrites() {
  TableContext& ctx = impl_->ctx;
  ARROW_RETURN_NOT_OK(ctx.CheckWritable("roll back failed writes of"));
  ARROW_ASSIGN_OR_RAISE(auto serial, ctx.SerializeWrites("roll back failed writes of"));
  ARROW_ASSIGN_OR_RAISE(auto guard, ctx.Lock().Acquire("rollback"));
  ARROW_ASSIGN_OR_RAISE(auto timeline, ctx.LoadTimeline());
  ARROW_ASSIGN_OR_RAISE(auto rolled_back, lakeshore::RollbackFailedWrites(ctx, timeline, *guard));
  ARROW_RETURN_NOT_OK(guard->Release());
  return rolled_back;
}

}  // namespace lakeshore
