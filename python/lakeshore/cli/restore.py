"""``lakeshore restore``: go back to a savepoint."""

from __future__ import annotations

import argparse

from lakeshore.cli._common import CliTable, Output, add_json_flag
from lakeshore.table import Table

EPILOG = """\
examples:
  lakeshore savepoint list ./trips                   the savepoints to go back to
  lakeshore restore ./trips 20260101093000123
  lakeshore restore ./trips 20260101093000123 --json

Restores the table to a savepoint as Hudi's restore does: every write after it is rolled back,
newest first (each with its own rollback instant), under one restore instant; the table then
reads as it did at the savepoint. Refused while a later savepoint exists or a later write is
still running. An interrupted restore is finished by the next writer.
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Adds the ``restore`` verb."""
    p = subparsers.add_parser(
        "restore",
        help="restore a table to a savepoint",
        description="Restore a Hudi table to one of its savepoints.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("path", help="the table")
    p.add_argument("savepoint", help="the savepointed instant time")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Restores and prints the restore instant."""
    out = Output(args.json)
    restore = Table.open(args.path).restore(args.savepoint)
    result = {"savepoint": args.savepoint, "restore_instant": restore}
    out.json(result)
    t = CliTable(title="restore", show_header=False)
    t.add_row("restored to", args.savepoint)
    t.add_row("restore instant", restore)
    out.print(t)
    return 0
