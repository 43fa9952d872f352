"""``lakeshore show``: what a table is and holds."""

from __future__ import annotations

import argparse
from typing import Any

import pyarrow as pa
from rich.markup import escape

from lakeshore.cli._common import CliTable, Output, add_json_flag, non_negative_int, rows_table, schema_table
from lakeshore.table import Table

EPILOG = """\
examples:
  lakeshore show ./trips
  lakeshore show ./trips --rows 20 --files 50
  lakeshore show ./trips --as-of 20261129110203123     the table right after that instant
  lakeshore show ./trips --json
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Adds the ``show`` verb."""
    p = subparsers.add_parser(
        "show",
        help="schema, config, latest files, row count and a few rows",
        description="Show a table: its schema and config, the data files of its latest file slices, "
        "its row count and a few rows.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("path", help="the table")
    p.add_argument("--rows", type=non_negative_int, default=5, help="how many rows to show (default 5)")
    p.add_argument(
        "--files", type=non_negative_int, default=20, help="how many files to list (default 20; --json lists all)"
    )
    p.add_argument(
        "--as-of",
        help="show the table right after this instant (yyyyMMddHHmmssSSS), "
        'or as of this UTC time ("yyyy-MM-dd HH:mm:ss.SSS")',
    )
    add_json_flag(p)
    p.set_defaults(func=run)


def describe(table: Table, rows: int, as_of: str | None) -> dict[str, Any]:
    """What `show` reports about ``table``, as a JSON-ready dict. The row count reads the record
    key column alone, and the rows shown are read by their keys: memory follows the keys and
    the rows shown, never the whole table."""
    keys = table.to_arrow(columns=["_hoodie_record_key"], as_of=as_of).column(0)
    shown: list[dict[str, Any]] = []
    if rows > 0 and len(keys) > 0:
        first = keys.slice(0, rows).to_pylist()
        picked = table.to_arrow(
            columns=table.schema.names, filter=[("_hoodie_record_key", "in", first)], as_of=as_of
        ).to_pylist()
        shown = picked[:rows]
    return {
        "uri": table.uri,
        "config": table.config,
        "schema": [{"name": f.name, "type": str(f.type), "nullable": f.nullable} for f in table.schema],
        "as_of": as_of,
        "files": table.files(as_of=as_of),
        "row_count": len(keys),
        "rows": shown,
    }


def run(args: argparse.Namespace) -> int:
    """Prints the description."""
    out = Output(args.json)
    table = Table.open(args.path)
    doc = describe(table, args.rows, args.as_of)
    out.json(doc)
    if out.as_json:
        return 0
    c = doc["config"]
    out.print(
        f"[bold]{escape(c['name'])}[/] at {escape(doc['uri'])}" + (f" as of {escape(args.as_of)}" if args.as_of else "")
    )
    config = CliTable(show_header=False, title="config", title_justify="left")
    for key in ("record_key", "partition_by", "ordering_field", "table_type", "blob_columns"):
        value = c[key]
        config.add_row(key, (", ".join(value) if isinstance(value, list) else str(value or "")) or "-")
    out.print(config)
    out.print(schema_table(table.schema))
    files = CliTable(title=f"latest files ({len(doc['files'])})", title_justify="left")
    files.add_column("file", overflow="fold")
    for f in doc["files"][: args.files]:
        files.add_row(f)
    if len(doc["files"]) > args.files:
        files.add_row(f"… {len(doc['files']) - args.files} more")
    out.print(files)
    out.print(f"rows: [bold]{doc['row_count']:,}[/]")
    if args.rows > 0 and doc["row_count"] > 0:
        out.print(
            rows_table(pa.Table.from_pylist(doc["rows"], schema=table.schema), title=f"first {len(doc['rows'])} rows")
        )
    return 0
