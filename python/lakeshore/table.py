"""lakeshore.Table: create, write and read Apache Hudi tables from Python.

Data goes in as a pyarrow Table, RecordBatch, RecordBatchReader or anything with
``__arrow_c_stream__`` (polars, DuckDB results, ...) and comes out as a pyarrow Table; both
directions go through the Arrow C stream interface without copying. Every method that does I/O
releases the GIL while the native core works.
"""

from __future__ import annotations

import datetime as _dt
import os
import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

import pyarrow as pa

from lakeshore import _core
from lakeshore._arrow import SourceErrors, schema_capsule, schema_from_capsule, stream_capsule, table_from_capsule
from lakeshore._paths import table_path
from lakeshore.errors import LakeshoreError, invalid_argument

__all__ = ["ProgressFn", "Table", "format_instant_time"]

#: ``progress(phase, done, total, unit)``, called as a write advances.
ProgressFn = Callable[[str, int, int, str], None]
#: A time-travel point: an instant time "yyyyMMddHHmmssSSS" (str or int) or a datetime (UTC if
#: naive).
AsOf = str | int | _dt.datetime | None
#: A partition filter: (field, op, value) tuples, ANDed (pyarrow's DNF with one conjunction).
Filter = Sequence[Any] | None

_OPS = {"=": "=", "==": "=", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "in": "in", "not in": "not in"}


def format_instant_time(when: _dt.datetime) -> str:
    """Formats a datetime as an instant time ``yyyyMMddHHmmssSSS`` in UTC (naive means UTC)."""
    if when.tzinfo is not None:
        when = when.astimezone(_dt.timezone.utc)
    # Fields padded by hand: strftime's %Y writes the year 999 as "999", no instant time.
    return (
        f"{when.year:04d}{when.month:02d}{when.day:02d}{when.hour:02d}{when.minute:02d}{when.second:02d}"
        f"{when.microsecond // 1000:03d}"
    )


def _instant(value: AsOf, what: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, _dt.datetime):
        return format_instant_time(value)
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise TypeError(f"{what} must be an instant time string, an int or a datetime, not {type(value).__name__}")
    if isinstance(value, str) and not value.strip():
        # An unset variable passed on must not read as "the latest" without a word.
        raise ValueError(f"{what} is empty: give an instant time (a read bound of None reads the latest)")
    return str(value)


def _as_of_time(value: AsOf, what: str) -> str | None:
    """``value`` for a read bound (as_of, an incremental start or end): an instant time names
    that instant; a datetime is a moment, passed as ISO text in UTC, so that it never names the
    instant that happens to start at it (which would show a write before it completed)."""
    if isinstance(value, _dt.datetime):
        when = value.astimezone(_dt.timezone.utc) if value.tzinfo is not None else value
        return (
            f"{when.year:04d}-{when.month:02d}-{when.day:02d} {when.hour:02d}:{when.minute:02d}:{when.second:02d}"
            f".{when.microsecond // 1000:03d}"
        )
    return _instant(value, what)


def _names(value: str | Sequence[str] | None, what: str, kind: str = "field name") -> list[str]:
    """``value`` as a list of names: one name (a str, never split into its characters), or an
    iterable of them; anything else is a TypeError naming ``what``."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, Iterable):
        raise TypeError(f"{what} must be a {kind} or a list of {kind}s, not {type(value).__name__}")
    names = list(value)
    if not all(isinstance(n, str) for n in names):
        raise TypeError(f"{what} must be a {kind} or a list of {kind}s")
    return names


def _int_arg(value: Any, what: str) -> int:
    """``value`` if it is an int (not a bool) within int64; else a TypeError or ValueError
    naming ``what`` (the core takes int64, and nanobind's own refusal names no parameter)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if not -(1 << 63) <= value < (1 << 63):
        raise ValueError(f"{what} is {value}, beyond a 64-bit integer")
    return value


def _optional_int_arg(value: Any, what: str) -> int | None:
    """None, or ``value`` as _int_arg takes it."""
    if value is None:
        return None
    try:
        return _int_arg(value, what)
    except TypeError:
        raise TypeError(f"{what} must be an int or None, not {type(value).__name__}") from None


def _bool_arg(value: Any, what: str) -> bool:
    """``value`` if it is a bool; else a TypeError naming ``what``."""
    if not isinstance(value, bool):
        raise TypeError(f"{what} must be True or False, not {type(value).__name__}")
    return value


def _str_arg(value: Any, what: str) -> str:
    """``value`` if it is a str; else a TypeError naming ``what``."""
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, not {type(value).__name__}")
    return value


def _properties(values: Mapping[str, Any] | None, what: str = "properties") -> dict[str, str]:
    """``values`` as the strings the core takes: a bool as Hudi spells it (true/false), an int
    or a float as its text; any other value is a TypeError naming its key."""
    out: dict[str, str] = {}
    for key, value in (values or {}).items():
        if not isinstance(key, str):
            raise TypeError(f"{what}: a key must be a str, not {type(key).__name__} ({key!r})")
        if isinstance(value, bool):
            out[key] = "true" if value else "false"
        elif isinstance(value, (str, int, float)):
            out[key] = str(value)
        else:
            raise TypeError(f"{what}: the value of '{key}' must be a str, bool or number, not {type(value).__name__}")
    return out


_NOT_OF_TYPE = (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError)


def _exactly_typed(values: list[Any], type: pa.DataType) -> pa.Array:
    """``values`` as an array of ``type``, each value exactly: pyarrow types 1.5 as the integer 1,
    a datetime as the date it falls on and 1.5 ms as 1 ms in a millisecond column (a filter
    "id = 1.5" found id 1, a delete of key 1.5 removed record 1). A value the type holds only
    approximately raises ValueError, as one it cannot hold at all raises pyarrow's error (one of
    ``_NOT_OF_TYPE``): the values, typed as what they are, must come back from ``type``."""
    array = pa.array(values, type=type)
    if any(isinstance(v, (float, Decimal)) for v in values) and pa.types.is_integer(type):
        if array.to_pylist() != values:
            raise ValueError("a value is not a whole number")
        return array
    try:
        natural = pa.array(values)
    except _NOT_OF_TYPE:
        return array  # values of several kinds: as pyarrow typed them
    if natural.type == type or pa.types.is_null(natural.type):
        return array
    try:
        back = array.cast(natural.type)
    except (*_NOT_OF_TYPE, pa.ArrowNotImplementedError):
        return array  # nothing to compare with (a string as a timestamp): as pyarrow typed them
    for given, kept in zip(natural.to_pylist(), back.to_pylist(), strict=True):
        if given != kept and not (given != given and kept != kept):  # NaN is NaN
            raise ValueError(f"the value {given!r} would be taken as {kept!r} in {type}")
    return array


# An empty column list asks for the rows and no column (as pyarrow's readers answer it): the
# core reads its smallest column (the commit time, one dictionary value per file) for the count.
_ROW_COUNT_COLUMNS = ["_hoodie_commit_time"]


def _columns_to_read(columns: Sequence[str] | None) -> tuple[list[str], bool]:
    """The names the core reads for ``columns``, and whether none was asked (an empty list)."""
    names = _names(columns, "columns")
    none_asked = columns is not None and not names
    return (_ROW_COUNT_COLUMNS if none_asked else names), none_asked


def _no_columns_if_none_asked(table: pa.Table, none_asked: bool) -> pa.Table:
    """``table`` without its columns when ``none_asked`` (its schema metadata kept)."""
    if not none_asked:
        return table
    return table.drop_columns(table.column_names)


def _exactly_float(value: int, type: pa.DataType) -> bool:
    """Whether the integer ``value`` is exactly a value of the float type ``type``."""
    try:
        as_float = float(value)
        if pa.types.is_float32(type):
            as_float = struct.unpack("f", struct.pack("f", as_float))[0]
    except (OverflowError, struct.error):
        return False
    return as_float == value  # Python compares an int and a float exactly


def _filter_values(field: str, values: list[Any], field_type: pa.DataType | None) -> Any:
    """The values of one predicate as an Arrow stream capsule (one column). The core renders
    them as it renders partition values, so no value is turned into a string here: a value is
    typed as the field when pyarrow can (datetimes, dates, numbers, None), else as what it is
    (a string is parsed by the core as the field's type)."""
    values = [v.as_py() if isinstance(v, pa.Scalar) else v for v in values]
    array = None
    if field_type is not None:
        try:
            array = _exactly_typed(values, field_type)
        except _NOT_OF_TYPE:
            array = None  # goes as what it is: the core refuses it, naming the field
    if array is None and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        # Integers beyond int64: as their decimal text, which the core reads as the field's type
        # or refuses, naming the field (pyarrow refused them naming no field). A float field
        # would read the text rounded: such a value must be exactly a float.
        if any(not -(2**63) <= v < 2**63 for v in values):
            if field_type is not None and pa.types.is_floating(field_type):
                for v in values:
                    if not _exactly_float(v, field_type):
                        raise invalid_argument(f"filter on '{field}': the value {v} is not exactly a {field_type}")
            array = pa.array([str(v) for v in values])
    if array is None:
        try:
            array = pa.array(values)
        except _NOT_OF_TYPE as e:
            raise ValueError(f"filter values {values!r} are not of one type: {e}") from None
    return pa.table({"value": array}).__arrow_c_stream__()


def _predicates(filter: Filter, schema: pa.Schema) -> list[tuple[str, str, Any]]:
    """Normalizes a pyarrow-style DNF filter with one conjunction into core predicates."""
    if filter is None:
        return []
    items = list(filter)
    if items and all(isinstance(i, list) for i in items):
        if len(items) != 1:
            raise ValueError("filters support one conjunction (AND of predicates), not OR")
        items = items[0]
    out = []
    for item in items:
        if not isinstance(item, (tuple, list)) or len(item) != 3:
            raise ValueError(f"a filter predicate is a (field, op, value) tuple, got {item!r}")
        field, op, value = item
        norm = _OPS.get(str(op).lower())
        if norm is None:
            raise ValueError(f"unknown filter op {op!r}; use one of {sorted(set(_OPS))}")
        if norm in ("in", "not in"):
            if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
                raise ValueError(f"the value of '{op}' must be a collection, got {value!r}")
            values = list(value)
        else:
            values = [value]
        field_type = schema.field(field).type if field in schema.names else None
        out.append((str(field), norm, _filter_values(str(field), values, field_type)))
    return out


class Table:
    """An Apache Hudi table: records keyed by a record key, in hive-style partitions, with a
    timeline of instants. Get one from :meth:`create` or :meth:`open`.

    Paths may be a plain folder, ``file:///abs/path``,
    ``s3://bucket/prefix?endpoint_override=host:port&scheme=http`` (credentials from
    ``storage_options`` or AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_REGION) or
    ``mem://name`` (an in-memory tree shared within the process).
    """

    __slots__ = ("_native",)

    def __init__(self, native: _core.Table) -> None:
        """Wraps a native table; use :meth:`create` or :meth:`open` instead."""
        self._native = native

    # ---- lifecycle ------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        path: str | os.PathLike[str],
        schema: pa.Schema,
        record_key: str | Sequence[str],
        partition_by: str | Sequence[str] | None = None,
        ordering_field: str | None = None,
        table_type: str = "cow",
        *,
        name: str | None = None,
        properties: Mapping[str, str] | None = None,
        storage_options: Mapping[str, str] | None = None,
    ) -> Table:
        """Creates a new table at ``path`` and returns it.

        ``schema`` holds the user columns (a column of :func:`lakeshore.blob_type` is a blob
        column); ``record_key`` names the key field(s) (several make a composite key);
        ``partition_by`` the hive-style partition field(s); ``ordering_field`` the field whose
        larger value wins between records with the same key (None: the latest write wins);
        ``table_type`` "cow" / "COPY_ON_WRITE" (updates rewrite base files) or "mor" /
        "MERGE_ON_READ" (updates and deletes go to log files, merged on read until a compaction).
        ``name`` defaults to the last segment of the path. Raises AlreadyExistsError
        if a table is there, InvalidArgumentError if the folder holds anything else (a vacuum of
        the new table would delete files it does not track), and InvalidArgumentError naming
        the field if the config is invalid.
        """
        path = table_path(path)
        native = _core.Table.create(
            path,
            schema_capsule(schema),
            _names(record_key, "record_key"),
            _names(partition_by, "partition_by"),
            ordering_field or "",
            table_type,
            name if name is not None else _default_name(path),
            _properties(properties),
            _properties(storage_options, "storage_options"),
        )
        return cls(native)

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        properties: Mapping[str, str] | None = None,
        storage_options: Mapping[str, str] | None = None,
    ) -> Table:
        """Opens the table at ``path``. ``properties`` are writer options for this open (the
        keys :meth:`create` takes, such as ``hoodie.index.type``), over those stored with the
        table. Raises CorruptMetadataError naming the file if its hoodie.properties is damaged,
        StorageError if nothing is there, InvalidArgumentError for an unknown option."""
        return cls(
            _core.Table.open(table_path(path), _properties(storage_options, "storage_options"), _properties(properties))
        )

    # ---- what the table is ----------------------------------------------------------------

    @property
    def uri(self) -> str:
        """The table root as a URI."""
        return str(self._native.uri)

    @property
    def config(self) -> dict[str, Any]:
        """The table config: name, record_key, partition_by, ordering_field, table_type,
        blob_columns, properties, format_version."""
        return dict(self._native.config())

    @property
    def schema(self) -> pa.Schema:
        """The user schema (without the meta columns)."""
        return schema_from_capsule(self._native.schema())

    @property
    def full_schema(self) -> pa.Schema:
        """The schema of a full read: the meta columns ``_hoodie_*`` first, then the user
        columns."""
        return schema_from_capsule(self._native.full_schema())

    @property
    def record_key(self) -> list[str]:
        """The record key field(s)."""
        return list(self.config["record_key"])

    @property
    def partition_by(self) -> list[str]:
        """The partition field(s), in path order."""
        return list(self.config["partition_by"])

    def __repr__(self) -> str:
        c = self.config
        return (
            f"lakeshore.Table({self.uri!r}, record_key={c['record_key']}, "
            f"partition_by={c['partition_by']}, table_type={c['table_type']!r})"
        )

    # ---- writes ---------------------------------------------------------------------------

    def write(self, data: Any, mode: str = "upsert", *, progress: ProgressFn | None = None) -> dict[str, Any]:
        """Writes ``data`` as one instant with ``mode`` ("insert", "upsert", "delete",
        "bulk_insert", "insert_overwrite", "insert_overwrite_table", "delete_partition") and
        returns what the write did (the WriteResult fields as a dict: instant_time, operation,
        records_in, records_inserted, records_updated, records_deleted, files_written,
        bytes_written, file_groups_touched, file_groups_replaced, rolled_back_instants,
        compaction_instant, active_write_instants, archived_instants, duration_ms). On a
        merge-on-read table with ``hoodie.compact.inline`` set, a compaction runs after the write
        once ``hoodie.compact.inline.max.delta.commits`` deltacommits piled up
        (``compaction_instant`` names it, else None). Then, unless ``hoodie.archive.automatic``
        is false, an archival runs once more than ``hoodie.keep.max.commits`` completed writes
        are active (``active_write_instants`` counts them; ``archived_instants`` lists what
        moved): the archived timeline is read with the active one, so no history is lost.

        Raises SchemaMismatchError if the data does not match the table schema and
        CommitConflictError if a concurrent writer committed to the same file groups first (then
        nothing of this write is visible: retry it). An exception that ``data``'s producer
        raises while it is read (a generator's own error, or Ctrl-C) reaches the caller as
        itself, noted that nothing of the write is visible.
        """
        source = SourceErrors()
        try:
            return dict(self._native.write(_str_arg(mode, "mode"), stream_capsule(source.watch(data)), progress))
        except LakeshoreError as e:
            source.reraise(
                e,
                "lakeshore: the write stopped before its commit point when its data source raised this: nothing of "
                "it is visible",
            )
            raise

    def insert(self, data: Any, *, progress: ProgressFn | None = None) -> dict[str, Any]:
        """Inserts new records without looking up existing keys (a key already stored is stored
        again). See :meth:`write` for the result and errors."""
        return self.write(data, "insert", progress=progress)

    def upsert(self, data: Any, *, progress: ProgressFn | None = None) -> dict[str, Any]:
        """Updates records whose key is stored and inserts the others; among records with the
        same key the larger ordering field wins. See :meth:`write`."""
        return self.write(data, "upsert", progress=progress)

    def bulk_insert(self, data: Any, *, progress: ProgressFn | None = None) -> dict[str, Any]:
        """Inserts new records sorted by partition and key into new file groups (the fast path
        for loading a table). See :meth:`write`."""
        return self.write(data, "bulk_insert", progress=progress)

    def insert_overwrite(self, data: Any, *, progress: ProgressFn | None = None) -> dict[str, Any]:
        """Replaces every partition the records fall in with just these records, as one
        replacecommit (Hudi's insert_overwrite): the partitions' file groups end at this instant
        (time travel still reads them); other partitions are untouched. See :meth:`write`."""
        return self.write(data, "insert_overwrite", progress=progress)

    def insert_overwrite_table(self, data: Any, *, progress: ProgressFn | None = None) -> dict[str, Any]:
        """Replaces the whole table with these records, as one replacecommit (Hudi's
        insert_overwrite_table). See :meth:`write`."""
        return self.write(data, "insert_overwrite_table", progress=progress)

    def delete_partitions(self, partitions: Any, *, progress: ProgressFn | None = None) -> dict[str, Any]:
        """Drops whole partitions, as one replacecommit (Hudi's delete_partition): their file
        groups end at this instant. ``partitions`` is Arrow data holding the partition field(s),
        or a list of values (one partition field) or of dicts / tuples of them. See :meth:`write`."""
        return self.write(self._rows_of(partitions, self.partition_by), "delete_partition", progress=progress)

    def delete(self, keys: Any, *, progress: ProgressFn | None = None) -> dict[str, Any]:
        """Deletes records by key. ``keys`` is Arrow data holding the key field(s) (whole rows
        too: the table's other columns are ignored), a pyarrow array, a pandas or polars Series
        or a list of key values (one key field), or a list of tuples or dicts (composite keys).
        ``records_in`` counts the keys given. See :meth:`write` for the result and errors.

        On a partitioned table the core deletes by (partition, key). When ``keys`` lacks the
        partition field(s), the core looks them up first by reading the key, partition and
        ``_hoodie_record_key`` columns of the latest snapshot (a key that is not stored is
        skipped), and deletes every stored copy of the key (a key inserted again in another
        partition has several); pass them along to spare that read and delete only the copy in
        that partition (in Arrow data, or in every dict of a list of dicts: a list naming them
        in some dicts only is refused, as its keys would mean both).
        """
        fields = self.record_key
        if isinstance(keys, (list, tuple)) and keys and all(isinstance(k, Mapping) for k in keys):
            partitions = [p for p in self.partition_by if p not in fields]
            named = [sum(p in k for p in partitions) for k in keys]
            if partitions and all(n == len(partitions) for n in named):
                fields = fields + partitions  # the core then skips locating the keys
            elif any(n > 0 for n in named):
                raise invalid_argument(
                    f"keys to delete name the partition field(s) {partitions} in some dicts only: name them in "
                    "every dict (each key is deleted in its partition) or in none (every stored copy is deleted)"
                )
        return self.write(self._rows_of(keys, fields), "delete", progress=progress)

    def indexes(self) -> dict[str, Any]:
        """The table's indexes in Hudi's metadata table: ``metadata_table`` (whether it has
        one), ``partitions`` (built: files, column_stats, bloom_filters, record_index,
        secondary_index_<name>, ...) and ``inflight`` (being built: not used until complete)."""
        found = dict(self._native.metadata_partitions())
        return {
            "metadata_table": bool(found["partitions"] or found["inflight"]),
            "partitions": list(found["partitions"]),
            "inflight": list(found["inflight"]),
        }

    def create_index(self, name: str, column: str | None = None) -> dict[str, Any]:
        """Builds an index of Hudi's metadata table and returns :meth:`indexes`: ``"files"``
        (the table's file listing, which Hudi readers such as hudi-rs then list through),
        ``"record_index"`` (record key -> file group, for :meth:`lookup` and upserts with
        ``hoodie.index.type=RECORD_INDEX``), ``"bloom_filters"`` (each base file's key filter,
        for ``hoodie.index.type=BLOOM`` with ``hoodie.bloom.index.use.metadata``) or
        ``"column_stats"`` (each base and log file's column statistics, by which filtered
        reads skip file groups), ``"partition_stats"`` (each partition's, over its latest
        slices' files, from column_stats, built first when missing: filtered reads of the latest
        snapshot skip whole partitions by it); all but files build it too. It is built from the completed
        instants under the table lock, listed in flight while it builds, and kept
        current by every later write. ``"secondary_index_<name>"`` with ``column`` is a secondary
        index on that column (as Spark's ``CREATE INDEX <name> ON t (column)``): its definition is
        written to Hudi's ``.hoodie/.index_defs/index.json``, it is built from the latest snapshot,
        every write keeps it current, and :meth:`lookup_secondary` answers from it. Raises
        InvalidArgumentError for another name, or a column it cannot index."""
        self._native.create_index(name, column or "")
        return self.indexes()

    def drop_index(self, name: str) -> dict[str, Any]:
        """Drops an index of the metadata table (also one Spark built, such as column_stats)
        and returns :meth:`indexes`. Dropping ``"files"`` drops the whole metadata table.
        Readers stop trusting it first (hoodie.properties), then its files are deleted."""
        self._native.drop_index(name)
        return self.indexes()

    def lookup(self, keys: Any) -> pa.Table:
        """Where the records with ``keys`` live now: a table with one row per key, in order,
        holding ``record_key``, ``partition`` and ``file_id`` (both null for a key the table
        does not hold). ``keys`` is as for :meth:`delete` (the key field(s); partition fields
        are not needed). The metadata table's record index answers when the table has one
        (Spark's tables with ``hoodie.metadata.record.index.enable``); otherwise the key,
        partition and file columns of the latest snapshot are read. The schema metadata's
        ``lookup.method`` says which ("record_index" or "scan")."""
        return table_from_capsule(self._native.lookup(stream_capsule(self._keys_to_arrow(keys))))

    def lookup_secondary(self, index: str, values: Any) -> pa.Table:
        """The records whose indexed column holds one of ``values``, from the secondary index
        ``index`` of Hudi's metadata table (its partition name, ``secondary_index_<name>``, as
        Spark's ``CREATE INDEX`` builds it; :meth:`indexes` lists them): a table of
        ``secondary_key`` and ``record_key``, one row per match, in the order of ``values``.
        ``values`` is a list (or pyarrow array) of the column's values (``None`` finds nulls);
        they are cast to the column's type, so ``date(2024, 1, 15)`` and ``"2024-01-15"`` both
        find a date. ``secondary_key`` is the text Hudi stores (dates as days since the epoch).
        Only entries of completed instants count. Raises InvalidArgumentError for a table
        without that index."""
        if isinstance(values, (pa.Array, pa.ChunkedArray)):
            array = values
        else:
            if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
                raise TypeError("values must be a list or a pyarrow array of the indexed column's values")
            listed = list(values)
            try:
                array = pa.array(listed)
            except _NOT_OF_TYPE as e:
                shown = ", ".join(repr(v) for v in listed[:5]) + (", ..." if len(listed) > 5 else "")
                raise TypeError(f"the values [{shown}] of index '{index}' are not one Arrow type: {e}") from None
        column = pa.table({"value": array})
        return table_from_capsule(self._native.lookup_secondary(index, stream_capsule(column)))

    def _keys_to_arrow(self, keys: Any) -> Any:
        return self._rows_of(keys, self.record_key)

    def _rows_of(self, keys: Any, fields: list[str]) -> Any:
        """Arrow data of ``fields`` from Arrow data (a pyarrow array of one field's values
        included), a list of values (one field), or a list of dicts or tuples."""
        if isinstance(keys, (pa.Array, pa.ChunkedArray)) and not pa.types.is_struct(keys.type):
            if len(fields) != 1:
                raise TypeError(
                    f"a composite key is a struct array, a table or tuples of {fields}, not an array of {keys.type}"
                )
            return pa.table({fields[0]: keys})
        if hasattr(keys, "__arrow_c_stream__") and not isinstance(keys, (pa.Table, pa.RecordBatchReader)):
            # A stream of one column's values (a pandas or polars Series), or of rows (a data
            # frame): read as a chunked array, which takes both.
            try:
                column = pa.chunked_array(keys)
            except (pa.ArrowException, OSError) as e:
                # As the core reports a stream that fails while it reads one (upsert's); pyarrow
                # raises OSError for a producer's error code (DuckDB's).
                raise invalid_argument(f"the keys' Arrow stream failed: {e}") from e
            if pa.types.is_struct(column.type):
                return pa.Table.from_struct_array(column)
            return self._rows_of(column, fields)
        if (
            hasattr(keys, "__arrow_c_stream__")
            or isinstance(keys, pa.RecordBatch)
            or hasattr(keys, "__arrow_c_array__")
        ):
            return keys
        if isinstance(keys, (str, bytes)) or not isinstance(keys, Iterable):
            raise TypeError("keys must be Arrow data or a list of key values")
        schema = self.schema
        rows = list(keys)

        def field_of(r: Mapping[str, Any], f: str) -> Any:
            if f not in r:
                raise TypeError(f"a key given as a dict needs every field of {fields}; {r!r} lacks '{f}'")
            return r[f]

        if len(fields) == 1:
            columns = {fields[0]: [field_of(r, fields[0]) if isinstance(r, Mapping) else r for r in rows]}
        else:
            columns = {f: [] for f in fields}
            for r in rows:
                if isinstance(r, Mapping):
                    values = [field_of(r, f) for f in fields]
                elif isinstance(r, (tuple, list)) and len(r) == len(fields):
                    values = list(r)
                else:
                    raise TypeError(f"a composite key is a tuple or dict of {fields}, got {r!r}")
                for f, v in zip(fields, values, strict=False):
                    columns[f].append(v)
        arrays = {}
        for f in fields:
            field_type = schema.field(f).type
            role = "record key" if f in self.record_key else "partition"
            try:
                arrays[f] = _exactly_typed(columns[f], field_type)
            except _NOT_OF_TYPE as e:
                if pa.types.is_temporal(field_type) and columns[f] and all(isinstance(v, str) for v in columns[f]):
                    # Text of a time or date (one without a zone is UTC): the core reads it.
                    arrays[f] = pa.array(columns[f], pa.string())
                    continue
                shown = ", ".join(repr(v) for v in columns[f][:5]) + (", ..." if len(columns[f]) > 5 else "")
                raise TypeError(
                    f"the {role} field '{f}' ({field_type}) cannot hold the values [{shown}]: {e}"
                ) from None
        return pa.table(arrays)

    # ---- reads ----------------------------------------------------------------------------

    def to_arrow(
        self,
        columns: Sequence[str] | None = None,
        filter: Filter = None,
        as_of: AsOf = None,
        *,
        read_optimized: bool = False,
    ) -> pa.Table:
        """Reads the table (or the state right after instant ``as_of``) as a pyarrow Table.
        ``as_of`` is an instant time (that instant's state), or a datetime or a UTC time text
        ``"yyyy-MM-dd HH:mm:ss.SSS"``: the writes completed by that moment.

        ``columns`` picks and orders the columns (default: the meta columns, then all user
        columns); ``filter`` keeps only the rows matching ``[(field, op, value), ...]`` (op in
        =, ==, !=, <, <=, >, >=, in, not in; the predicates are ANDed; ``None`` means null, as
        ``= None``, ``!= None`` and ``in [..., None]``; a nested column, a blob's included,
        takes only ``= None`` and ``!= None``). Predicates on partition fields select
        partitions; the others are applied row by row, and skip the file groups whose column
        statistics rule out a match when the metadata table's ``column_stats`` partition is
        built (an ``=`` or ``in`` on ``_hoodie_record_key`` also by the base files' key ranges), and,
        reading the latest snapshot, whole partitions by a ``partition_stats``
        partition Spark's writer built (the result's schema metadata then holds
        ``read.file_groups``, ``read.file_groups_pruned``, ``read.pruned_by`` and, with
        partition_stats, ``read.partitions_pruned``). ``read_optimized`` reads
        a merge-on-read table's base files only, without the updates its log files hold.
        """
        names, none_asked = _columns_to_read(columns)
        capsule = self._native.read(
            names,
            _predicates(filter, self.schema),
            _as_of_time(as_of, "as_of"),
            _bool_arg(read_optimized, "read_optimized"),
        )
        return _no_columns_if_none_asked(table_from_capsule(capsule), none_asked)

    def read_incremental(
        self,
        start: str | int | _dt.datetime,
        end: AsOf = None,
        *,
        columns: Sequence[str] | None = None,
        filter: Filter = None,
    ) -> pa.Table:
        """The records written by the completed instants after ``start`` up to and including
        ``end`` (default: the latest), in their state as of those writes. Deleted records are not
        reported. A ``start`` of zeros (``"000"``, Hudi's initial instant) reads from the
        beginning."""
        blank = start is None or (isinstance(start, str) and not start.strip())
        start_time = None if blank else _as_of_time(start, "start")
        if start_time is None:
            # "" read everything, as if every record had changed: an emptied checkpoint of an
            # incremental pipeline would silently re-emit the table.
            raise ValueError(
                "read_incremental needs a start instant (records after it are returned; '000' reads from the beginning)"
            )
        names, none_asked = _columns_to_read(columns)
        capsule = self._native.read_incremental(
            start_time,
            _as_of_time(end, "end"),
            names,
            _predicates(filter, self.schema),
        )
        return _no_columns_if_none_asked(table_from_capsule(capsule), none_asked)

    def timeline(self) -> list[dict[str, Any]]:
        """Every instant of the active timeline, oldest first: dicts with ``time``, ``action``,
        ``state`` ("requested", "inflight", "completed") and ``completion_time``."""
        return [dict(i) for i in self._native.timeline()]

    def files(self, as_of: AsOf = None) -> list[str]:
        """The data files of the file slices a snapshot read as of ``as_of`` (default: the latest)
        reads, as other tools open them: absolute local paths or ``s3://`` URIs. On a
        copy-on-write table they are all Parquet files, so
        ``duckdb.read_parquet(t.files(), union_by_name=True)`` reads the snapshot (by name: a
        file written before a column was added lacks it, and reads as null); a merge-on-read
        table's list also holds its slices' log files (Hudi log files, not Parquet), whose
        records only a Hudi reader (``to_arrow``) merges in."""
        return list(self._native.files(_as_of_time(as_of, "as_of")))

    def savepoint(self, instant: AsOf, *, user: str = "", comment: str = "") -> dict[str, Any]:
        """Savepoints a completed write instant (Hudi's savepoint action): while it exists,
        archival keeps that instant and everything after it on the active timeline. Returns the
        savepoint (``instant_time``, ``completion_time``, ``user``, ``comment``,
        ``savepointed_at_s``, ``files``: the data files of its latest slices)."""
        instant_time = _instant(instant, "instant")
        if instant_time is None:
            raise ValueError("savepoint needs an instant")
        return dict(self._native.create_savepoint(instant_time, user, comment))

    def delete_savepoint(self, instant: AsOf) -> None:
        """Removes the savepoint of ``instant``."""
        instant_time = _instant(instant, "instant")
        if instant_time is None:
            raise ValueError("delete_savepoint needs an instant")
        self._native.delete_savepoint(instant_time)

    def savepoints(self) -> list[dict[str, Any]]:
        """The table's savepoints, oldest first (the dicts :meth:`savepoint` returns)."""
        return [dict(s) for s in self._native.savepoints()]

    def archive(self, *, keep_min_commits: int | None = None, keep_max_commits: int | None = None) -> dict[str, Any]:
        """Moves old completed instants from the active timeline into Hudi 1.x's archived
        timeline (``.hoodie/timeline/history/``), as Hudi's archiver does, once more than
        ``keep_max_commits`` completed writes are active (default: the table's
        ``hoodie.keep.max.commits``, 30), keeping the newest ``keep_min_commits`` (20). Nothing at
        or after a pending instant or a savepoint moves. Reads, ``as_of`` and incremental reads
        keep the whole history. The metadata table's timeline is archived after it, by the same
        keep values, as far as its own compactions allow (``docs/indexes.md``). Returns
        ``archived_instants``, ``metadata_archived_instants``, ``data_files_written``,
        ``manifest_version`` and ``duration_ms``."""
        return dict(
            self._native.archive(
                _optional_int_arg(keep_min_commits, "keep_min_commits"),
                _optional_int_arg(keep_max_commits, "keep_max_commits"),
            )
        )

    def compact(
        self,
        *,
        min_delta_commits: int = 0,
        min_log_bytes: int = 0,
        schedule_only: bool = False,
        progress: ProgressFn | None = None,
    ) -> dict[str, Any]:
        """Compacts a merge-on-read table, as Hudi's compaction does: the latest slice of each
        file group that has log files is merged (base file plus logs, under the table's merge
        rule) into a new base file, in one ``compaction`` instant that completes as a ``commit``.
        Reads give the same rows before and after; the read-optimized view catches up.

        A pending compaction (left by ``schedule_only=True`` or a crash) is finished first.
        Otherwise a plan is made when a trigger holds: ``min_delta_commits`` deltacommits since
        the last compaction (Hudi's NUM_COMMITS), or a slice's log files holding
        ``min_log_bytes`` bytes; with both 0, every slice with log files is compacted. Writers
        keep writing meanwhile (their logs join the new slices). Returns ``instant_time``
        (None when nothing was due), ``scheduled``, ``completed``, ``reason`` (why nothing ran),
        ``file_groups``, ``log_files``, ``records_written``, ``bytes_written``,
        ``rolled_back_instants`` and ``duration_ms``. InvalidArgumentError on a copy-on-write
        table."""
        return dict(
            self._native.compact(
                _int_arg(min_delta_commits, "min_delta_commits"),
                _int_arg(min_log_bytes, "min_log_bytes"),
                _bool_arg(schedule_only, "schedule_only"),
                progress,
            )
        )

    def cluster(
        self,
        *,
        sort_by: str | Sequence[str] | None = None,
        small_file_limit_bytes: int = 300 << 20,
        target_file_bytes: int = 0,
        partitions: str | Sequence[str] | None = None,
        schedule_only: bool = False,
        progress: ProgressFn | None = None,
    ) -> dict[str, Any]:
        """Clusters the table, as Hudi's clustering does: in each partition, the file groups
        whose files hold fewer than ``small_file_limit_bytes`` are rewritten together, sorted by
        ``sort_by`` (Hudi's sort columns; None keeps the records' order, and then a partition
        needs two small file groups), into new file groups of about ``target_file_bytes`` (0:
        the table's ``write.max_file_size_bytes``), in one ``clustering`` instant that completes
        as a ``replacecommit`` ending the old groups. Reads give the same rows; sorted files
        let readers skip more. ``partitions`` limits it to those partition paths.

        A pending clustering (``schedule_only=True``, or left by a crash) is finished first.
        While one is pending, writes put no inserts into its file groups and refuse updates to
        them (CommitConflictError: retry once it completed). Returns ``instant_time`` (None when
        nothing was due), ``scheduled``, ``completed``, ``reason``, ``file_groups_replaced``,
        ``file_groups_written``, ``records_written``, ``bytes_written``,
        ``rolled_back_instants`` and ``duration_ms``."""
        columns = _names(sort_by, "sort_by")
        only = _names(partitions, "partitions", "partition path")
        return dict(
            self._native.cluster(
                columns,
                _int_arg(small_file_limit_bytes, "small_file_limit_bytes"),
                _int_arg(target_file_bytes, "target_file_bytes"),
                only,
                _bool_arg(schedule_only, "schedule_only"),
                progress,
            )
        )

    def rollback(self, instant: AsOf) -> str:
        """Rolls back the latest completed write ``instant`` (Hudi's rollback of a commit): the
        table then reads as before it, and its files are deleted. Refused for an older write or
        one a savepoint keeps. Returns the rollback instant's time."""
        instant_time = _instant(instant, "instant")
        if instant_time is None:
            raise ValueError("rollback needs an instant")
        return str(self._native.rollback(instant_time))

    def evolve_schema(self, schema: pa.Schema) -> None:
        """Changes the table's schema (its user columns) to ``schema``, as Hudi's ALTER TABLE does:
        one ``alter_schema`` commit carrying the new schema. Columns can be added (nullable),
        widened (int8/int16 to int32 to int64, float to double) and reordered; a dropped,
        renamed, narrowed or retyped column, or a new non-nullable one, is SchemaMismatchError.
        Files written before are read under the new schema (new columns null). Other open
        ``Table`` objects of this table must be reopened before they write."""
        self._native.evolve_schema(schema_capsule(schema))

    def restore(self, savepoint: AsOf) -> str:
        """Restores the table to the savepoint of ``savepoint`` (Hudi's restore): every later
        write is rolled back, newest first, each with its own rollback instant, under one
        ``restore`` instant. Refused when ``savepoint`` is not a savepoint, a later savepoint
        exists, or a later write is still running. Returns the restore instant's time."""
        instant_time = _instant(savepoint, "savepoint")
        if instant_time is None:
            raise ValueError("restore needs a savepoint")
        return str(self._native.restore(instant_time))

    def rollback_failed_writes(self) -> list[str]:
        """Rolls back every failed write (pending, with an expired heartbeat) and returns their
        instant times. Writers do this on their own before they write."""
        return list(self._native.rollback_failed_writes())


def _default_name(path: str) -> str:
    """The last path segment of a table path or URI, ignoring a query string."""
    base = path.split("?", 1)[0].rstrip("/")
    return base.rsplit("/", 1)[-1] or "table"
