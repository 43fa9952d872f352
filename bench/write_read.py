"""Benchmark: Lakeshore bulk_insert and snapshot read against pyarrow's Parquet write and read.

pyarrow writing the same rows to one Parquet file and reading them back is the floor: Lakeshore
writes Parquet through the same library and adds Hudi's five meta columns, the Hudi footer (key
range, bloom filter, Avro schema), file sizing and a commit, so its speed is reported as a ratio
to that floor (targets: write >= 0.7x, read >= 0.8x). The five meta columns double the bytes a
file holds (the unique `_hoodie_commit_seqno` strings alone are larger than the user columns), so
a second floor is pyarrow writing exactly the columns of Lakeshore's base file
(`ratio_to_pyarrow_writing_the_same_columns`, above 1: Lakeshore is faster). The read ratio compares reads of the same
(user) columns; a read with the meta columns is reported beside it. The write is measured with
Hudi's default footer bloom filter (30 chained MurmurHash calls per key, most of the write's
CPU) and without it (`hoodie.parquet.bloom.filter.enabled=false`).

The peer: hudi-rs (PyPI `hudi`, the reference Hudi reader) reads the same table Lakeshore wrote,
all columns, in the same run; `ratio_to_hudi_rs.read` is hudi-rs's time over Lakeshore's full
read (above 1: Lakeshore is faster).

    LAKESHORE_BENCH_ROWS=200000 python bench/write_read.py      # quick
    LAKESHORE_BENCH_ROWS=5000000 python bench/write_read.py     # full

Prints one JSON document. Each measurement is the best of LAKESHORE_BENCH_REPEAT runs (default 5),
since the machines are noisy; both sides run in the same process on the same data.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

import lakeshore

TARGETS = {"write": 0.7, "write_without_bloom_filter": 0.7, "read": 0.8}


def make_data(rows: int) -> pa.Table:
    """Deterministic rows: a unique key, a low-cardinality string, a float, a timestamp and a
    short text column."""
    ids = pa.array(range(rows), pa.int64())
    city = pc.choose(
        pc.cast(pc.bit_wise_and(ids, 7), pa.int8()),
        *[pa.scalar(c) for c in ("lisbon", "oslo", "quito", "lima", "pune", "kyiv", "accra", "hanoi")],
    )
    fare = pc.divide(pc.cast(pc.multiply(pc.bit_wise_and(ids, 1023), 37), pa.float64()), 10.0)
    ts = pc.cast(pc.add(pc.multiply(ids, 1000), 1_767_225_600_000), pa.timestamp("ms"))
    note = pc.binary_join_element_wise("rider-", pc.cast(ids, pa.string()), "")
    return pa.table({"id": ids, "city": city, "fare": fare, "ts": ts, "note": note})


def best_of(repeat: int, fn: Callable[[Path], Any]) -> tuple[float, Any]:
    """Runs ``fn`` in a fresh folder ``repeat`` times; returns the fastest time and its result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        folder = Path(tempfile.mkdtemp(prefix="lakeshore-bench-"))
        try:
            start = time.perf_counter()
            out = fn(folder)
            elapsed = time.perf_counter() - start
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        if elapsed < best:
            best, result = elapsed, out
    return best, result


def timed_read(folder: Path, write: Callable[[Path], Any], read: Callable[[Path], pa.Table]) -> tuple[float, int]:
    """Writes (untimed) then times one read; returns (seconds, rows read)."""
    write(folder)
    start = time.perf_counter()
    rows = read(folder).num_rows
    return time.perf_counter() - start, rows


def main() -> int:
    """Runs the benchmark and prints its JSON report."""
    rows = int(os.environ.get("LAKESHORE_BENCH_ROWS", "1000000"))
    repeat = int(os.environ.get("LAKESHORE_BENCH_REPEAT", "5"))
    data = make_data(rows)

    def pa_write(folder: Path) -> None:
        pq.write_table(data, folder / "data.parquet")

    def pa_read(folder: Path) -> pa.Table:
        return pq.read_table(folder / "data.parquet")

    def ls_write(folder: Path) -> dict[str, Any]:
        table = lakeshore.Table.create(str(folder / "t"), data.schema, record_key="id")
        return table.bulk_insert(data)

    def ls_write_no_bloom(folder: Path) -> dict[str, Any]:
        props = {"hoodie.parquet.bloom.filter.enabled": "false"}
        table = lakeshore.Table.create(str(folder / "t"), data.schema, record_key="id", properties=props)
        return table.bulk_insert(data)

    def ls_read(folder: Path) -> pa.Table:
        # The same columns pyarrow reads; the meta columns are measured apart below.
        return lakeshore.Table.open(str(folder / "t")).to_arrow(columns=data.schema.names)

    def ls_read_with_meta(folder: Path) -> pa.Table:
        return lakeshore.Table.open(str(folder / "t")).to_arrow()

    def hudi_rs_read(folder: Path) -> pa.Table:
        import hudi

        return pa.Table.from_batches(hudi.HudiTable(str(folder / "t")).read())

    pa_write_s, _ = best_of(repeat, pa_write)
    # The second floor: pyarrow writing the very columns Lakeshore's base file holds (the five
    # meta columns too), read back from a file Lakeshore wrote. What it does not do is Hudi's
    # footer (key range, bloom filter) and the commit.
    same_folder = Path(tempfile.mkdtemp(prefix="lakeshore-bench-"))
    try:
        ls_write_no_bloom(same_folder)
        base_files = sorted((same_folder / "t").rglob("*.parquet"))
        same_columns = pa.concat_tables(pq.read_table(f) for f in base_files)
    finally:
        shutil.rmtree(same_folder, ignore_errors=True)
    pa_same_write_s, _ = best_of(repeat, lambda folder: pq.write_table(same_columns, folder / "same.parquet"))
    ls_write_s, write_result = best_of(repeat, ls_write)
    ls_write_no_bloom_s, _ = best_of(repeat, ls_write_no_bloom)
    readers = {
        "pyarrow": (pa_write, pa_read),
        "lakeshore": (ls_write, ls_read),
        "lakeshore_with_meta": (ls_write, ls_read_with_meta),
        "hudi_rs": (ls_write, hudi_rs_read),
    }
    read_runs: dict[str, list[tuple[float, int]]] = {name: [] for name in readers}
    for _ in range(repeat):
        for name, (w, r) in readers.items():
            folder = Path(tempfile.mkdtemp(prefix="lakeshore-bench-"))
            try:
                read_runs[name].append(timed_read(folder, w, r))
            finally:
                shutil.rmtree(folder, ignore_errors=True)
    pa_read_s, pa_rows = min(read_runs["pyarrow"])
    ls_read_s, ls_rows = min(read_runs["lakeshore"])
    ls_meta_read_s, _ = min(read_runs["lakeshore_with_meta"])
    hudi_read_s, hudi_rows = min(read_runs["hudi_rs"])
    if ls_rows != rows or pa_rows != rows or hudi_rows != rows:
        print(
            json.dumps(
                {"error": f"read back {ls_rows} (lakeshore) / {pa_rows} (pyarrow) / {hudi_rows} (hudi-rs) of {rows}"}
            )
        )
        return 1

    ratios = {
        "write": pa_write_s / ls_write_s,
        "write_without_bloom_filter": pa_write_s / ls_write_no_bloom_s,
        "read": pa_read_s / ls_read_s,
    }
    same_column_ratios = {
        "write": pa_same_write_s / ls_write_s,
        "write_without_bloom_filter": pa_same_write_s / ls_write_no_bloom_s,
    }
    report = {
        "benchmark": "write_read",
        "rows": rows,
        "repeat": repeat,
        "input_bytes": data.nbytes,
        "lakeshore": {
            "bulk_insert_s": round(ls_write_s, 4),
            "bulk_insert_rows_per_s": round(rows / ls_write_s),
            "bulk_insert_without_bloom_filter_s": round(ls_write_no_bloom_s, 4),
            "read_s": round(ls_read_s, 4),
            "read_rows_per_s": round(rows / ls_read_s),
            "read_with_meta_columns_s": round(ls_meta_read_s, 4),
            "files_written": write_result["files_written"],
            "bytes_written": write_result["bytes_written"],
        },
        "pyarrow_parquet": {
            "write_s": round(pa_write_s, 4),
            "write_rows_per_s": round(rows / pa_write_s),
            "read_s": round(pa_read_s, 4),
            "read_rows_per_s": round(rows / pa_read_s),
            "write_same_columns_s": round(pa_same_write_s, 4),
            "same_columns_bytes": same_columns.nbytes,
        },
        "hudi_rs": {"read_s": round(hudi_read_s, 4), "read_rows_per_s": round(rows / hudi_read_s)},
        "ratio_to_pyarrow": {k: round(v, 3) for k, v in ratios.items()},
        "ratio_to_pyarrow_writing_the_same_columns": {k: round(v, 3) for k, v in same_column_ratios.items()},
        "ratio_to_hudi_rs": {"read": round(hudi_read_s / ls_meta_read_s, 3)},
        "ratio_to_pyarrow_of_full_read": round(pa_read_s / ls_meta_read_s, 3),
        "targets": TARGETS,
        "meets_targets": {k: ratios[k] >= TARGETS[k] for k in TARGETS},
        "cpu_count": os.cpu_count(),
        "python": sys.version.split()[0],
        "pyarrow": pa.__version__,
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
