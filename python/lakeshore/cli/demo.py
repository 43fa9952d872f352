"""``lakeshore demo``: build a small table with a blob column, change it, and show what happened.

The demo keeps its own record of what the table should hold (a plain dict by key) and checks
every read against it, so a successful demo is also an end-to-end check of the engine.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
from rich.markup import escape
from rich.text import Text

from lakeshore.blob import blob_type, inline_blob, out_of_line_blob
from lakeshore.cli._common import (
    CliTable,
    Output,
    Stopwatch,
    add_json_flag,
    human_bytes,
    rows_table,
    timeline_table,
    write_summary_table,
)
from lakeshore.table import Table
from lakeshore.vacuum import vacuum

EPILOG = """\
examples:
  lakeshore demo                    in a fresh temporary folder (printed at the end)
  lakeshore demo ./lakeshore-demo   in a folder of yours (must be empty or absent)
  lakeshore demo --json             the same, as one JSON document

What it does: writes a few photo files into <folder>/blobs, creates the table <folder>/table
(riders keyed by id, partitioned by city, newest updated_at wins, a blob column referencing the
photos), bulk-inserts riders, upserts (updates, a stale update that must lose, new riders),
deletes two riders, then reads the table back (latest, as of each instant, incrementally) and
checks every read against what it wrote (and, when hudi-rs is installed, that the reference Hudi
reader reads the same records: the table is an Apache Hudi table). Last, it plants a stray file
in a partition folder (as a crashed tool would leave, dated 8 days back) and vacuums: a dry run
names exactly that file, a real run deletes it and leaves the table as it was, and an optimistic
rerun is skipped at once.
"""


def demo_schema() -> pa.Schema:
    """The demo table's schema: riders with a photo blob column."""
    return pa.schema(
        [
            pa.field("id", pa.int64(), nullable=False),
            pa.field("name", pa.string()),
            pa.field("city", pa.string()),
            pa.field("updated_at", pa.timestamp("ms", tz="UTC")),
            pa.field("photo", blob_type()),
        ]
    )


CITIES = ("lisbon", "oslo", "quito")
NAMES = ("Ana", "Bo", "Chen", "Dara", "Eli", "Femi", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lea")
T0 = dt.datetime(2026, 1, 1, 8, 0, 0, tzinfo=dt.timezone.utc)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Adds the ``demo`` verb."""
    p = subparsers.add_parser(
        "demo",
        help="build a demo table with blobs, upsert and delete, and show what happened",
        description="Build a demo table whose blob column references files in a local blob folder, "
        "upsert and delete, and print what happened (timeline, files, row counts).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("path", nargs="?", help="folder for the demo (default: a fresh temporary folder)")
    add_json_flag(p)
    p.set_defaults(func=run)


@dataclass
class Demo:
    """The demo's folders, table, expected contents and report."""

    root: Path
    out: Output
    table: Table | None = None
    expected: dict[int, dict[str, Any]] = field(default_factory=dict)
    expected_by_instant: dict[str, dict[int, dict[str, Any]]] = field(default_factory=dict)
    steps: list[dict[str, Any]] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)

    @property
    def blobs(self) -> Path:
        return self.root / "blobs"

    @property
    def table_path(self) -> Path:
        return self.root / "table"

    # ---- data ---------------------------------------------------------------------------

    def make_photos(self, count: int) -> list[Path]:
        """Writes ``count`` photo files of pseudo-random bytes into the blob folder."""
        self.blobs.mkdir(parents=True, exist_ok=True)
        rng = random.Random(7)
        paths = []
        for i in range(count):
            path = self.blobs / f"photo-{i:02d}.jpg"
            path.write_bytes(rng.randbytes(rng.randint(2_000, 64_000)))
            paths.append(path)
        return paths

    def rider(self, rid: int, name: str, minutes: int, photo: dict[str, Any]) -> dict[str, Any]:
        """One record."""
        return {
            "id": rid,
            "name": name,
            "city": CITIES[rid % len(CITIES)],
            "updated_at": T0 + dt.timedelta(minutes=minutes),
            "photo": photo,
        }

    # ---- steps --------------------------------------------------------------------------

    def write(self, title: str, mode: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
        """Writes ``rows`` with ``mode``, updates the expectation, and records the step."""
        assert self.table is not None
        if mode == "delete":
            result = self.table.delete([r["id"] for r in rows])
            for r in rows:
                self.expected.pop(r["id"], None)
        else:
            result = self.table.write(pa.Table.from_pylist(rows, schema=demo_schema()), mode)
            for r in rows:
                old = self.expected.get(r["id"])
                if mode != "upsert" or old is None or r["updated_at"] >= old["updated_at"]:
                    self.expected[r["id"]] = r
        self.expected_by_instant[result["instant_time"]] = dict(self.expected)
        self.steps.append({"step": title, "mode": mode, "records": len(rows), "result": result})
        self.out.print(write_summary_table(result, title=f"{len(self.steps)}. {title}"))
        return result

    def check(self, what: str, actual: Any, expected: Any) -> None:
        """Records whether ``actual`` matches ``expected``."""
        ok = actual == expected
        self.checks.append({"check": what, "ok": ok, **({} if ok else {"actual": actual, "expected": expected})})

    def check_snapshot(self, what: str, data: pa.Table, expected: dict[int, dict[str, Any]]) -> None:
        """Checks that ``data`` holds exactly the ``expected`` records."""
        got = {r["id"]: r for r in data.select(demo_schema().names).to_pylist()}
        self.check(what, _canonical(got), _canonical(expected))


def demo_hudi_rs(demo: Demo, latest: pa.Table) -> None:
    """The table is an Apache Hudi table: hudi-rs, the reference Hudi reader, reads the same
    records (meta columns included), when it is installed (`pip install hudi`)."""
    try:
        import hudi  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        return
    theirs = pa.Table.from_batches(hudi.HudiTable(str(demo.table_path)).read())

    def key(r: dict[str, Any]) -> str:
        return str(r["_hoodie_record_key"])

    demo.check(
        "hudi-rs (the reference Hudi reader) reads the same records",
        sorted(map(repr, sorted(theirs.to_pylist(), key=key))),
        sorted(map(repr, sorted(latest.to_pylist(), key=key))),
    )


def demo_vacuum(demo: Demo) -> None:
    """Plants an old stray file and checks that vacuum finds, deletes and then skips exactly it."""
    table = demo.table
    assert table is not None
    stray = demo.table_path / "city=oslo" / "left-by-a-crashed-tool.parquet"
    stray.write_bytes(b"not referenced by any instant")
    eight_days_ago = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=8)).timestamp()
    os.utime(stray, (eight_days_ago, eight_days_ago))
    dry = vacuum(table.uri, dry_run=True)
    demo.check(
        "vacuum dry run names only the stray file",
        [c["path"] for c in dry["candidates"]],
        ["city=oslo/left-by-a-crashed-tool.parquet"],
    )
    real = vacuum(table.uri)
    demo.check("vacuum deletes it", (real["files_deleted"], stray.exists()), (1, False))
    demo.check_snapshot("vacuum leaves the table as it was", table.to_arrow(), demo.expected)
    again = vacuum(table.uri, optimistic=True)
    demo.check("an optimistic rerun is skipped without listing", (again["skipped"], again["files_listed"]), (True, 0))
    demo.out.print(
        escape(
            f"vacuum: dry run found {len(dry['candidates'])} file, the real run deleted "
            f"{real['files_deleted']} ({real['bytes_deleted']} bytes); optimistic rerun skipped: {again['skip_reason']}"
        )
    )


def _canonical(records: dict[int, dict[str, Any]]) -> list[tuple[Any, ...]]:
    return sorted((k, r["name"], r["city"], r["updated_at"], repr(r["photo"])) for k, r in records.items())


def prepare_root(path: str | None) -> Path:
    """The demo folder: ``path`` (absent or empty) or a fresh temporary folder."""
    if path is None:
        return Path(tempfile.mkdtemp(prefix="lakeshore-demo-"))
    root = Path(path).resolve()
    if root.exists() and any(root.iterdir()):
        raise FileExistsError(f"{root} is not empty; give an empty or new folder (the demo never overwrites)")
    root.mkdir(parents=True, exist_ok=True)
    return root


def run(args: argparse.Namespace) -> int:
    """Runs the demo; returns 0 when every check passed, 1 otherwise."""
    out = Output(args.json)
    watch = Stopwatch()
    demo = Demo(root=prepare_root(args.path), out=out)
    photos = demo.make_photos(10)
    out.print(f"[bold]Lakeshore demo[/] in {escape(str(demo.root))}")
    out.print(escape(f"wrote {len(photos)} photo files to {demo.blobs} (the blob column references them)"))

    demo.table = Table.create(
        str(demo.table_path),
        demo_schema(),
        record_key="id",
        partition_by="city",
        ordering_field="updated_at",
        name="riders",
    )
    ref = [out_of_line_blob(str(p), managed=True) for p in photos]

    first = [demo.rider(i, NAMES[i], minutes=i, photo=ref[i]) for i in range(8)]
    first[7]["photo"] = inline_blob(b"\x89PNG tiny inline thumbnail")
    r1 = demo.write("bulk insert 8 riders", "bulk_insert", first)

    updates = [
        demo.rider(1, "Bo B.", minutes=60, photo=ref[8]),  # new name and a new photo
        demo.rider(2, "Chen C.", minutes=61, photo=ref[2]),
        demo.rider(4, "stale Eli", minutes=-30, photo=ref[4]),  # older than stored: must lose
        demo.rider(8, NAMES[8], minutes=62, photo=ref[9]),  # new rider
        demo.rider(9, NAMES[9], minutes=63, photo=inline_blob(b"inline avatar")),
    ]
    demo.write("upsert 3 updates (one stale) and 2 new riders", "upsert", updates)
    demo.write("delete 2 riders", "delete", [{"id": 0}, {"id": 5}])

    table = demo.table
    latest = table.to_arrow()
    demo.check_snapshot("latest snapshot matches what was written", latest, demo.expected)
    for instant, expected in demo.expected_by_instant.items():
        demo.check_snapshot(f"time travel as of {instant}", table.to_arrow(as_of=instant), expected)
    oslo = table.to_arrow(filter=[("city", "=", "oslo")])
    demo.check_snapshot(
        "partition filter city = oslo", oslo, {k: r for k, r in demo.expected.items() if r["city"] == "oslo"}
    )
    changed = table.read_incremental(r1["instant_time"])
    demo.check(
        "incremental read after the first instant returns the upserted survivors",
        sorted(changed.column("id").to_pylist()),
        sorted(k for k in (1, 2, 8, 9) if k in demo.expected),
    )
    referenced = [
        r["photo"]["reference"]["external_path"]
        for r in latest.to_pylist()
        if r["photo"] and r["photo"]["type"] == "OUT_OF_LINE"
    ]
    demo.check("every referenced blob file exists", all(Path(p).is_file() for p in referenced), True)
    demo_hudi_rs(demo, latest)
    demo_vacuum(demo)

    timeline = table.timeline()
    files = table.files()
    file_bytes = sum((demo.table_path / f).stat().st_size for f in files)
    blob_bytes = sum(Path(p).stat().st_size for p in set(referenced))
    ok = all(c["ok"] for c in demo.checks)
    report = {
        "root": str(demo.root),
        "table": table.uri,
        "blobs": str(demo.blobs),
        "steps": demo.steps,
        "timeline": timeline,
        "files": files,
        "file_bytes": file_bytes,
        "rows_latest": latest.num_rows,
        "rows_by_instant": {i: len(e) for i, e in demo.expected_by_instant.items()},
        "referenced_blobs": len(set(referenced)),
        "blob_bytes": blob_bytes,
        "checks": demo.checks,
        "ok": ok,
        "seconds": round(watch.seconds(), 3),
    }
    out.json(report)
    if out.as_json:
        return 0 if ok else 1

    out.print(timeline_table(timeline))
    out.print(rows_table(latest.select(demo_schema().names), title=f"latest snapshot ({latest.num_rows} rows)"))
    counts = CliTable(title="rows as of each instant", title_justify="left")
    counts.add_column("instant")
    counts.add_column("rows", justify="right")
    for instant, n in report["rows_by_instant"].items():
        counts.add_row(instant, str(n))
    out.print(counts)
    checks = CliTable(title="checks", title_justify="left")
    checks.add_column("check")
    checks.add_column("result")
    for c in demo.checks:
        checks.add_row(
            c["check"],
            Text("ok", style="green") if c["ok"] else Text.assemble(("FAILED", "red"), f" got {c.get('actual')}"),
        )
    out.print(checks)
    summary = CliTable(title="summary", show_header=False, title_justify="left")
    summary.add_row("data files (latest slices)", str(len(files)))
    summary.add_row("data bytes", human_bytes(file_bytes))
    summary.add_row("blob files referenced", f"{len(set(referenced))} ({human_bytes(blob_bytes)} in {demo.blobs})")
    summary.add_row("instants", str(len(timeline)))
    summary.add_row("time", f"{watch.seconds():.2f} s")
    out.print(summary)
    out.print(
        f"[green]demo ok[/]: the table is at {escape(str(demo.table_path))}" if ok else "[red]demo found problems[/]"
    )
    prog = sys.argv[0] if Path(sys.argv[0]).name == "lakeshore" else "lakeshore"
    out.print(escape(f"try: {prog} show {demo.table_path}   {prog} timeline {demo.table_path}"))
    return 0 if ok else 1
