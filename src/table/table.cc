#include "lakeshore/table/table.h"

#include <algorithm>

#include "read/snapshot_reader.h"
#include "table/layout.h"
#include "table/meta_columns.h"
#include "table/table_context.h"
#include "write/rollback.h"
#include "write/write_client.h"

namespace lakeshore {

const char* WriteOperationName(WriteOperation op) {
  switch (op) {
    case WriteOperation::kInsert: return "insert";
    case WriteOperation::kUpsert: return "upsert";
    case WriteOperation::kDelete: return "delete";
    case WriteOperation::kBulkInsert: return "bulk_insert";
  }
  return "?";
}

Result<WriteOperation> ParseWriteOperation(const std::string& name) {
  for (auto op : {WriteOperation::kInsert, WriteOperation::kUpsert, WriteOperation::kDelete,
                  WriteOperation::kBulkInsert})
    if (name == WriteOperationName(op)) return op;
  return Status::Invalid("unknown write operation '", name, "' (insert, upsert, delete, bulk_insert)");
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
  ARROW_ASSIGN_OR_RAISE(bool exists, storage.Exists(layout::kTableConfig));
  if (exists) return Status::AlreadyExists("a Lakeshore table already exists at ", uri);
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
}  // namespace

Table::Table(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Table::~Table() = default;

Result<std::shared_ptr<Table>> Table::Create(const std::string& uri, TableConfig config, TableOpenOptions options) {
  ARROW_RETURN_NOT_OK(config.Validate());
  if (config.table_type == TableType::kMergeOnRead) {
    // The format reserves it (log files, compaction); writing it comes with merge-on-read.
    return UnsupportedFeature("merge-on-read tables cannot be written by this build yet; create a "
                              "copy-on-write table (table_type \"cow\")");
  }
  ARROW_ASSIGN_OR_RAISE(auto storage, OpenStorage(uri, options));
  ARROW_RETURN_NOT_OK(CheckEmptyForCreate(*storage, uri));
  ARROW_ASSIGN_OR_RAISE(bool created, storage->PutIfAbsentString(layout::kTableConfig, config.ToJson()));
  if (!created) return Status::AlreadyExists("a Lakeshore table already exists at ", uri);
  options.storage_override = storage;
  return Open(uri, std::move(options));
}

Result<std::shared_ptr<Table>> Table::Open(const std::string& uri, TableOpenOptions options) {
  ARROW_ASSIGN_OR_RAISE(auto storage, OpenStorage(uri, options));
  ARROW_ASSIGN_OR_RAISE(bool exists, storage->Exists(layout::kTableConfig));
  if (!exists) {
    return Status::IOError("no Lakeshore table at ", uri, " (", layout::kTableConfig, " is missing)");
  }
  ARROW_ASSIGN_OR_RAISE(auto text, storage->ReadString(layout::kTableConfig));
  ARROW_ASSIGN_OR_RAISE(auto config, TableConfig::FromJson(text, JoinPath(uri, layout::kTableConfig)));
  auto impl = std::make_unique<Impl>();
  TableContext& ctx = impl->ctx;
  ctx.uri = uri;
  ctx.storage = std::move(storage);
  ctx.clock = options.clock ? options.clock : Clock::System();
  ctx.engine = options.engine ? options.engine : Engine::Default();
  ctx.config = std::move(config);
  ctx.full_schema = meta_columns::WithMetaColumns(*ctx.config.schema);
  ARROW_RETURN_NOT_OK(ctx.LoadSettings());
  return std::shared_ptr<Table>(new Table(std::move(impl)));
}

const TableConfig& Table::config() const { return impl_->ctx.config; }
std::shared_ptr<arrow::Schema> Table::full_schema() const { return impl_->ctx.full_schema; }
const std::shared_ptr<Storage>& Table::storage() const { return impl_->ctx.storage; }
std::string Table::uri() const { return impl_->ctx.uri; }

Result<WriteResult> Table::Write(WriteOperation op, std::shared_ptr<arrow::RecordBatchReader> data,
                                 const WriteOptions& options) {
  return ExecuteWrite(impl_->ctx, op, data, options);
}

Result<std::shared_ptr<arrow::Table>> Table::Read(const ReadOptions& options) {
  return ReadSnapshot(impl_->ctx, options);
}

Result<std::shared_ptr<arrow::Table>> Table::ReadIncremental(const std::string& start_exclusive,
                                                             const std::string& end_inclusive,
                                                             const ReadOptions& options) {
  return lakeshore::ReadIncremental(impl_->ctx, start_exclusive, end_inclusive, options);
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
  for (const FileGroup* g : view.LiveFileGroups()) out.push_back(g->latest().base_file->path);
  return out;
}

Result<std::vector<std::string>> Table::RollbackFailedWrites() {
  TableContext& ctx = impl_->ctx;
  ARROW_RETURN_NOT_OK(ctx.CheckNotInsideProgressCallback("roll back failed writes of"));
  std::lock_guard<std::mutex> serial(ctx.write_mu);
  ARROW_ASSIGN_OR_RAISE(auto guard, ctx.Lock().Acquire("rollback"));
  ARROW_ASSIGN_OR_RAISE(auto timeline, ctx.LoadTimeline());
  ARROW_ASSIGN_OR_RAISE(auto rolled_back, lakeshore::RollbackFailedWrites(ctx, timeline, *guard));
  ARROW_RETURN_NOT_OK(guard->Release());
  return rolled_back;
}

}  // namespace lakeshore
