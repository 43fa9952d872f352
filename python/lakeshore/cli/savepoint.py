"""``lakeshore savepoint create|delete|list``: Hudi's savepoints."""

from __future__ import annotations

import argparse

from lakeshore.cli._common import CliTable, Output, add_json_flag, human_instant
from lakeshore.table import Table

EPILOG = """\
examples:
  lakeshore savepoint list ./trips
  lakeshore savepoint create ./trips 20260101093000123 --user ana --comment "before the backfill"
  lakeshore savepoint delete ./trips 20260101093000123 --json

A savepoint marks a completed write instant to keep (Hudi's savepoint action, at that instant's
time): while it exists, archival keeps it and everything after it on the active timeline, and
Spark's cleaner keeps its files. `lakeshore timeline` lists the instants you can savepoint.
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Adds the ``savepoint`` verb and its actions."""
    p = subparsers.add_parser(
        "savepoint",
        help="create, delete or list savepoints",
        description="Create, delete or list the savepoints of a Hudi table.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("action", choices=["create", "delete", "list"], help="what to do")
    p.add_argument("path", help="the table")
    p.add_argument("instant", nargs="?", help="the completed write instant (create, delete)")
    p.add_argument("--user", default="", help="who savepoints (create)")
    p.add_argument("--comment", default="", help="why (create)")
    add_json_flag(p)
    p.set_defaults(func=run)


def _table(savepoints: list[dict[str, object]]) -> CliTable:
    t = CliTable(title="savepoints")
    for column in ("instant", "when", "user", "comment", "files"):
        t.add_column(column)
    for s in savepoints:
        t.add_row(
            str(s["instant_time"]),
            human_instant(str(s["instant_time"])),
            str(s["user"]),
            str(s["comment"]),
            str(s["files"]),
        )
    return t


def run(args: argparse.Namespace) -> int:
    """Runs the action and prints the savepoints."""
    out = Output(args.json)
    table = Table.open(args.path)
    if args.action in ("create", "delete") and not args.instant:
        raise ValueError(f"lakeshore savepoint {args.action} needs an INSTANT (see lakeshore timeline {args.path})")
    if args.action == "list" and args.instant is not None:
        raise ValueError(f"lakeshore savepoint list takes no INSTANT, got {args.instant!r}")
    if args.action == "create":
        created = table.savepoint(args.instant, user=args.user, comment=args.comment)
        out.json(created)
        out.print(_table([created]))
        return 0
    if args.action == "delete":
        table.delete_savepoint(args.instant)
    listed = table.savepoints()
    out.json(listed)
    out.print(_table(listed))
    return 0
