"""``lakeshore vacuum``: delete the files no version inside the retention window needs."""

from __future__ import annotations

import argparse
from typing import Any

from lakeshore.cli._common import CliTable, Output, add_json_flag, human_bytes, non_negative_int, progress_bar
from lakeshore.vacuum import vacuum

EPILOG = """\
examples:
  lakeshore vacuum ./events --dry-run                 what would go, with sizes
  lakeshore vacuum ./events                           delete untracked files older than 7 days
  lakeshore vacuum ./events --optimistic --json       from cron: returns at once if nothing changed
  lakeshore vacuum ./events --mode lite               from the log only, no listing
  lakeshore vacuum ./events --inventory inv.parquet   use an inventory instead of listing
  lakeshore vacuum ./events --retain-hours 1 --no-enforce-retention

Works on Delta Lake tables (_delta_log/). Nothing is deleted unless the whole log was read and
understood; see docs/vacuum.md for what an optimistic skip can miss.
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Adds the ``vacuum`` verb."""
    p = subparsers.add_parser(
        "vacuum",
        help="delete files no table version within the retention needs",
        description="Delete the untracked files of a table (files no active version, deletion vector or "
        "unexpired tombstone names) that are older than the retention, then the folders left empty.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("path", help="the table")
    p.add_argument("--format", choices=("auto", "delta", "hudi"), default="auto", help="table format (default: detect)")
    p.add_argument(
        "--retain-hours",
        type=float,
        help=(
            "retention in hours (default: the table's delta.deletedFileRetentionDuration or "
            "vacuum.retain_hours, 7 days)"
        ),
    )
    p.add_argument(
        "--no-enforce-retention",
        action="store_true",
        help="allow a retention shorter than the table's (only if no reader or writer can need the files)",
    )
    p.add_argument("--dry-run", action="store_true", help="list what would be deleted; delete and write nothing")
    p.add_argument(
        "--mode",
        choices=("full", "lite"),
        default="full",
        help="full lists the table; lite reads only the log (default full)",
    )
    p.add_argument(
        "--optimistic", action="store_true", help="skip at once when the log shows nothing can have become deletable"
    )
    p.add_argument(
        "--force-full-after-hours",
        type=float,
        help="with --optimistic: run anyway when the last full run is older than this",
    )
    p.add_argument(
        "--inventory", help="Parquet or CSV inventory (path,length,isDir,modificationTime) to use instead of listing"
    )
    p.add_argument("--show", type=non_negative_int, default=20, help="how many candidate files to print (default 20)")
    add_json_flag(p)
    p.set_defaults(func=run)


def summary_table(report: dict[str, Any]) -> CliTable:
    """A rich table of one vacuum report."""
    title = "vacuum (dry run)" if report["dry_run"] else "vacuum"
    t = CliTable(title=title, show_header=False, title_justify="left")
    t.add_column("what", style="bold")
    t.add_column("value", justify="right")
    t.add_row("format / mode", f"{report['format']} / {report['mode']}")
    if report["skipped"] or report["skip_reason"]:
        t.add_row("skipped", "yes" if report["skipped"] else "no")
        t.add_row("why", report["skip_reason"])
    t.add_row("files listed", f"{report['files_listed']:,}")
    candidate_bytes = sum(int(c["size"]) for c in report["candidates"])
    t.add_row("candidates", f"{len(report['candidates']):,} ({human_bytes(candidate_bytes)})")
    if not report["dry_run"]:
        t.add_row("files deleted", f"{report['files_deleted']:,} ({human_bytes(int(report['bytes_deleted']))})")
        t.add_row("folders deleted", f"{report['dirs_deleted']:,}")
        if report["files_refused"]:
            t.add_row("left (symbolic links)", f"{len(report['files_refused']):,}")
    t.add_row("time to identify", f"{report['time_to_identify_ms'] / 1000:.3f} s")
    t.add_row("time to delete", f"{report['time_to_delete_ms'] / 1000:.3f} s")
    return t


def candidates_table(report: dict[str, Any], limit: int) -> CliTable:
    """The first ``limit`` candidate files with their sizes."""
    t = CliTable(title=f"candidates (first {min(limit, len(report['candidates']))})", title_justify="left")
    t.add_column("path", overflow="fold")
    t.add_column("size", justify="right")
    for c in report["candidates"][:limit]:
        t.add_row(c["path"], human_bytes(int(c["size"])))
    return t


def run(args: argparse.Namespace) -> int:
    """Runs the vacuum and prints its report."""
    out = Output(args.json)
    with progress_bar(out, enabled=True) as progress:
        report = vacuum(
            args.path,
            retain_hours=args.retain_hours,
            enforce_retention=not args.no_enforce_retention,
            dry_run=args.dry_run,
            mode=args.mode,
            optimistic=args.optimistic,
            inventory=args.inventory,
            format=args.format,
            force_full_after_hours=args.force_full_after_hours,
            progress=progress,
        )
    out.json(report)
    if report["candidates"] and args.show > 0:
        out.print(candidates_table(report, args.show))
    out.print(summary_table(report))
    return 0
