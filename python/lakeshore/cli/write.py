"""``lakeshore write``: insert, upsert, delete or bulk-insert records from files."""

from __future__ import annotations

import argparse

import pyarrow as pa

from lakeshore.cli._common import (
    Output,
    Stopwatch,
    add_json_flag,
    open_input,
    progress_bar,
    read_input,
    write_summary_table,
)
from lakeshore.table import Table

EPILOG = """\
examples:
  lakeshore write ./trips day1.parquet day2.parquet          upsert (the default mode)
  lakeshore write ./trips backfill/*.parquet --mode bulk_insert
  lakeshore write ./trips new.csv --mode insert
  lakeshore write ./trips cancelled.json --mode delete       the files need only the key field(s)
  lakeshore write ./trips fixed-oslo.parquet --mode insert_overwrite

modes:
  upsert       update records whose key is stored, insert the others (the ordering field picks the
               winner between records with the same key)
  insert       add records without looking keys up (an existing key is stored again)
  bulk_insert  add records sorted into new file groups: the fast path for a first load
  delete       delete the records whose keys the files list
  insert_overwrite        replace every partition the records fall in with these records
  insert_overwrite_table  replace the whole table with these records
  delete_partition        drop the partitions the files name (they need only the partition
                          field(s))

All files of one call are written as one instant: all of it becomes visible, or none of it.
CSV and JSON values are parsed as the table's column types (dates as YYYY-MM-DD, or in JSON
as day counts; timestamps with or without a zone offset). Each file must hold exactly the
table's columns (any order): a missing or unknown column is refused, naming it; delete files
need only the key field(s), and their other columns of the table are ignored.
"""

MODES = ("upsert", "insert", "bulk_insert", "delete", "insert_overwrite", "insert_overwrite_table", "delete_partition")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Adds the ``write`` verb."""
    p = subparsers.add_parser(
        "write",
        help="write records from Parquet, CSV or JSON files",
        description="Write records from files into a table, as one instant.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("path", help="the table")
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="input files (Parquet, CSV or JSON lines); - reads standard input (with --format)",
    )
    p.add_argument("--mode", choices=MODES, default="upsert", help="how to write (default: upsert)")
    p.add_argument("--format", choices=["parquet", "csv", "json"], help="input format (default: by extension)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_json_flag(p)
    p.set_defaults(func=run)


def input_schema(table: Table, mode: str, files: list[str], fmt: str | None) -> pa.Schema:
    """The columns to read from the files: the table schema, or for delete the key fields (and
    the partition fields, when the files have them)."""
    schema = table.schema
    if mode not in ("delete", "delete_partition"):
        return schema
    present = set(open_input(files, fmt, None).schema.names)
    unknown = sorted(present - set(schema.names))
    if unknown:  # other columns of the table are ignored; one it lacks is refused, as Table.delete does
        raise ValueError(f"the input files have the column(s) {unknown}, which the table lacks")
    if mode == "delete_partition":
        return pa.schema([schema.field(n) for n in table.partition_by])
    names = list(table.record_key)
    names += [f for f in table.partition_by if f in present and f not in names]
    return pa.schema([schema.field(n) for n in names])


def run(args: argparse.Namespace) -> int:
    """Writes the files and prints a summary of the write."""
    out = Output(args.json)
    watch = Stopwatch()
    table = Table.open(args.path)
    keys_only = args.mode in ("delete", "delete_partition")
    stream = read_input(
        args.files, args.format, input_schema(table, args.mode, args.files, args.format), other_columns=keys_only
    )
    with progress_bar(out, enabled=not args.no_progress) as progress:
        if args.mode == "delete":
            result = table.delete(stream, progress=progress)  # finds partitions if the files lack them
        else:
            result = table.write(stream, args.mode, progress=progress)
    result["input_files"] = len(args.files)
    result["wall_seconds"] = round(watch.seconds(), 3)
    out.json(result)
    out.print(write_summary_table(result, title=f"{args.mode} into {table.uri} ({len(args.files)} input files)"))
    return 0
