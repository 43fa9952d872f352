"""``lakeshore archive``: move old instants into the archived timeline."""

from __future__ import annotations

import argparse

from lakeshore.cli._common import CliTable, Output, add_json_flag, non_negative_int
from lakeshore.table import Table

EPILOG = """\
examples:
  lakeshore archive ./trips
  lakeshore archive ./trips --keep-min 10 --keep-max 15 --json

Once more than --keep-max completed writes are on the active timeline, the oldest beyond
--keep-min move into Hudi 1.x's archived timeline (.hoodie/timeline/history/), as Hudi's own
archiver moves them. Nothing at or after a pending instant or a savepoint moves. Reads, as_of
time travel and incremental reads keep the whole history; Spark and hudi-rs read the table as
before. The defaults are the table's hoodie.keep.min.commits (20) and hoodie.keep.max.commits (30).
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Adds the ``archive`` verb."""
    p = subparsers.add_parser(
        "archive",
        help="move old instants into the archived timeline",
        description="Archive old completed instants of a Hudi table (timeline layout 2).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("path", help="the table")
    p.add_argument(
        "--keep-min", type=non_negative_int, default=None, help="completed writes kept active (default: table's)"
    )
    p.add_argument("--keep-max", type=non_negative_int, default=None, help="archive once more than this are active")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Archives, then prints what moved."""
    out = Output(args.json)
    result = Table.open(args.path).archive(keep_min_commits=args.keep_min, keep_max_commits=args.keep_max)
    out.json(result)
    t = CliTable(title="archive", show_header=False)
    moved = result["archived_instants"]
    t.add_row("instants archived", str(len(moved)))
    if moved:
        t.add_row("oldest .. newest", f"{moved[0]} .. {moved[-1]}")
    t.add_row("metadata instants archived", str(len(result["metadata_archived_instants"])))
    t.add_row("data files written", str(result["data_files_written"]))
    t.add_row("manifest version", str(result["manifest_version"]))
    t.add_row("time", f"{result['duration_ms']} ms")
    out.print(t)
    return 0
