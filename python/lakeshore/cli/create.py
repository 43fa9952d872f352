"""``lakeshore create``: a new table from a schema string or a sample file."""

from __future__ import annotations

import argparse
from typing import Any

import pyarrow as pa
from rich.markup import escape

from lakeshore.cli._common import Output, add_json_flag, names_list, parse_schema, schema_from_sample, schema_table
from lakeshore.table import Table

EPILOG = """\
examples:
  lakeshore create ./trips --schema "id:int64!,rider:string,city:string,ts:timestamp[ms],fare:double" \\
      --record-key id --partition-by city --ordering-field ts
  lakeshore create ./photos --sample photos.parquet --record-key id --property write.parquet.compression=zstd
  lakeshore create "s3://bucket/t?endpoint_override=127.0.0.1:9000&scheme=http" --schema "k:string,v:int64" \\
      --record-key k

schema types: int8..int64, uint8..uint32, float/double, bool, string, binary, date32,
  timestamp[s|ms|us|ns] or timestamp[ms, UTC], decimal(p, s), list<type>, and blob (the RFC-100
  blob struct: a value inline, or a reference to an external file). A trailing ! makes a field
  non-nullable.
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Adds the ``create`` verb."""
    p = subparsers.add_parser(
        "create",
        help="create a table",
        description="Create a table. The schema comes from --schema or from a sample file.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("path", help="where the table goes: a folder, file:///..., or s3://bucket/prefix?...")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--schema", type=_schema_arg, help='fields as "name:type,..." (see below)')
    src.add_argument("--sample", metavar="FILE", help="take the schema from a Parquet, CSV or JSON file")
    p.add_argument("--format", choices=["parquet", "csv", "json"], help="format of --sample (default: by extension)")
    p.add_argument("--record-key", required=True, help="record key field(s), comma-separated for a composite key")
    p.add_argument("--partition-by", help="hive-style partition field(s), comma-separated, in path order")
    p.add_argument("--ordering-field", help="field whose larger value wins between records with the same key")
    p.add_argument(
        "--table-type",
        default="cow",
        choices=["cow", "mor"],
        help="cow: copy-on-write, updates rewrite base files (default); mor: merge-on-read, updates and "
        "deletes go to log files until a compaction (lakeshore compact)",
    )
    p.add_argument("--name", help="table name (default: the last path segment)")
    p.add_argument(
        "--property",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a table setting, repeatable (e.g. write.parquet.compression=zstd, write.max_file_size_bytes=...)",
    )
    add_json_flag(p)
    p.set_defaults(func=run)


def parse_properties(items: list[str]) -> dict[str, str]:
    """Parses repeated ``KEY=VALUE`` arguments."""
    props = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"bad --property {item!r}: expected KEY=VALUE")
        props[key.strip()] = value.strip()
    return props


def _schema_arg(text: str) -> pa.Schema:
    """--schema parsed at argument time, so a bad one is a usage error (exit 2) that says why."""
    try:
        return parse_schema(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f'{e}; give fields as "name:type,...", e.g. "id:int64!,name:string"') from None


def run(args: argparse.Namespace) -> int:
    """Creates the table and prints its config and schema."""
    out = Output(args.json)
    schema = args.schema if args.schema is not None else schema_from_sample(args.sample, args.format)
    table = Table.create(
        args.path,
        schema,
        record_key=names_list(args.record_key),
        partition_by=names_list(args.partition_by),
        ordering_field=args.ordering_field,
        table_type=args.table_type,
        name=args.name,
        properties=parse_properties(args.property),
    )
    doc: dict[str, Any] = {
        "uri": table.uri,
        "config": table.config,
        "schema": [{"name": f.name, "type": str(f.type), "nullable": f.nullable} for f in table.schema],
    }
    out.json(doc)
    out.print(f"[green]created[/] table [bold]{escape(table.config['name'])}[/] at {escape(table.uri)}")
    out.print(schema_table(table.schema))
    c = table.config
    out.print(
        escape(
            f"record key: {', '.join(c['record_key'])}   partitioned by: {', '.join(c['partition_by']) or '-'}   "
            f"ordering field: {c['ordering_field'] or '-'}   type: {c['table_type']}"
        )
    )
    return 0
