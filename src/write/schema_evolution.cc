#include "write/schema_evolution.h"

#include "format/avro_schema.h"
#include "table/column_names.h"
#include "table/file_system_view.h"
#include "write/write_client.h"

namespace lakeshore {
namespace {

int IntegerRank(arrow::Type::type id) {
  switch (id) {
    case arrow::Type::INT8: return 1;
    case arrow::Type::INT16: return 2;
    case arrow::Type::INT32: return 3;
    case arrow::Type::INT64: return 4;
    default: return 0;
  }
}

}  // namespace

bool IsWidening(const arrow::DataType& from, const arrow::DataType& to) {
  if (from.Equals(to)) return true;
  const int a = IntegerRank(from.id()), b = IntegerRank(to.id());
  if (a > 0 && b > 0) return a < b;
  return from.id() == arrow::Type::FLOAT && to.id() == arrow::Type::DOUBLE;
}

Status CheckSchemaEvolution(const arrow::Schema& current, const arrow::Schema& next) {
  for (const auto& field : current.fields()) {
    auto now = next.GetFieldByName(field->name());
    if (now == nullptr) {
      return SchemaMismatch("the new schema drops column '" + field->name() +
                            "'; columns can be added, widened and reordered, not dropped or renamed");
    }
    if (!IsWidening(*field->type(), *now->type())) {
      return SchemaMismatch("column '" + field->name() + "' would change from " + field->type()->ToString() + " to " +
                            now->type()->ToString() + "; only widening (int32 to int64, float to double) is allowed");
    }
    if (field->nullable() && !now->nullable()) {
      return SchemaMismatch("column '" + field->name() + "' would become non-nullable, but old records may hold nulls");
    }
  }
  for (const auto& field : next.fields()) {
    if (current.GetFieldByName(field->name()) != nullptr) continue;
    if (!field->nullable()) {
      return SchemaMismatch("new column '" + field->name() + "' must be nullable: older records have no value for it");
    }
  }
  return Status::OK();
}

Result<std::string> CommitSchemaEvolution(TableContext& ctx, const std::shared_ptr<arrow::Schema>& next) {
  ARROW_RETURN_NOT_OK(ctx.CheckWritable("change the schema of"));
  ARROW_RETURN_NOT_OK(CheckColumnNames(*next));
  const auto normalized = format::NormalizeForHudi(*next);
  ARROW_RETURN_NOT_OK(CheckSchemaEvolution(*ctx.config.schema, *normalized));
  for (const auto* names : {&ctx.config.record_key_fields, &ctx.config.partition_fields}) {
    for (const auto& name : *names) {
      if (!ctx.config.schema->GetFieldByName(name)->type()->Equals(*normalized->GetFieldByName(name)->type())) {
        return SchemaMismatch("key or partition column '" + name + "' cannot change its type");
      }
    }
  }
  if (ctx.config.table_type == TableType::kMergeOnRead) {
    // A log block merges under the latest schema in Lakeshore, but Hudi's readers (hudi-rs 0.5)
    // refuse a block whose column has a narrower type than the table: widen only slices
    // without log files.
    std::string widened;
    for (const auto& f : ctx.config.schema->fields()) {
      auto after = normalized->GetFieldByName(f->name());
      if (after && !after->type()->Equals(*f->type())) widened = f->name();
    }
    if (!widened.empty()) {
      ARROW_ASSIGN_OR_RAISE(auto timeline, ctx.LoadTimeline());
      ARROW_ASSIGN_OR_RAISE(auto commits, ctx.LoadCommits(timeline));
      const FileSystemView view = FileSystemView::Build(commits);
      for (const FileGroup* g : view.LiveFileGroups()) {
        if (g->latest().log_files.empty()) continue;
        return UnsupportedFeature("cannot widen column '" + widened + "' of merge-on-read table " + ctx.uri +
                                  " while file slices hold log files written under the old type (file group " +
                                  g->file_id + "): Hudi's readers cannot merge them across the type change; "
                                  "compact the table first (lakeshore compact), then widen");
      }
    }
  }
  const std::string safe = format::AvroSafeName(ctx.hoodie ? ctx.hoodie->name : ctx.config.name);
  ARROW_ASSIGN_OR_RAISE(std::string avro, format::ArrowSchemaToAvro(*normalized, safe + "_record", "hoodie." + safe));
  return CommitSchemaChange(ctx, avro);
}

}  // namespace lakeshore
