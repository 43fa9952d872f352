"""``lakeshore compact``: merge a merge-on-read table's log files into new base files."""

from __future__ import annotations

import argparse

from lakeshore.cli._common import (
    Output,
    add_json_flag,
    human_bytes,
    non_negative_int,
    progress_bar,
    service_summary_table,
)
from lakeshore.table import Table

EPILOG = """\
examples:
  lakeshore compact ./trips
  lakeshore compact ./trips --min-delta-commits 5
  lakeshore compact ./trips --min-log-bytes 134217728 --json
  lakeshore compact ./trips --schedule-only     # plan now, execute with a later compact

A merge-on-read table keeps updates and deletes in log files beside each base file; reads merge
them. Compaction merges each file slice's base file and log files into a new base file, as
Hudi's compaction does (a compaction instant, completed as a commit): reads return the same rows,
faster, and the read-optimized view catches up. Writers keep writing meanwhile.

A pending compaction (scheduled, or left by a crash) is finished first. Otherwise a plan is made
when a trigger holds: --min-delta-commits deltacommits since the last compaction, or a slice
whose log files hold --min-log-bytes bytes; without either, every slice with log files is
compacted.
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Adds the ``compact`` verb."""
    p = subparsers.add_parser(
        "compact",
        help="merge a merge-on-read table's log files into new base files",
        description="Compact a merge-on-read Hudi table.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("path", help="the table")
    p.add_argument(
        "--min-delta-commits", type=non_negative_int, default=0, help="compact once this many deltacommits piled up"
    )
    p.add_argument(
        "--min-log-bytes", type=non_negative_int, default=0, help="compact slices whose logs hold this many bytes"
    )
    p.add_argument("--schedule-only", action="store_true", help="only plan the compaction")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Compacts, then prints what was merged."""
    out = Output(args.json)
    table = Table.open(args.path)
    with progress_bar(out, enabled=not args.no_progress) as progress:
        result = table.compact(
            min_delta_commits=args.min_delta_commits,
            min_log_bytes=args.min_log_bytes,
            schedule_only=args.schedule_only,
            progress=progress,
        )
    out.json(result)
    t = service_summary_table(
        "compact",
        result,
        [
            ("file groups", str(result["file_groups"])),
            ("log files merged", str(result["log_files"])),
            ("records written", str(result["records_written"])),
            ("bytes written", human_bytes(result["bytes_written"])),
        ],
    )
    out.print(t)
    return 0
