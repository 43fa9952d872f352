"""``lakeshore cluster``: rewrite small file groups, sorted, into new ones."""

from __future__ import annotations

import argparse

from lakeshore.cli._common import (
    Output,
    add_json_flag,
    human_bytes,
    names_list,
    non_negative_int,
    progress_bar,
    service_summary_table,
)
from lakeshore.table import Table

EPILOG = """\
examples:
  lakeshore cluster ./trips --sort-by city,ts
  lakeshore cluster ./trips --partition city=oslo --target-file-bytes 268435456 --json
  lakeshore cluster ./trips --sort-by ts --schedule-only   # plan now, execute with a later cluster

Clustering rewrites, per partition, the file groups whose files hold fewer than
--small-file-limit-bytes (300 MiB) into new file groups of about --target-file-bytes (the table's
write.max_file_size_bytes), sorted by --sort-by, as Hudi's clustering does: a clustering instant
that completes as a replacecommit ending the old groups. Reads return the same rows; fewer,
sorted files read faster and let readers skip more. Without --sort-by a partition needs two small
file groups. A pending clustering (scheduled, or left by a crash) is finished first; while it is
pending, writes refuse to update its file groups.
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Adds the ``cluster`` verb."""
    p = subparsers.add_parser(
        "cluster",
        help="rewrite small file groups, sorted, into new ones",
        description="Cluster a Hudi table.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("path", help="the table")
    p.add_argument("--sort-by", help="columns to sort the records by, comma-separated")
    p.add_argument(
        "--small-file-limit-bytes", type=non_negative_int, default=300 << 20, help="cluster file groups below this"
    )
    p.add_argument("--target-file-bytes", type=non_negative_int, default=0, help="size of the new files (0: table's)")
    p.add_argument("--partition", action="append", default=[], help="a partition path to cluster (repeatable)")
    p.add_argument("--schedule-only", action="store_true", help="only plan the clustering")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Clusters, then prints what was rewritten."""
    out = Output(args.json)
    table = Table.open(args.path)
    with progress_bar(out, enabled=not args.no_progress) as progress:
        result = table.cluster(
            sort_by=names_list(args.sort_by),
            small_file_limit_bytes=args.small_file_limit_bytes,
            target_file_bytes=args.target_file_bytes,
            partitions=args.partition,
            schedule_only=args.schedule_only,
            progress=progress,
        )
    out.json(result)
    t = service_summary_table(
        "cluster",
        result,
        [
            ("file groups replaced", str(result["file_groups_replaced"])),
            ("file groups written", str(result["file_groups_written"])),
            ("records written", str(result["records_written"])),
            ("bytes written", human_bytes(result["bytes_written"])),
        ],
    )
    out.print(t)
    return 0
