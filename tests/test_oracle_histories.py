"""Random histories of inserts, upserts and deletes against a plain-dict oracle; DuckDB and pyarrow
reading the base files of the latest slices must see exactly what to_arrow() returns."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lakeshore

SCHEMA = pa.schema(
    [
        pa.field("key", pa.int64(), nullable=False),
        pa.field("part", pa.string()),
        pa.field("ver", pa.int64()),
        pa.field("val", pa.string()),
    ]
)
COLUMNS = SCHEMA.names
KEYS = st.integers(min_value=0, max_value=40)

# One step: (mode, [(key, ver)]); ver is made unique per history so "larger wins" has no ties.
step = st.one_of(
    st.tuples(st.just("upsert"), st.lists(st.tuples(KEYS, st.integers(0, 10_000)), min_size=1, max_size=12)),
    st.tuples(st.just("insert"), st.lists(KEYS, min_size=1, max_size=12, unique=True)),
    st.tuples(st.just("bulk_insert"), st.lists(KEYS, min_size=1, max_size=12, unique=True)),
    st.tuples(st.just("delete"), st.lists(KEYS, min_size=1, max_size=8, unique=True)),
)

Row = tuple[Any, ...]


def part_of(key: int) -> str:
    return f"p{key % 3}"


def as_rows(table: pa.Table) -> list[Row]:
    return sorted(tuple(r[c] for c in COLUMNS) for r in table.select(COLUMNS).to_pylist())


def apply(t: lakeshore.Table, oracle: dict[int, Row], mode: str, items: list[Any], counter: list[int]) -> None:
    """Runs one step against the table and the oracle."""
    if mode == "delete":
        t.delete(items)
        for k in items:
            oracle.pop(k, None)
        return
    if mode == "upsert":
        batch = []
        for k, v in items:
            counter[0] += 1
            batch.append((k, part_of(k), v * 1000 + counter[0], f"u{counter[0]}"))
    else:
        items = [k for k in items if k not in oracle]  # insert semantics are for new keys only
        if not items:
            return
        batch = []
        for k in items:
            counter[0] += 1
            batch.append((k, part_of(k), counter[0], f"i{counter[0]}"))
    t.write(pa.Table.from_pylist([dict(zip(COLUMNS, r, strict=False)) for r in batch], schema=SCHEMA), mode)
    for row in batch:
        old = oracle.get(row[0])
        if old is None or mode != "upsert" or row[2] > old[2]:
            oracle[row[0]] = row


def external_reads(t: lakeshore.Table, root: Path) -> tuple[list[Row], list[Row]]:
    """The rows DuckDB and pyarrow see in the base files of the latest slices."""
    paths = [str(root / f) for f in t.files()]
    if not paths:
        return [], []
    con = duckdb.connect()
    try:
        duck = con.execute(f"SELECT {', '.join(COLUMNS)} FROM read_parquet(?)", [paths]).fetchall()
    finally:
        con.close()
    arrow = pa.concat_tables([pq.read_table(p, columns=COLUMNS) for p in paths])
    return sorted(tuple(r) for r in duck), as_rows(arrow)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(history=st.lists(step, min_size=1, max_size=6))
def test_random_histories_match_the_oracle_and_external_readers(history: list[tuple[str, list[Any]]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "t"
        t = lakeshore.Table.create(str(root), SCHEMA, record_key="key", partition_by="part", ordering_field="ver")
        oracle: dict[int, Row] = {}
        snapshots: list[tuple[str, list[Row]]] = []
        counter = [0]
        for mode, items in history:
            apply(t, oracle, mode, items, counter)
            timeline = t.timeline()
            if timeline:
                snapshots.append((timeline[-1]["time"], sorted(oracle.values())))
        expected = sorted(oracle.values())
        assert as_rows(t.to_arrow()) == expected
        duck, arrow = external_reads(t, root)
        assert duck == expected
        assert arrow == expected
        for instant, rows in snapshots:
            assert as_rows(t.to_arrow(as_of=instant)) == rows, instant
        reopened = lakeshore.Table.open(str(root))
        assert as_rows(reopened.to_arrow()) == expected


# Composite keys and no ordering field: the latest write wins, and inside one batch the last row.
COMPOSITE = pa.schema(
    [
        pa.field("region", pa.string(), nullable=False),
        pa.field("n", pa.int32(), nullable=False),
        pa.field("val", pa.int64()),
    ]
)
CKEYS = st.tuples(st.sampled_from(["eu", "us", "ap"]), st.integers(0, 6))
composite_step = st.one_of(
    st.tuples(st.just("upsert"), st.lists(CKEYS, min_size=1, max_size=10)),
    st.tuples(st.just("delete"), st.lists(CKEYS, min_size=1, max_size=6, unique=True)),
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(history=st.lists(composite_step, min_size=1, max_size=5))
def test_composite_keys_latest_write_wins(history: list[tuple[str, list[tuple[str, int]]]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "t"
        t = lakeshore.Table.create(str(root), COMPOSITE, record_key=["region", "n"], partition_by="region")
        oracle: dict[tuple[str, int], int] = {}
        counter = 0
        for mode, keys in history:
            if mode == "delete":
                t.delete(keys)
                for k in keys:
                    oracle.pop(k, None)
                continue
            batch = []
            for region, n in keys:
                counter += 1
                batch.append({"region": region, "n": n, "val": counter})
                oracle[(region, n)] = counter  # later rows of the batch overwrite earlier ones
            t.upsert(pa.Table.from_pylist(batch, schema=COMPOSITE))
        got = {(r["region"], r["n"]): r["val"] for r in t.to_arrow(columns=COMPOSITE.names).to_pylist()}
        assert got == oracle
        paths = [str(root / f) for f in t.files()]
        if paths:
            duck = duckdb.connect().execute("SELECT region, n, val FROM read_parquet(?)", [paths]).fetchall()
            assert {(r, n): v for r, n, v in duck} == oracle
            assert len(duck) == len(oracle)
