"""``lakeshore timeline``: the instants of a table."""

from __future__ import annotations

import argparse

from lakeshore.cli._common import Output, add_json_flag, timeline_table
from lakeshore.table import Table

EPILOG = """\
examples:
  lakeshore timeline ./trips
  lakeshore timeline ./trips --json | jq '.[] | select(.state != "completed")'

An instant is born requested, goes inflight, then completed; readers see completed instants only.
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Adds the ``timeline`` verb."""
    p = subparsers.add_parser(
        "timeline",
        help="list a table's instants",
        description="List every instant of the table's active timeline, oldest first.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("path", help="the table")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Prints the timeline."""
    out = Output(args.json)
    instants = Table.open(args.path).timeline()
    out.json(instants)
    out.print(timeline_table(instants))
    return 0
