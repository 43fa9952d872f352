"""The ``lakeshore`` command line: one module per verb in this package, each exposing
``register(subparsers)`` (which adds its parser and sets ``func``, the function that runs it)."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pkgutil
import sys
from collections.abc import Sequence
from typing import NoReturn

import pyarrow as pa

from lakeshore.cli._common import as_given
from lakeshore.errors import LakeshoreError

EPILOG = """\
examples:
  lakeshore demo                                   build a demo table in a temp folder and tour it
  lakeshore create ./t --schema "id:int64,name:string,city:string,ts:timestamp[ms]" \\
      --record-key id --partition-by city --ordering-field ts
  lakeshore write ./t day1.parquet --mode upsert   upsert records from files (Parquet, CSV, JSON)
  lakeshore write ./t gone.csv --mode delete       delete the keys listed in a file
  lakeshore show ./t                               schema, config, latest files, row count, rows
  lakeshore timeline ./t --json                    every instant, as JSON
  lakeshore write ./t fix.parquet --mode insert_overwrite   replace the partitions the rows are in
  lakeshore savepoint create ./t 20260101093000123 keep an instant (list, delete too)
  lakeshore rollback ./t 20260101094500456         undo the latest completed write
  lakeshore restore ./t 20260101093000123          go back to a savepoint
  lakeshore archive ./t                            move old instants into the archived timeline
  lakeshore compact ./t                            merge a merge-on-read table's log files into base files
  lakeshore cluster ./t --sort-by city,ts          rewrite small file groups, sorted, into new ones
  lakeshore index lookup ./t 7,42                  where records live (the record index, if any)

Tables may live in a folder, at file:///abs/path, or on S3:
  s3://bucket/prefix?endpoint_override=host:port&scheme=http
Run `lakeshore VERB --help` for the options of a verb.
"""


def verb_modules() -> list[str]:
    """The names of the verb modules of this package (every module not starting with '_')."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with one subcommand per verb module."""
    parser = argparse.ArgumentParser(
        prog="lakeshore",
        description="Lakeshore: a native engine for Apache Hudi tables. Create tables, write and read "
        "records, compact, cluster, savepoint, roll back, restore and archive them, and vacuum Hudi and Delta tables.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    subparsers = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    for name in verb_modules():
        module = importlib.import_module(f"{__name__}.{name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the CLI; returns the process exit code (0 ok, 1 a Lakeshore or input error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (LakeshoreError, OSError, ValueError, TypeError, pa.ArrowException) as e:
        kind = getattr(e, "kind", None)
        message = as_given(str(e))
        if getattr(args, "json", False):
            sys.stdout.write(json.dumps({"error": {"type": type(e).__name__, "kind": kind, "message": message}}) + "\n")
        print(f"lakeshore {args.verb}: error: {type(e).__name__}: {message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as e:
        # The core's note says whether the work stopped before its commit point or completed.
        notes = [n.removeprefix("lakeshore: ") for n in getattr(e, "__notes__", [])]
        message = "interrupted" + "".join(f"; {n}" for n in notes)
        if getattr(args, "json", False):  # one JSON document, as every other failure gives
            sys.stdout.write(
                json.dumps({"error": {"type": "KeyboardInterrupt", "kind": None, "message": message}}) + "\n"
            )
        print(f"lakeshore {args.verb}: {message}", file=sys.stderr)
        return 130


def run() -> NoReturn:
    """The ``lakeshore`` command: :func:`main`, then the exit with its code. Interrupted (130),
    the process ends at once, its output flushed: pyarrow crashes (SIGSEGV) tearing down a
    dataset reader left in the middle of a JSON input at interpreter exit."""
    code = main()
    if code == 130:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
