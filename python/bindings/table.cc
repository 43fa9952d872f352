// lakeshore._core.Table: the C++ Table for Python. The lakeshore.Table class (table.py) wraps it
// with the user-facing argument handling; this layer converts types, releases the GIL around
// every call that does I/O, and turns a non-OK Status into the mapped Python exception.
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <arrow/array/concatenate.h>
#include <arrow/array/util.h>

#include "bindings.h"
#include "progress.h"
#include "lakeshore/table/table.h"
#include "lakeshore/table/table_config.h"

namespace lakeshore::python {
namespace {

using StringMap = std::map<std::string, std::string>;
/// (field, op, values): one predicate of a partition filter; values is an `arrow_array_stream`
/// capsule of a one-column table holding the value(s), of any type (the core renders them).
using PredicateTuple = std::tuple<std::string, std::string, nb::object>;

/// Runs `fn` (a call into the core) without the GIL, then raises its error, if any, with it.
template <typename Fn>
auto WithoutGil(Fn&& fn) {
  using R = decltype(fn());
  std::optional<R> result;
  {
    nb::gil_scoped_release release;
    result.emplace(fn());
  }
  if constexpr (std::is_same_v<R, arrow::Status>) {
    CheckStatus(*result);
  } else {
    return ValueOrRaise(std::move(*result));
  }
}

/// WithoutGil for a change to the table (`what`: "index build", "restore", ...) that takes no
/// progress callback and so runs to its end: a Ctrl-C pressed meanwhile is raised once it
/// returns, noting that the change completed (the CLI said "interrupted" and nothing more,
/// although the change had been made).
template <typename Fn>
auto Completing(const char* what, Fn&& fn) {
  auto noted = [what](auto&& value) {
    if (PyErr_CheckSignals() != 0) {
      nb::python_error interrupt;
      const std::string note = std::string("lakeshore: the ") + what +
                               " had already started, cannot be stopped midway, and completed";
      if (nb::hasattr(interrupt.value(), "add_note")) interrupt.value().attr("add_note")(note);
      interrupt.restore();
      throw nb::python_error();
    }
    return std::forward<decltype(value)>(value);
  };
  using R = decltype(fn());
  if constexpr (std::is_same_v<R, arrow::Status>) {
    WithoutGil(std::forward<Fn>(fn));
    noted(0);
  } else {
    return noted(WithoutGil(std::forward<Fn>(fn)));
  }
}

nb::dict SavepointDict(const SavepointView& s) {
  nb::dict d;
  d["instant_time"] = s.instant_time;
  d["completion_time"] = s.completion_time;
  d["user"] = s.user;
  d["comment"] = s.comment;
  d["savepointed_at_s"] = s.savepointed_at_s;
  d["files"] = s.files;
  return d;
}

TableOpenOptions MakeOpenOptions(const StringMap& storage_options) {
  TableOpenOptions options;
  for (const auto& [key, value] : storage_options) {
    if (key == "access_key") {
      options.storage.s3_access_key = value;
    } else if (key == "secret_key") {
      options.storage.s3_secret_key = value;
    } else if (key == "region") {
      options.storage.s3_region = value;
    } else {
      RaiseStatus(arrow::Status::Invalid("unknown storage option '", key,
                                         "'; known: access_key, secret_key, region"));
    }
  }
  return options;
}

std::vector<PartitionPredicate> MakeFilter(const std::vector<PredicateTuple>& filter) {
  std::vector<PartitionPredicate> out;
  out.reserve(filter.size());
  for (const auto& [field, op, capsule] : filter) {
    std::shared_ptr<arrow::RecordBatchReader> reader = ImportStreamCapsule(capsule);
    std::shared_ptr<arrow::Table> values = ValueOrRaise(reader->ToTable());
    if (values->num_columns() != 1) {
      RaiseStatus(arrow::Status::Invalid("the values of a filter on '", field, "' must be one column"));
    }
    auto column = values->column(0);
    std::shared_ptr<arrow::Array> array;
    if (column->num_chunks() == 0) {
      array = ValueOrRaise(arrow::MakeEmptyArray(column->type()));
    } else if (column->num_chunks() == 1) {
      array = column->chunk(0);
    } else {
      array = ValueOrRaise(arrow::Concatenate(column->chunks()));
    }
    out.push_back({field, op, std::move(array)});
  }
  return out;
}

ReadOptions MakeReadOptions(std::vector<std::string> columns,
                            const std::vector<PredicateTuple>& filter,
                            std::optional<std::string> as_of) {
  ReadOptions options;
  options.columns = std::move(columns);
  options.filter = MakeFilter(filter);
  options.as_of = std::move(as_of);
  return options;
}

nb::dict WriteResultDict(const WriteResult& r) {
  nb::dict d;
  d["instant_time"] = r.instant_time;
  d["operation"] = WriteOperationName(r.operation);
  d["records_in"] = r.records_in;
  d["records_inserted"] = r.records_inserted;
  d["records_updated"] = r.records_updated;
  d["records_deleted"] = r.records_deleted;
  d["files_written"] = r.files_written;
  d["bytes_written"] = r.bytes_written;
  d["file_groups_touched"] = r.file_groups_touched;
  d["file_groups_replaced"] = r.file_groups_replaced;
  d["rolled_back_instants"] = nb::cast(r.rolled_back_instants);
  d["compaction_instant"] = r.compaction_instant.empty() ? nb::object(nb::none()) : nb::cast(r.compaction_instant);
  d["active_write_instants"] = r.active_write_instants;
  d["archived_instants"] = nb::cast(r.archived_instants);
  if (!r.tagging.index.empty()) {
    const TaggingMetrics& m = r.tagging;
    nb::dict t;
    t["index"] = m.index;
    t["keys"] = m.keys;
    t["files_considered"] = m.files_considered;
    t["files_pruned_by_range"] = m.files_pruned_by_range;
    t["files_pruned_by_bloom"] = m.files_pruned_by_bloom;
    t["filters_loaded"] = m.filters_loaded;
    t["filter_batches"] = m.filter_batches;
    t["keys_checked"] = m.keys_checked;
    t["false_positives"] = m.false_positives;
    t["files_read"] = m.files_read;
    t["found"] = m.found;
    t["duration_ms"] = m.duration_ms;
    d["tagging"] = t;
  }
  d["duration_ms"] = r.duration_ms;
  return d;
}

nb::dict InstantDict(const InstantView& v) {
  nb::dict d;
  d["time"] = v.time;
  d["action"] = v.action;
  d["state"] = v.state;
  d["completion_time"] = v.completion_time.empty() ? nb::object(nb::none()) : nb::cast(v.completion_time);
  return d;
}

nb::dict ConfigDict(const TableConfig& c) {
  nb::dict d;
  d["name"] = c.name;
  d["format_version"] = c.format_version;
  d["record_key"] = nb::cast(c.record_key_fields);
  d["partition_by"] = nb::cast(c.partition_fields);
  d["ordering_field"] = c.ordering_field.empty() ? nb::object(nb::none()) : nb::cast(c.ordering_field);
  d["table_type"] = TableTypeName(c.table_type);
  d["blob_columns"] = nb::cast(c.BlobColumns());
  d["properties"] = nb::cast(c.properties);
  return d;
}

std::shared_ptr<Table> CreateTable(const std::string& uri, nb::handle schema_capsule,
                                   std::vector<std::string> record_key,
                                   std::vector<std::string> partition_by,
                                   std::string ordering_field, const std::string& table_type,
                                   std::string name, StringMap properties,
                                   const StringMap& storage_options) {
  TableConfig config;
  config.name = std::move(name);
  config.schema = ImportSchemaCapsule(schema_capsule);
  config.record_key_fields = std::move(record_key);
  config.partition_fields = std::move(partition_by);
  config.ordering_field = std::move(ordering_field);
  config.table_type = ValueOrRaise(ParseTableType(table_type));
  config.properties = std::move(properties);
  TableOpenOptions options = MakeOpenOptions(storage_options);
  return WithoutGil([&] { return Table::Create(uri, std::move(config), std::move(options)); });
}

std::shared_ptr<Table> OpenTable(const std::string& uri, const StringMap& storage_options, const StringMap& properties) {
  TableOpenOptions options = MakeOpenOptions(storage_options);
  for (const auto& [k, v] : properties) options.properties[k] = v;
  return WithoutGil([&] { return Table::Open(uri, std::move(options)); });
}

/// A core ProgressCallback (and its unit, given by the event) over the Python callback.
ProgressCallback CallbackOf(PythonProgress& reporter) {
  return reporter.Callback<Progress>([](const Progress& p) { return p.unit; });
}

/// Table::Write with an optional Python progress callback (PythonProgress).
nb::dict Write(Table& table, const std::string& operation, nb::handle stream_capsule,
               nb::object progress) {
  WriteOperation op = ValueOrRaise(ParseWriteOperation(operation));
  std::shared_ptr<arrow::RecordBatchReader> reader = ImportStreamCapsule(stream_capsule);
  PythonProgress reporter(std::move(progress));
  WriteOptions options;
  options.progress = CallbackOf(reporter);
  options.stop = reporter.stop();
  arrow::Result<WriteResult> result;
  {
    nb::gil_scoped_release release;
    result = table.Write(op, std::move(reader), options);
  }
  return WriteResultDict(reporter.Finish(std::move(result), "write"));
}

/// Table::Compact; the result as a dict.
nb::dict Compact(Table& table, int64_t min_delta_commits, int64_t min_log_bytes, bool schedule_only,
                 nb::object progress) {
  PythonProgress reporter(std::move(progress));
  CompactionOptions options;
  options.min_delta_commits = min_delta_commits;
  options.min_log_bytes = min_log_bytes;
  options.schedule_only = schedule_only;
  options.progress = CallbackOf(reporter);
  options.stop = reporter.stop();
  arrow::Result<CompactionResult> result;
  {
    nb::gil_scoped_release release;
    result = table.Compact(options);
  }
  const CompactionResult r = reporter.Finish(std::move(result), "compaction");
  nb::dict d;
  d["instant_time"] = r.instant_time.empty() ? nb::object(nb::none()) : nb::cast(r.instant_time);
  d["scheduled"] = r.scheduled;
  d["completed"] = r.completed;
  d["reason"] = r.reason.empty() ? nb::object(nb::none()) : nb::cast(r.reason);
  d["file_groups"] = r.file_groups;
  d["log_files"] = r.log_files;
  d["records_written"] = r.records_written;
  d["bytes_written"] = r.bytes_written;
  d["rolled_back_instants"] = nb::cast(r.rolled_back_instants);
  d["duration_ms"] = r.duration_ms;
  return d;
}

/// Table::Cluster; the result as a dict.
nb::dict Cluster(Table& table, std::vector<std::string> sort_columns, int64_t small_file_limit_bytes,
                 int64_t target_file_bytes, std::vector<std::string> partitions, bool schedule_only,
                 nb::object progress) {
  PythonProgress reporter(std::move(progress));
  ClusteringOptions options;
  options.sort_columns = std::move(sort_columns);
  options.small_file_limit_bytes = small_file_limit_bytes;
  options.target_file_bytes = target_file_bytes;
  options.partitions = std::move(partitions);
  options.schedule_only = schedule_only;
  options.progress = CallbackOf(reporter);
  options.stop = reporter.stop();
  arrow::Result<ClusteringResult> result;
  {
    nb::gil_scoped_release release;
    result = table.Cluster(options);
  }
  const ClusteringResult r = reporter.Finish(std::move(result), "clustering");
  nb::dict d;
  d["instant_time"] = r.instant_time.empty() ? nb::object(nb::none()) : nb::cast(r.instant_time);
  d["scheduled"] = r.scheduled;
  d["completed"] = r.completed;
  d["reason"] = r.reason.empty() ? nb::object(nb::none()) : nb::cast(r.reason);
  d["file_groups_replaced"] = r.file_groups_replaced;
  d["file_groups_written"] = r.file_groups_written;
  d["records_written"] = r.records_written;
  d["bytes_written"] = r.bytes_written;
  d["rolled_back_instants"] = nb::cast(r.rolled_back_instants);
  d["duration_ms"] = r.duration_ms;
  return d;
}

}  // namespace

void BindTable(nb::module_& m) {
  nb::class_<Table>(m, "Table",
                    "The C++ table. Use lakeshore.Table, which wraps this with argument handling.")
      .def_static("create", &CreateTable, nb::arg("uri"), nb::arg("schema"),
                  nb::arg("record_key"), nb::arg("partition_by"), nb::arg("ordering_field"),
                  nb::arg("table_type"), nb::arg("name"), nb::arg("properties"),
                  nb::arg("storage_options"),
                  "Creates a table at `uri` (schema: an `arrow_schema` capsule); refused if one "
                  "is already there.")
      .def_static("open", &OpenTable, nb::arg("uri"), nb::arg("storage_options"), nb::arg("properties"),
                  "Opens the Hudi table at `uri` with writer options `properties` over its stored ones; "
                  "CorruptMetadataError if its hoodie.properties is bad.")
      .def_prop_ro("uri", &Table::uri, "The table root as a URI.")
      .def("config", [](const Table& t) { return ConfigDict(t.config()); },
           "The table's config as a dict (name, record_key, partition_by, ordering_field, "
           "table_type, blob_columns, properties, format_version).")
      .def("schema", [](const Table& t) { return ExportSchemaCapsule(*t.config().schema); },
           "The user schema (no meta columns) as an `arrow_schema` capsule.")
      .def("full_schema", [](const Table& t) { return ExportSchemaCapsule(*t.full_schema()); },
           "The schema with the meta columns first, as an `arrow_schema` capsule.")
      .def("write", &Write, nb::arg("operation"), nb::arg("data"), nb::arg("progress").none(),
           "Writes the `arrow_array_stream` capsule `data` with `operation` (insert, upsert, "
           "delete, bulk_insert) as one instant; returns the WriteResult as a dict. Releases the "
           "GIL.")
      .def(
          "read",
          [](Table& t, std::vector<std::string> columns, const std::vector<PredicateTuple>& filter,
             std::optional<std::string> as_of, bool read_optimized) {
            ReadOptions options = MakeReadOptions(std::move(columns), filter, std::move(as_of));
            options.read_optimized = read_optimized;
            return ExportTableCapsule(WithoutGil([&] { return t.Read(options); }));
          },
          nb::arg("columns"), nb::arg("filter"), nb::arg("as_of").none(), nb::arg("read_optimized") = false,
          "Snapshot read; returns an `arrow_array_stream` capsule. Releases the GIL.")
      .def(
          "metadata_partitions",
          [](const Table& t) {
            auto [built, inflight] = t.MetadataPartitions();
            nb::dict d;
            d["partitions"] = nb::cast(built);
            d["inflight"] = nb::cast(inflight);
            return d;
          },
          "The metadata table's partitions built and being built, as a dict.")
      .def(
          "create_index",
          [](Table& t, const std::string& name, const std::string& column) {
            Completing("index build", [&] { return t.CreateIndex(name, column); });
          },
          nb::arg("name"), nb::arg("column") = "",
          "Builds the metadata table's partition `name` (files, record_index, bloom_filters, column_stats, or "
          "secondary_index_<name> on `column`). Releases the GIL.")
      .def(
          "drop_index",
          [](Table& t, const std::string& name) { Completing("index drop", [&] { return t.DropIndex(name); }); },
          nb::arg("name"), "Drops the metadata table's partition `name`. Releases the GIL.")
      .def(
          "lookup",
          [](Table& t, nb::handle keys_capsule) {
            std::shared_ptr<arrow::RecordBatchReader> keys = ImportStreamCapsule(keys_capsule);
            return ExportTableCapsule(WithoutGil([&] { return t.Lookup(keys); }));
          },
          nb::arg("keys"),
          "Where the records with these keys live: an `arrow_array_stream` capsule of (record_key, "
          "partition, file_id). Releases the GIL.")
      .def(
          "lookup_secondary",
          [](Table& t, const std::string& index, nb::handle values_capsule) {
            std::shared_ptr<arrow::RecordBatchReader> values = ImportStreamCapsule(values_capsule);
            return ExportTableCapsule(WithoutGil([&] { return t.LookupSecondary(index, values); }));
          },
          nb::arg("index"), nb::arg("values"),
          "The records whose indexed column holds one of the values (the stream's first column), from a "
          "secondary index: an `arrow_array_stream` capsule of (secondary_key, record_key). Releases the GIL.")
      .def(
          "read_incremental",
          [](Table& t, const std::string& start, std::optional<std::string> end,
             std::vector<std::string> columns, const std::vector<PredicateTuple>& filter) {
            ReadOptions options = MakeReadOptions(std::move(columns), filter, std::nullopt);
            std::string end_inclusive = end.value_or("");
            return ExportTableCapsule(
                WithoutGil([&] { return t.ReadIncremental(start, end_inclusive, options); }));
          },
          nb::arg("start"), nb::arg("end").none(), nb::arg("columns"), nb::arg("filter"),
          "Records written by completed instants in (start, end]; an `arrow_array_stream` "
          "capsule. Releases the GIL.")
      .def(
          "timeline",
          [](Table& t) {
            std::vector<InstantView> instants = WithoutGil([&] { return t.Timeline(); });
            nb::list out;
            for (const InstantView& v : instants) out.append(InstantDict(v));
            return out;
          },
          "Every instant of the active timeline, oldest first, as dicts (time, action, state, "
          "completion_time).")
      .def(
          "files",
          [](Table& t, std::optional<std::string> as_of) {
            return WithoutGil([&] { return t.Files(as_of); });
          },
          nb::arg("as_of").none(),
          "The data files of the latest slices as of `as_of`, as other tools open them.")
      .def(
          "create_savepoint",
          [](Table& t, const std::string& instant, const std::string& user, const std::string& comment) {
            return SavepointDict(Completing("savepoint", [&] { return t.CreateSavepoint(instant, user, comment); }));
          },
          nb::arg("instant"), nb::arg("user"), nb::arg("comment"), "Savepoints a completed write instant.")
      .def(
          "delete_savepoint",
          [](Table& t, const std::string& instant) { Completing("savepoint deletion", [&] { return t.DeleteSavepoint(instant); }); },
          nb::arg("instant"), "Removes the savepoint of an instant.")
      .def(
          "savepoints",
          [](Table& t) {
            nb::list out;
            for (const auto& s : WithoutGil([&] { return t.Savepoints(); })) out.append(SavepointDict(s));
            return out;
          },
          "The table's savepoints, oldest first, as dicts.")
      .def(
          "archive",
          [](Table& t, std::optional<int64_t> keep_min, std::optional<int64_t> keep_max) {
            ArchiveOptions options;
            options.keep_min_commits = keep_min;
            options.keep_max_commits = keep_max;
            ArchiveResult r = Completing("archive", [&] { return t.Archive(options); });
            nb::dict d;
            d["archived_instants"] = nb::cast(r.archived_instants);
            d["metadata_archived_instants"] = nb::cast(r.metadata_archived_instants);
            d["data_files_written"] = r.data_files_written;
            d["manifest_version"] = r.manifest_version;
            d["duration_ms"] = r.duration_ms;
            return d;
          },
          nb::arg("keep_min_commits").none(), nb::arg("keep_max_commits").none(),
          "Moves old completed instants into the archived timeline; returns a dict (archived_instants, "
          "metadata_archived_instants, data_files_written, manifest_version, duration_ms).")
      .def("compact", &Compact, nb::arg("min_delta_commits"), nb::arg("min_log_bytes"), nb::arg("schedule_only"),
           nb::arg("progress").none(),
           "Compacts a merge-on-read table (finishing a pending compaction first); returns a dict "
           "(instant_time, scheduled, completed, reason, file_groups, log_files, records_written, "
           "bytes_written, rolled_back_instants, duration_ms).")
      .def("cluster", &Cluster, nb::arg("sort_columns"), nb::arg("small_file_limit_bytes"),
           nb::arg("target_file_bytes"), nb::arg("partitions"), nb::arg("schedule_only"), nb::arg("progress").none(),
           "Clusters the table (finishing a pending clustering first); returns a dict (instant_time, scheduled, "
           "completed, reason, file_groups_replaced, file_groups_written, records_written, bytes_written, "
           "rolled_back_instants, duration_ms).")
      .def(
          "rollback",
          [](Table& t, const std::string& instant) { return Completing("rollback", [&] { return t.Rollback(instant); }); },
          nb::arg("instant"), "Rolls back the latest completed write; returns the rollback instant's time.")
      .def(
          "evolve_schema",
          [](Table& t, nb::handle schema_capsule) {
            auto schema = ImportSchemaCapsule(schema_capsule);
            Completing("schema change", [&] { return t.EvolveSchema(schema); });
          },
          nb::arg("schema"), "Changes the table's schema (add nullable columns, widen, reorder).")
      .def(
          "restore",
          [](Table& t, const std::string& savepoint) { return Completing("restore", [&] { return t.Restore(savepoint); }); },
          nb::arg("savepoint"), "Restores the table to a savepoint; returns the restore instant's time.")
      .def(
          "rollback_failed_writes",
          [](Table& t) { return Completing("rollback of failed writes", [&] { return t.RollbackFailedWrites(); }); },
          "Rolls back every failed write (pending, heartbeat expired); returns their instant "
          "times.");
}

}  // namespace lakeshore::python
