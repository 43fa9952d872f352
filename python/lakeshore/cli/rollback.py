"""``lakeshore rollback``: undo the latest completed write."""

from __future__ import annotations

import argparse

from lakeshore.cli._common import CliTable, Output, add_json_flag
from lakeshore.table import Table

EPILOG = """\
examples:
  lakeshore timeline ./trips                         find the latest completed write
  lakeshore rollback ./trips 20260101093000123
  lakeshore rollback ./trips 20260101093000123 --json

Rolls back the latest completed write as Hudi's rollback does: a rollback instant records the
files it deletes, the write's own instant leaves the timeline, and the table reads as before the
write (time travel to earlier instants is unchanged). Only the latest write can be rolled back,
and not one a savepoint keeps (lakeshore savepoint delete first). Failed writes are rolled back
on their own by the next writer.
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Adds the ``rollback`` verb."""
    p = subparsers.add_parser(
        "rollback",
        help="roll back the latest completed write",
        description="Roll back the latest completed write of a Hudi table.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("path", help="the table")
    p.add_argument("instant", help="the write's instant time")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Rolls back and prints the rollback instant."""
    out = Output(args.json)
    rollback = Table.open(args.path).rollback(args.instant)
    result = {"rolled_back": args.instant, "rollback_instant": rollback}
    out.json(result)
    t = CliTable(title="rollback", show_header=False)
    t.add_row("rolled back", args.instant)
    t.add_row("rollback instant", rollback)
    out.print(t)
    return 0
