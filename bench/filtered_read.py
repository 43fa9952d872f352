"""Benchmark: filtered snapshot reads that skip files by the metadata table's column_stats.

A table of N rows (LAKESHORE_BENCH_ROWS, default 2,000,000) written in F inserts
(LAKESHORE_BENCH_FILES, default 40), one base file each, with `v` rising with the insert
(time-ordered) and `r` random. Three filters: a selective one on `v` (one file's range: most
files ruled out), a broad one on `v` (half the table), and one on the random column `r` (no
file can be ruled out: pruning costs, never helps).

In the same run, on the same base files:
- pyarrow.dataset with the same filter (it prunes row groups by their Parquet statistics);
- DuckDB `read_parquet` over the files with the same WHERE (statistics pushdown);
- Lakeshore on a copy of the table without the column_stats partition (every file read, then
  filtered): what the metadata table saves.

A merge-on-read shape, `selective_merge_on_read`: the same inserts into a merge-on-read table,
then one upsert of every 100th key, so every file group's slice has a log file; the selective
filter, against hudi-rs reading the same table with the same filter (pyarrow and DuckDB cannot
merge logs) and against the same table without column_stats. A slice is skipped only when its
base file's and its log file's stats both rule a match out.

Ratios above 1 mean Lakeshore with column stats is faster. Each time is the best of
LAKESHORE_BENCH_REPEAT runs (default 5). Prints one JSON document.

    LAKESHORE_BENCH_ROWS=2000000 python bench/filtered_read.py
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import hudi
import pyarrow as pa
import pyarrow.dataset as ds

import lakeshore

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.int64()), ("r", pa.int64()), ("s", pa.string())])


def best(repeat: int, fn: Callable[[], int]) -> tuple[float, int]:
    """The fastest of `repeat` runs of fn (seconds) and the rows it returned."""
    times, rows = [], -1
    for _ in range(repeat):
        start = time.perf_counter()
        rows = fn()
        times.append(time.perf_counter() - start)
    return min(times), rows


def report(rows: int, meta: dict[bytes, bytes], ours_s: float, peers: dict[str, float]) -> dict[str, Any]:
    """One shape's JSON: what was pruned, each time, and each peer's time over ours."""
    return {
        "rows_matched": rows,
        "file_groups_pruned": int(meta[b"read.file_groups_pruned"]),
        "file_groups": int(meta[b"read.file_groups"]),
        "lakeshore_s": round(ours_s, 4),
        **{f"{peer}_s": round(s, 4) for peer, s in peers.items()},
        "ratio": {f"to_{peer}": round(s / ours_s, 2) for peer, s in peers.items()},
    }


def main() -> int:
    rows = int(os.environ.get("LAKESHORE_BENCH_ROWS", "2000000"))
    files = int(os.environ.get("LAKESHORE_BENCH_FILES", "40"))
    repeat = int(os.environ.get("LAKESHORE_BENCH_REPEAT", "5"))
    per = rows // files
    root = Path(tempfile.mkdtemp(prefix="lakeshore-filtered-"))
    try:
        path = root / "t"
        properties = {
            "hoodie.metadata.enable": "true",
            "hoodie.metadata.index.column.stats.enable": "true",
            "hoodie.parquet.bloom.filter.enabled": "false",
            "write.small_file_limit_bytes": "0",
        }
        t = lakeshore.Table.create(
            str(path),
            SCHEMA,
            record_key="id",
            properties=properties,
        )
        mor = lakeshore.Table.create(
            str(root / "mor"), SCHEMA, record_key="id", table_type="mor", properties=properties
        )
        rng = random.Random(1)
        for f in range(files):
            ids = list(range(f * per, (f + 1) * per))
            batch = pa.table(
                {
                    "id": ids,
                    "v": ids,
                    "r": [rng.randrange(rows) for _ in ids],
                    "s": [f"row-{i}" for i in ids],
                },
                schema=SCHEMA,
            )
            t.insert(batch)
            mor.insert(batch)
        updated = list(range(0, rows, 100))
        mor.upsert(
            pa.table(
                {
                    "id": updated,
                    "v": updated,
                    "r": [rng.randrange(rows) for _ in updated],
                    "s": ["updated"] * len(updated),
                },
                schema=SCHEMA,
            )
        )
        plain_path = root / "plain"
        shutil.copytree(path, plain_path)
        plain = lakeshore.Table.open(str(plain_path))
        plain.drop_index("column_stats")
        mor_plain_path = root / "mor_plain"
        shutil.copytree(root / "mor", mor_plain_path)
        mor_plain = lakeshore.Table.open(str(mor_plain_path))
        mor_plain.drop_index("column_stats")
        base_files = [str(path / f) for f in t.files()]
        dataset = ds.dataset(base_files, format="parquet")
        con = duckdb.connect()
        listing = "[" + ", ".join(f"'{f}'" for f in base_files) + "]"
        shapes = {
            "selective_time_ordered": ([("v", ">=", per * 7), ("v", "<", per * 7 + per // 10)], "v >= {a} AND v < {b}"),
            "broad_time_ordered": ([("v", "<", rows // 2)], "v < {c}"),
            "random_column": ([("r", "<", rows // 100)], "r < {d}"),
        }
        params = {"a": per * 7, "b": per * 7 + per // 10, "c": rows // 2, "d": rows // 100}
        columns = ["id", "v", "r", "s"]
        out: dict[str, Any] = {"rows": rows, "files": files, "repeat": repeat, "shapes": {}}
        for name, (predicates, where) in shapes.items():
            expr = None
            for field, op, value in predicates:
                term = {">=": ds.field(field) >= value, "<": ds.field(field) < value}[op]
                expr = term if expr is None else expr & term
            sql = f"SELECT {', '.join(columns)} FROM read_parquet({listing}) WHERE " + where.format(**params)
            ours_s, ours_n = best(repeat, lambda p=predicates: t.to_arrow(columns=columns, filter=p).num_rows)
            meta = t.to_arrow(columns=columns, filter=predicates).schema.metadata
            plain_s, plain_n = best(repeat, lambda p=predicates: plain.to_arrow(columns=columns, filter=p).num_rows)
            pa_s, pa_n = best(repeat, lambda e=expr: dataset.to_table(columns=columns, filter=e).num_rows)
            duck_s, duck_n = best(repeat, lambda q=sql: con.sql(q).to_arrow_table().num_rows)
            if not ours_n == plain_n == pa_n == duck_n:
                print(f"row counts differ on {name}: {ours_n} {plain_n} {pa_n} {duck_n}", file=sys.stderr)
                return 1
            peers = {"lakeshore_without_column_stats": plain_s, "pyarrow_dataset": pa_s, "duckdb": duck_s}
            out["shapes"][name] = report(ours_n, meta, ours_s, peers)
        predicates = shapes["selective_time_ordered"][0]
        mor_s, mor_n = best(repeat, lambda: mor.to_arrow(columns=columns, filter=predicates).num_rows)
        meta = mor.to_arrow(columns=columns, filter=predicates).schema.metadata
        mor_plain_s, mor_plain_n = best(repeat, lambda: mor_plain.to_arrow(columns=columns, filter=predicates).num_rows)
        hudi_filters = [(field, op, str(value)) for field, op, value in predicates]

        def hudi_rs_read() -> int:
            table = hudi.HudiTable(str(root / "mor"))
            options = hudi.HudiReadOptions().with_filters(hudi_filters).with_projection(columns)
            return sum(batch.num_rows for batch in table.read(options))

        hudi_s, hudi_n = best(repeat, hudi_rs_read)
        if not mor_n == mor_plain_n == hudi_n == out["shapes"]["selective_time_ordered"]["rows_matched"]:
            print(f"row counts differ on selective_merge_on_read: {mor_n} {mor_plain_n} {hudi_n}", file=sys.stderr)
            return 1
        peers = {"lakeshore_without_column_stats": mor_plain_s, "hudi_rs": hudi_s}
        out["shapes"]["selective_merge_on_read"] = report(mor_n, meta, mor_s, peers)
        out["shapes"]["selective_merge_on_read"]["log_files"] = sum(1 for f in mor.files() if ".log." in f)
        print(json.dumps(out, indent=2))
        return 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
