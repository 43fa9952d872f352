"""What the CLI verbs share: output (human or --json), input files, schemas, progress, summaries."""

from __future__ import annotations

import argparse
import atexit
import base64
import contextlib
import json
import math
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.dataset as ds
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table as RichTable
from rich.text import Text

from lakeshore.blob import blob_type
from lakeshore.table import ProgressFn

#: File formats the CLI reads, by file extension.
FORMATS_BY_SUFFIX = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".csv": "csv",
    ".json": "json",
    ".jsonl": "json",
    ".ndjson": "json",
}


def _finite(value: Any) -> Any:
    """``value`` with every non-finite float in it (in dicts, lists and tuples) as a string."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _json_value(value: Any) -> Any:
    """A value JSON has no type for, as text: binary data (a binary column, a blob's inline
    bytes) as base64, which gives the bytes back exactly; dates, times and decimals as their
    text (``str``)."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    return str(value)


class Output:
    """Where a verb's results go: rich text on stdout, or with --json one JSON document on stdout
    and nothing else there."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        # No emoji codes either: ":thumbs_up:" in a path is shown as typed.
        self.console = Console(highlight=False, emoji=False)
        self.err = Console(stderr=True, highlight=False, emoji=False)

    def json(self, doc: Any) -> None:
        """Prints ``doc`` as the verb's JSON answer (only in --json mode): strict JSON, a NaN or
        infinite float as the string "NaN", "Infinity" or "-Infinity" (strict parsers refuse
        the bare constants), binary data as base64 text, dates, times and decimals as text."""
        if self.as_json:
            sys.stdout.write(json.dumps(_finite(doc), indent=2, default=_json_value, allow_nan=False) + "\n")

    def print(self, *objects: Any) -> None:
        """Prints human output (suppressed in --json mode)."""
        if not self.as_json:
            self.console.print(*objects)

    def note(self, message: str) -> None:
        """A side remark on stderr (never on stdout)."""
        self.err.print(message)


class CliTable(RichTable):
    """A rich table that shows its title, headers and text cells verbatim: user text (file names,
    record keys, savepoint comments, partition values) never reads as rich markup, which could
    restyle it, hide part of it, or stop the verb with a MarkupError."""

    def __init__(self, *headers: Any, title: str | None = None, **kwargs: Any) -> None:
        super().__init__(*headers, title=None if title is None else Text(title), **kwargs)

    def add_column(self, header: Any = "", *args: Any, **kwargs: Any) -> None:
        super().add_column(Text(header) if isinstance(header, str) else header, *args, **kwargs)

    def add_row(self, *cells: Any, **kwargs: Any) -> None:
        super().add_row(*(Text(c) if isinstance(c, str) else c for c in cells), **kwargs)


# The largest count or size a verb takes: the core's counts and sizes are 64-bit.
_MAX_INT64 = 2**63 - 1


def non_negative_int(text: str) -> int:
    """An argparse type for counts and sizes: a whole number from 0 to 2**63 - 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    if value > _MAX_INT64:
        raise argparse.ArgumentTypeError(f"must be at most {_MAX_INT64:,}, got {value}")
    return value


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """Adds the --json flag every verb has."""
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout and nothing else there")


def detect_format(path: str, explicit: str | None) -> str:
    """The input format of ``path``: ``explicit`` if given, else from the file extension."""
    if explicit:
        return explicit
    fmt = FORMATS_BY_SUFFIX.get(Path(path).suffix.lower())
    if fmt is None:
        raise ValueError(f"cannot tell the format of {path!r} from its extension; pass --format parquet|csv|json")
    return fmt


def spooled(path: str, fmt: str) -> str:
    """``path`` itself when it is a regular file (or missing: the caller says so); else (``-``
    for standard input, a pipe, ``/dev/stdin``) a temporary copy of what it yields, removed when
    the process exits: a dataset reads its files more than once, a pipe only once."""
    if path in _SPOOLED:  # read once: a delete reads its input's schema first, then its rows
        return _SPOOLED[path]
    source = Path(path)
    if path != "-" and (source.is_file() or not source.exists()):
        return path
    folder = Path(tempfile.mkdtemp(prefix="lakeshore-input-"))
    atexit.register(shutil.rmtree, folder, True)
    copy = folder / f"input.{fmt}"
    with open(copy, "wb") as out:
        if path == "-":
            shutil.copyfileobj(sys.stdin.buffer, out)
        else:
            with open(source, "rb") as piped:
                shutil.copyfileobj(piped, out)
    _SPOOLED[path] = str(copy)
    return str(copy)


_SPOOLED: dict[str, str] = {}  # what spooled() copied, by the path given


def as_given(message: str) -> str:
    """``message`` with each spooled copy's path put back as the user gave it (``-`` as
    "standard input"): an error about the input names what the user named."""
    for given, copy in _SPOOLED.items():
        message = message.replace(copy, "standard input" if given == "-" else given)
    return message


def open_input(
    paths: Sequence[str], fmt: str | None, schema: pa.Schema | None, *, other_columns: bool = False
) -> ds.Dataset:
    """A dataset over the input files (all of one format). With ``schema``, CSV and JSON values are
    parsed as the table's types and the columns come out in the table's order; a file lacking one
    of its columns is refused, and so is a file with a column it lacks unless ``other_columns``
    (a delete reads only the key fields of whole rows)."""
    formats = {detect_format(p, fmt) for p in paths}
    if len(formats) != 1:
        raise ValueError(f"input files mix formats {sorted(formats)}; write them one format at a time")
    fmt = formats.pop()
    if sum(1 for p in paths if p in ("-", "/dev/stdin")) > 1:
        raise ValueError("standard input is given more than once; it can be read once")
    paths = [spooled(p, fmt) for p in paths]
    file_schemas: dict[str, pa.Schema] = {}
    for p in paths:
        if not Path(p).is_file():
            raise FileNotFoundError(f"input file {p!r} does not exist")
        if schema is not None:
            # A dataset with an explicit schema fills absent columns with nulls: refuse instead.
            file_schema = file_schemas[p] = ds.dataset(p, format=fmt).schema
            present = file_schema.names
            missing = [n for n in schema.names if n not in present]
            if missing:
                raise ValueError(f"input file {p!r} lacks the column(s) {missing} of the table")
            if fmt == "parquet":  # typed files: a column no cast can read is named now, not by Arrow's scan
                for field in schema:
                    given = file_schema.field(field.name).type
                    try:
                        pa.array([], given).cast(field.type)
                    except (pa.ArrowNotImplementedError, pa.ArrowInvalid) as e:
                        raise ValueError(
                            f"input file {p!r}: column '{field.name}' is {given}, which cannot be read as the "
                            f"table's {field.type} ({e})"
                        ) from None
            extra = [n for n in present if n not in schema.names]
            if extra and not other_columns:
                raise ValueError(
                    f"input file {p!r} has the column(s) {extra}, which the table lacks "
                    f"(its columns: {', '.join(schema.names)})"
                )
    text_dates = _json_dates_given_as_text(file_schemas, schema) if fmt == "json" and schema is not None else set()
    return ds.dataset(list(paths), format=_file_format(fmt), schema=_parse_schema(schema, fmt, text_dates))


def _json_dates_given_as_text(file_schemas: dict[str, pa.Schema], schema: pa.Schema) -> set[str]:
    """The table's top-level date columns the JSON files give as text ("2026-01-01"), not as day
    counts (20000), judged by what Arrow infers from each file (``file_schemas``, by path).
    Arrow's JSON reader parses a date from a day count only, so such a column is read as text
    and converted after. Files that give one column both ways are refused, naming them."""
    dates = [f.name for f in schema if pa.types.is_date(f.type)]
    if not dates:
        return set()
    as_text: dict[str, list[str]] = {name: [] for name in dates}
    as_days: dict[str, list[str]] = {name: [] for name in dates}
    for p, inferred in file_schemas.items():
        for name in dates:
            t = inferred.field(name).type
            if pa.types.is_integer(t):
                as_days[name].append(p)
            elif not pa.types.is_null(t):
                as_text[name].append(p)
    for name in dates:
        if as_text[name] and as_days[name]:
            raise ValueError(
                f"column '{name}' is a date given as text in {as_text[name][0]!r} and as a day count in "
                f"{as_days[name][0]!r}: write them one way at a time"
            )
    return {name for name in dates if as_text[name]}


# Arrow's CSV reader takes these for nulls besides the empty cell; NaN is a double's value.
_CSV_NULLS = [v for v in pacsv.ConvertOptions().null_values if v.lstrip("-").lower() != "nan"]


def _file_format(fmt: str) -> str | ds.FileFormat:
    """``fmt`` for pyarrow.dataset: CSV reads "NaN" in a number column as NaN, not as a null."""
    if fmt != "csv":
        return fmt
    return ds.CsvFileFormat(convert_options=pacsv.ConvertOptions(null_values=_CSV_NULLS))


def _parse_schema(schema: pa.Schema | None, fmt: str, text_dates: set[str] | None = None) -> pa.Schema | None:
    """The schema text inputs are parsed with. A table timestamp (a UTC instant, as Hudi stores
    it) may be written with a zone offset (converted to UTC) or without one (a time in UTC):
    JSON parses both as a zone-less timestamp; CSV parses neither way both, so its timestamp
    columns are read as text and converted by :func:`_text_to_table_types`. JSON has no dates:
    the top-level date columns in ``text_dates`` (given as "2026-01-01", as CSV takes them) are
    read as text and converted there too; others are day counts, as Arrow reads them. Struct
    fields are read nullable (a null blob's children are null; the table's own checks apply
    after)."""
    if schema is None or fmt not in ("csv", "json"):
        return schema

    def parsed(t: pa.DataType) -> pa.DataType:
        if t in _NARROW_FLOATS:
            return pa.float64()  # parsed wide, so that a value the column cannot hold is refused, not inf
        if t in _NARROW_INTS:
            return pa.int64()  # parsed wide: the core refuses a value the column cannot hold, naming it
        if pa.types.is_timestamp(t) and t.tz is not None:
            return pa.string() if fmt == "csv" else pa.timestamp(t.unit)
        if pa.types.is_struct(t) and fmt == "csv":
            return pa.string()  # CSV has no structs: only empty cells (nulls), see _text_to_table_types
        if pa.types.is_struct(t):
            return pa.struct(
                [t.field(i).with_type(parsed(t.field(i).type)).with_nullable(True) for i in range(t.num_fields)]
            )
        return t

    def field_parsed(f: pa.Field) -> pa.Field:
        if fmt == "json" and text_dates and f.name in text_dates:
            return f.with_type(pa.string())  # Arrow's JSON reader takes only a day count for a date
        return f.with_type(parsed(f.type))

    return pa.schema([field_parsed(f) for f in schema], metadata=schema.metadata)


# Float types text and input batches are kept wide in (float64) until the core casts them
# down and refuses a value that overflows: pyarrow's own cast makes it inf.
_NARROW_FLOATS = (pa.float16(), pa.float32())
# Integer types text is parsed wide in (int64): an overflowing value was Arrow's parse error,
# naming no column; the core's cast down names it.
_NARROW_INTS = (pa.int8(), pa.int16(), pa.int32(), pa.uint8(), pa.uint16(), pa.uint32())

# An offset after a time of day ("2020-01-01" ends in no offset: its "-01" is the day).
_ZONE_OFFSET = r"\d\d:\d\d(:\d\d(\.\d*)?)?(Z|z|[+-]\d\d(:?\d\d)?)$"


def _text_to_table_types(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    """``batch`` (read with :func:`_parse_schema`) in the table's types: a timestamp column read
    as text takes values with a zone offset as that instant and values without one as UTC; a
    date column read as text takes YYYY-MM-DD."""
    columns = []
    for field, column in zip(schema, batch.columns, strict=True):
        if pa.types.is_timestamp(field.type) and pa.types.is_string(column.type):
            column = pc.if_else(pc.equal(column, ""), None, column)  # an empty cell is a null, as for numbers
            zoned = pc.match_substring_regex(column, _ZONE_OFFSET)
            try:
                with_zone = pc.cast(pc.if_else(zoned, column, None), pa.timestamp(field.type.unit, "UTC"))
                without = pc.cast(pc.cast(pc.if_else(zoned, None, column), pa.timestamp(field.type.unit)), field.type)
            except pa.ArrowInvalid as e:
                raise ValueError(f"column '{field.name}' holds text that is not a timestamp: {e}") from None
            column = pc.if_else(zoned, pc.cast(with_zone, field.type), without)
        elif pa.types.is_date(field.type) and pa.types.is_string(column.type):
            try:
                column = pc.cast(column, field.type)
            except pa.ArrowInvalid as e:
                raise ValueError(f"column '{field.name}' holds text that is not a date (YYYY-MM-DD): {e}") from None
        elif pa.types.is_struct(field.type) and pa.types.is_string(column.type):
            # A struct (a blob) from CSV: a cell can only leave it null.
            if pc.any(pc.not_equal(column, "")).as_py():
                raise ValueError(
                    f"column '{field.name}' ({field.type}) cannot be given in CSV: leave its cells empty (null), "
                    "or write it from Parquet or JSON"
                )
            column = pa.array([None] * len(column), type=field.type)
        elif pa.types.is_struct(field.type) and column.type != field.type:
            # Read with nullable fields: a null struct (a blob without a reference) gets the
            # table's required fields as empty values, which a cast does not give.
            column = pa.array(column.to_pylist(), type=field.type)
        columns.append(column)
    return pa.RecordBatch.from_arrays(
        columns, schema=pa.schema([f.with_type(c.type) for f, c in zip(schema, columns, strict=True)])
    ).cast(_handed_over(schema))


def _handed_over(schema: pa.Schema) -> pa.Schema:
    """The schema input batches reach the core in: the table's, with a narrow float or integer
    column left wide, so that the core refuses a value that would overflow it, naming the column
    (pyarrow's cast makes a float inf; its JSON parser's error names no column)."""

    def wide(f: pa.Field) -> pa.Field:
        if f.type in _NARROW_FLOATS:
            return f.with_type(pa.float64())
        return f.with_type(pa.int64()) if f.type in _NARROW_INTS else f

    return pa.schema([wide(f) for f in schema], metadata=schema.metadata)


def read_input(
    paths: Sequence[str], fmt: str | None, schema: pa.Schema | None, *, other_columns: bool = False
) -> pa.RecordBatchReader:
    """A streaming reader over the input files (see :func:`open_input`); nothing is loaded whole."""
    dataset = open_input(paths, fmt, schema, other_columns=other_columns)
    columns = schema.names if schema is not None else None
    reader = dataset.scanner(columns=columns).to_reader()
    if schema is None or reader.schema.equals(schema):
        return reader
    return pa.RecordBatchReader.from_batches(
        _handed_over(schema), (_text_to_table_types(batch, schema) for batch in reader)
    )


def schema_from_sample(path: str, fmt: str | None) -> pa.Schema:
    """The schema of a Parquet, CSV or JSON sample file."""
    return open_input([path], fmt, None).schema


def _split_top_level(text: str, sep: str = ",") -> list[str]:
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        if ch in "[(<":
            depth += 1
        elif ch in "])>":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


# Lists nest no deeper than this in a schema string: a table's schema crosses Arrow's C data
# interface, which takes 64 levels, the schema's own and the column's among them.
MAX_TYPE_DEPTH = 62


def parse_type(spec: str, depth: int = 0) -> pa.DataType:
    """Parses a type name: pyarrow aliases (int64, string, bool, double, date32, binary, ...),
    ``timestamp[ms]`` / ``timestamp[us, UTC]``, ``decimal(10, 2)``, ``list<int64>`` and
    ``blob`` (the RFC-100 blob struct). Lists nest at most MAX_TYPE_DEPTH deep."""
    if depth > MAX_TYPE_DEPTH:
        raise ValueError(f"types nest deeper than {MAX_TYPE_DEPTH} levels")
    s = spec.strip()
    low = s.lower()
    if low == "blob":
        return blob_type()
    if low.startswith("timestamp[") and low.endswith("]"):
        args = [a.strip() for a in s[len("timestamp[") : -1].split(",")]
        return pa.timestamp(args[0], tz=args[1] if len(args) > 1 else None)
    for prefix in ("decimal128(", "decimal("):
        if low.startswith(prefix) and low.endswith(")"):
            precision, scale = (int(a) for a in s[len(prefix) : -1].split(","))
            return pa.decimal128(precision, scale)
    if low.startswith("list<") and low.endswith(">"):
        return pa.list_(parse_type(s[len("list<") : -1], depth + 1))
    try:
        return pa.type_for_alias(s)
    except ValueError:
        raise ValueError(f"unknown type {spec!r}") from None


def parse_schema(text: str) -> pa.Schema:
    """Parses ``"id:int64,name:string,ts:timestamp[ms]"`` into a schema. A ``!`` after the type
    makes the field non-nullable (``id:int64!``)."""
    fields = []
    for item in _split_top_level(text):
        name, sep, type_spec = item.partition(":")
        if not sep or not name.strip() or not type_spec.strip():
            raise ValueError(f"bad schema item {item!r}: expected name:type")
        nullable = not type_spec.strip().endswith("!")
        fields.append(pa.field(name.strip(), parse_type(type_spec.strip().rstrip("!")), nullable=nullable))
    if not fields:
        raise ValueError("empty schema")
    return pa.schema(fields)


def names_list(text: str | None) -> list[str]:
    """Splits a comma-separated list of field names ("a,b")."""
    if not text:
        return []
    return [n.strip() for n in text.split(",") if n.strip()]


@contextlib.contextmanager
def progress_bar(out: Output, enabled: bool) -> Iterator[ProgressFn | None]:
    """A rich progress bar on stderr fed by the core's progress callback; yields the callback
    (None when disabled, in --json mode or when stderr is not a terminal)."""
    if not enabled or out.as_json or not out.err.is_terminal:
        yield None
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[unit]}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=out.err, transient=False) as bar:
        tasks: dict[str, TaskID] = {}

        def update(phase: str, done: int, total: int, unit: str) -> None:
            task = tasks.get(phase)
            if task is None:
                task = tasks[phase] = bar.add_task(phase, total=max(total, 1), unit=unit)
            bar.update(task, completed=done, total=max(total, done, 1))

        yield update


def human_bytes(n: int) -> str:
    """1536 -> '1.5 KiB'."""
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"


def human_instant(time_str: str | None) -> str:
    """'20261129110203123' -> '2026-11-29 11:02:03.123' (other strings unchanged)."""
    if not time_str or len(time_str) != 17 or not time_str.isdigit():
        return time_str or ""
    t = time_str
    return f"{t[0:4]}-{t[4:6]}-{t[6:8]} {t[8:10]}:{t[10:12]}:{t[12:14]}.{t[14:17]}"


def write_summary_table(result: dict[str, Any], title: str = "write") -> CliTable:
    """A rich table of one write's WriteResult."""
    t = CliTable(title=title, show_header=False, title_justify="left")
    t.add_column("what", style="bold")
    t.add_column("value", justify="right")
    t.add_row("instant", f"{result['instant_time']} ({human_instant(result['instant_time'])})")
    t.add_row("operation", str(result["operation"]))
    for key in (
        "records_in",
        "records_inserted",
        "records_updated",
        "records_deleted",
        "files_written",
        "file_groups_touched",
    ):
        t.add_row(key.replace("_", " "), f"{result[key]:,}")
    if result.get("file_groups_replaced"):
        t.add_row("file groups replaced", f"{result['file_groups_replaced']:,}")
    t.add_row("bytes written", human_bytes(int(result["bytes_written"])))
    t.add_row("time", f"{result['duration_ms'] / 1000:.2f} s")
    if result.get("rolled_back_instants"):
        t.add_row("rolled back first", ", ".join(result["rolled_back_instants"]))
    if result.get("compaction_instant"):
        t.add_row("compacted inline", str(result["compaction_instant"]))
    if result.get("archived_instants"):
        t.add_row("instants archived", f"{len(result['archived_instants']):,}")
    return t


def service_summary_table(title: str, result: dict[str, Any], rows: Sequence[tuple[str, str]]) -> CliTable:
    """The end-of-run summary of a table service (compact, cluster): its instant and state and
    ``rows``, or why nothing was done; then the time."""
    t = CliTable(title=title, show_header=False)
    if result["instant_time"] is None:
        t.add_row("nothing to do", str(result["reason"]))
    else:
        state = "completed" if result["completed"] else "scheduled"
        t.add_row(title, f"{result['instant_time']} ({state})")
        for label, value in rows:
            t.add_row(label, value)
    t.add_row("time", f"{result['duration_ms']} ms")
    return t


def timeline_table(instants: Sequence[dict[str, Any]], title: str = "timeline") -> CliTable:
    """A rich table of timeline instants."""
    t = CliTable(title=title, title_justify="left")
    for col in ("instant", "action", "state", "completed at (UTC)"):
        t.add_column(col, no_wrap=True)
    for i in instants:
        t.add_row(i["time"], i["action"], i["state"], human_instant(i.get("completion_time")))
    return t


def schema_table(schema: pa.Schema, title: str = "schema") -> CliTable:
    """A rich table of a schema's fields."""
    t = CliTable(title=title, title_justify="left")
    t.add_column("field")
    t.add_column("type")
    t.add_column("nullable")
    for f in schema:
        type_name = "blob" if f.type == blob_type() else str(f.type)
        t.add_row(f.name, type_name, "yes" if f.nullable else "no")
    return t


def rows_table(table: pa.Table, title: str, max_width: int = 40) -> CliTable:
    """A rich table of the rows of a (small) Arrow table, values shortened to ``max_width``."""
    t = CliTable(title=title, title_justify="left")
    for name in table.column_names:
        t.add_column(name, overflow="ellipsis", max_width=max_width)
    for row in table.to_pylist():
        t.add_row(*(_short(v, max_width) for v in row.values()))
    return t


def _short(value: Any, width: int) -> str:
    if isinstance(value, bytes):
        text = f"<{len(value)} bytes>"
    elif isinstance(value, dict) and value.get("type") in ("INLINE", "OUT_OF_LINE"):
        text = _blob_text(value)
    else:
        text = "" if value is None else str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _blob_text(blob: dict[str, Any]) -> str:
    if blob["type"] == "INLINE":
        data = blob.get("data")
        return f"inline <{len(data) if data is not None else 0} bytes>"
    ref = blob.get("reference") or {}
    path = str(ref.get("external_path") or "")
    tail = "/".join(path.rstrip("/").split("/")[-2:])  # the informative end of a long path
    return f"→ {tail}" if tail != path else f"→ {path}"


class Stopwatch:
    """Wall time of a piece of work, for the summaries."""

    def __init__(self) -> None:
        self.start = time.perf_counter()

    def seconds(self) -> float:
        """Seconds since the stopwatch started."""
        return time.perf_counter() - self.start
