"""Reads filtered on data columns: the rows equal a row-by-row oracle through random histories on
both table types, and file groups are skipped by the metadata table's column_stats partition
only when their statistics prove no row matches (Hudi's data skipping)."""

from __future__ import annotations

import datetime as dt
import math
import random
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import lakeshore

SCHEMA = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        pa.field("v", pa.int64()),
        pa.field("s", pa.string()),
        pa.field("f", pa.float64()),
        pa.field("ts", pa.timestamp("us")),
        pa.field("d", pa.decimal128(12, 3)),
        pa.field("p", pa.string()),
    ]
)
EPOCH = dt.datetime(2026, 1, 1)
STATS = {
    "hoodie.metadata.enable": "true",
    "hoodie.metadata.index.column.stats.enable": "true",
    "hoodie.metadata.compact.max.delta.commits": "3",
    "write.small_file_limit_bytes": "0",
}


def _row(key: int, version: int, rng: random.Random) -> dict[str, Any]:
    """A record whose values follow its key (so files written from key ranges have narrow
    bounds), with nulls and a NaN now and then."""
    roll = rng.random()
    return {
        "id": key,
        "v": None if roll < 0.05 else key * 10 + version,
        "s": None if roll > 0.95 else f"s{key:05d}",
        "f": math.nan if 0.5 < roll < 0.53 else key / 4,
        "ts": EPOCH + dt.timedelta(seconds=key),
        "d": Decimal(key) / 8 - 10,
        "p": f"p{key % 2}",
    }


def _ops(rng: random.Random) -> list[tuple[str, str, Any]]:
    """One or two random predicates on data columns (and sometimes the partition field)."""
    out = []
    for _ in range(rng.randint(1, 2)):
        column = rng.choice(["v", "s", "f", "ts", "d", "id", "p"])
        op = rng.choice(["=", "!=", "<", "<=", ">", ">=", "in", "not in"])
        key = rng.randrange(0, 420)
        value: Any = {
            "v": key * 10,
            "s": f"s{key:05d}",
            "f": key / 4,
            "ts": EPOCH + dt.timedelta(seconds=key),
            "d": Decimal(key) / 8 - 10,
            "id": key,
            "p": f"p{key % 2}",
        }[column]
        if op in ("in", "not in"):
            extra = rng.randrange(0, 420)
            other = {
                "v": extra * 10,
                "s": f"s{extra:05d}",
                "f": extra / 4,
                "d": Decimal(extra) / 8 - 10,
                "id": extra,
                "p": f"p{extra % 2}",
            }.get(column, EPOCH + dt.timedelta(seconds=extra))
            value = [value, other] + ([None] if rng.random() < 0.2 else [])
        elif op in ("=", "!=") and rng.random() < 0.1:
            value = None
        out.append((column, op, value))
    return out


def _holds(value: Any, op: str, wanted: Any) -> bool:
    """The filter rules row by row: a null matches only '= None', '!= None' keeps the non-nulls,
    'in [.., None]' keeps nulls too, and a comparison with a value never keeps a null."""
    if isinstance(value, float) and math.isnan(value):
        nan = True
    else:
        nan = False
    if op in ("in", "not in"):
        values = [w for w in wanted if w is not None]
        if value is None:
            return op == "in" and None in wanted
        inside = not nan and value in values
        return inside if op == "in" else not inside
    if wanted is None:
        return (value is None) if op == "=" else (value is not None)
    if value is None:
        return False
    if nan:
        return op == "!="
    return {
        "=": value == wanted,
        "!=": value != wanted,
        "<": value < wanted,
        "<=": value <= wanted,
        ">": value > wanted,
        ">=": value >= wanted,
    }[op]


def _expected(rows: dict[int, dict[str, Any]], predicates: list[tuple[str, str, Any]]) -> list[int]:
    return sorted(k for k, r in rows.items() if all(_holds(r[c], op, w) for c, op, w in predicates))


def _ids(
    t: lakeshore.Table, predicates: list[tuple[str, str, Any]], **read: Any
) -> tuple[list[int], dict[bytes, bytes]]:
    got = t.to_arrow(columns=["id"], filter=predicates, **read)
    return sorted(got.column("id").to_pylist()), dict(got.schema.metadata or {})


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_filtered_reads_equal_the_row_oracle_and_skip_only_files_without_a_match(
    tmp_path: Path, table_type: str
) -> None:
    rng = random.Random(11 if table_type == "cow" else 12)
    t = lakeshore.Table.create(
        str(tmp_path / "t"), SCHEMA, record_key="id", partition_by="p", table_type=table_type, properties=STATS
    )
    rows: dict[int, dict[str, Any]] = {}
    pruned = 0
    history: list[tuple[str, dict[int, dict[str, Any]]]] = []
    for step in range(10):
        if step < 5:  # key ranges, one batch each: narrow bounds per file
            batch = {k: _row(k, step, rng) for k in range(step * 80, step * 80 + 80)}
            written = t.insert(pa.Table.from_pylist(list(batch.values()), schema=SCHEMA))
        elif step % 3 == 2:
            gone = rng.sample(sorted(rows), 15)
            written = t.delete(pa.table({"id": gone, "p": [rows[k]["p"] for k in gone]}))
            batch = {}
            for k in gone:
                del rows[k]
        else:
            keys = rng.sample(sorted(rows), 20)
            batch = {k: _row(k, step, rng) for k in keys}
            written = t.upsert(pa.Table.from_pylist(list(batch.values()), schema=SCHEMA))
        rows.update(batch)
        if table_type == "mor" and step == 7:
            t.compact()
        history.append((written["instant_time"], {k: dict(r) for k, r in rows.items()}))
        for _ in range(12):
            predicates = _ops(rng)
            got, meta = _ids(t, predicates)
            assert got == _expected(rows, predicates), (step, predicates)
            data_filter = any(c != "p" for c, _, _ in predicates)
            if data_filter and meta[b"read.file_groups"] != b"0":
                assert meta[b"read.pruned_by"] == b"column_stats"
                pruned += int(meta[b"read.file_groups_pruned"])
    assert pruned > 50, "column stats pruned no file group"
    # Time travel: the filter applies to the table as it was, pruning by that slice's files.
    for instant, then in history[::3]:
        for _ in range(5):
            predicates = _ops(rng)
            got, _ = _ids(t, predicates, as_of=instant)
            assert got == _expected(then, predicates), (instant, predicates)
    if table_type == "mor":
        # Read-optimized reads see base files only; their filtered rows equal the unfiltered
        # read-optimized rows filtered by the oracle.
        base = t.to_arrow(read_optimized=True).select(SCHEMA.names).cast(SCHEMA)
        base_rows = {r["id"]: r for r in base.to_pylist()}
        for _ in range(10):
            predicates = _ops(rng)
            got, _ = _ids(t, predicates, read_optimized=True)
            assert got == _expected(base_rows, predicates), predicates


def test_a_selective_filter_opens_only_the_matching_file_groups(tmp_path: Path) -> None:
    t = lakeshore.Table.create(str(tmp_path / "t"), SCHEMA, record_key="id", partition_by="p", properties=STATS)
    rng = random.Random(3)
    for b in range(6):
        t.insert(pa.Table.from_pylist([_row(k, 0, rng) for k in range(b * 100, b * 100 + 100)], schema=SCHEMA))
    got, meta = _ids(t, [("v", ">=", 5000), ("v", "<", 5020)])
    assert got == [500, 501]  # one in each partition's group of the sixth insert
    assert meta == {b"read.file_groups": b"12", b"read.file_groups_pruned": b"10", b"read.pruned_by": b"column_stats"}
    got, meta = _ids(t, [("p", "=", "p1"), ("ts", "<", EPOCH + dt.timedelta(seconds=3))])
    assert got == [1]
    assert meta[b"read.file_groups"] == b"6" and meta[b"read.file_groups_pruned"] == b"5"
    # A partition-only filter carries no read metrics, as before.
    assert not (t.to_arrow(columns=["id"], filter=[("p", "=", "p0")]).schema.metadata or {})


def test_without_built_column_stats_the_rows_are_the_same_and_nothing_is_skipped(tmp_path: Path) -> None:
    rng = random.Random(5)
    t = lakeshore.Table.create(str(tmp_path / "t"), SCHEMA, record_key="id", partition_by="p", properties=STATS)
    for b in range(3):
        t.insert(pa.Table.from_pylist([_row(k, 0, rng) for k in range(b * 100, b * 100 + 100)], schema=SCHEMA))
    predicate = [("v", "<", 300)]
    with_stats, meta = _ids(t, predicate)
    assert meta[b"read.pruned_by"] == b"column_stats" and meta[b"read.file_groups_pruned"] == b"4"
    t.drop_index("column_stats")
    without, meta = _ids(t, predicate)
    assert without == with_stats
    assert meta == {b"read.file_groups": b"6", b"read.file_groups_pruned": b"0", b"read.pruned_by": b"none"}
    plain = lakeshore.Table.create(str(tmp_path / "plain"), SCHEMA, record_key="id", partition_by="p")
    plain.insert(t.to_arrow(columns=SCHEMA.names))
    assert _ids(plain, predicate)[0] == with_stats


def test_incremental_reads_take_the_row_filter_too(tmp_path: Path) -> None:
    rng = random.Random(9)
    t = lakeshore.Table.create(str(tmp_path / "t"), SCHEMA, record_key="id", partition_by="p", properties=STATS)
    first = t.insert(pa.Table.from_pylist([_row(k, 0, rng) for k in range(100)], schema=SCHEMA))["instant_time"]
    t.upsert(pa.Table.from_pylist([_row(k, 1, rng) for k in range(40, 60)], schema=SCHEMA))
    got = t.read_incremental(first, filter=[("id", ">=", 50)])
    assert sorted(got.column("id").to_pylist()) == list(range(50, 60))


def _log_files(t: lakeshore.Table) -> int:
    """Log files a snapshot read opens."""
    return sum(1 for f in t.files() if ".log." in f)


@pytest.mark.parametrize("built_after", [False, True])
def test_merge_on_read_slices_with_log_files_are_skipped_by_every_files_stats(
    tmp_path: Path, built_after: bool
) -> None:
    """A slice with log files is skipped only when its base file's and every log file's stats
    rule a match out: an update that moves a value into the filtered range keeps its group. The
    log files' stats come from their writes, or, when the partition is built on an existing
    table, from one read of each log file."""
    properties = dict(STATS)
    if built_after:
        properties["hoodie.metadata.index.column.stats.enable"] = "false"
    rng = random.Random(21)
    t = lakeshore.Table.create(
        str(tmp_path / "t"), SCHEMA, record_key="id", partition_by="p", table_type="mor", properties=properties
    )
    rows: dict[int, dict[str, Any]] = {}
    for b in range(6):
        batch = {k: _row(k, 0, rng) for k in range(b * 100, b * 100 + 100)}
        t.insert(pa.Table.from_pylist(list(batch.values()), schema=SCHEMA))
        rows.update(batch)
    # Updates to every group, inside each group's own key range: log files everywhere.
    for b in range(6):
        batch = {k: _row(k, 1, rng) for k in range(b * 100, b * 100 + 100, 7)}
        t.upsert(pa.Table.from_pylist(list(batch.values()), schema=SCHEMA))
        rows.update(batch)
    # One update moves a value of the first group far out of its base file's range.
    moved = dict(rows[3], v=10_000_000)
    t.upsert(pa.Table.from_pylist([moved], schema=SCHEMA))
    rows[3] = moved
    if built_after:
        t.create_index("column_stats")
    assert _log_files(t) >= 12
    for predicates in ([("v", ">=", 5000), ("v", "<", 5020)], [("v", "=", 10_000_000)], [("s", "=", "s00250")]):
        got, meta = _ids(t, predicates)
        assert got == _expected(rows, predicates), predicates
        assert meta[b"read.pruned_by"] == b"column_stats"
        assert meta[b"read.file_groups"] == b"12"
    _, meta = _ids(t, [("v", ">=", 5000), ("v", "<", 5020)])
    assert meta[b"read.file_groups_pruned"] == b"10"  # every group has logs: pruned by all its files
    got, meta = _ids(t, [("v", "=", 10_000_000)])
    assert got == [3]
    assert meta[b"read.file_groups_pruned"] == b"11"  # the moved value's log keeps its group
    # Read-optimized reads look at the base files only.
    got, meta = _ids(t, [("v", "=", 10_000_000)], read_optimized=True)
    assert got == [] and meta[b"read.file_groups_pruned"] == b"12"
    # A delete-only log file has no stats, so its group is read; the deleted row is gone.
    t.delete(pa.table({"id": [3], "p": ["p1"]}))
    got, meta = _ids(t, [("v", "=", 10_000_000)])
    assert got == [] and meta[b"read.file_groups_pruned"] == b"11"


GROUPED = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.int64()), pa.field("g", pa.string())])


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_partition_stats_skip_whole_partitions_and_follow_every_write(tmp_path: Path, table_type: str) -> None:
    """partition_stats (one entry per partition and column, over its latest slices' files) is
    recomputed for every partition a write touches: through inserts, updates that move values
    far out of a partition's range, deletes and compactions, filtered reads of the latest
    snapshot skip whole partitions and equal a row oracle; time travel never uses it."""
    rng = random.Random(31 if table_type == "cow" else 32)
    properties = {"hoodie.metadata.index.partition.stats.enable": "true", "write.small_file_limit_bytes": "0"}
    t = lakeshore.Table.create(
        str(tmp_path / "t"), GROUPED, record_key="id", partition_by="g", table_type=table_type, properties=properties
    )
    rows: dict[int, dict[str, Any]] = {}
    history: list[tuple[str, dict[int, dict[str, Any]]]] = []
    partitions_pruned = 0
    for step in range(12):
        if step < 5:
            batch = {k: {"id": k, "v": k * 10, "g": f"g{k // 100}"} for k in range(step * 100, step * 100 + 100)}
            written = t.insert(pa.Table.from_pylist(list(batch.values()), schema=GROUPED))
        elif step % 4 == 3:
            gone = rng.sample(sorted(rows), 10)
            written = t.delete(pa.table({"id": gone, "g": [rows[k]["g"] for k in gone]}))
            batch = {}
            for k in gone:
                del rows[k]
        else:
            keys = rng.sample(sorted(rows), 15)
            batch = {
                k: {"id": k, "v": (50_000 + k if rng.random() < 0.3 else k * 10 + step), "g": rows[k]["g"]}
                for k in keys
            }
            written = t.upsert(pa.Table.from_pylist(list(batch.values()), schema=GROUPED))
        rows.update(batch)
        if step == 0:  # the first write builds both, partition_stats from column_stats
            assert {"column_stats", "partition_stats"} <= set(t.indexes()["partitions"])
        if table_type == "mor" and step == 9:
            t.compact()
        history.append((written["instant_time"], {k: dict(r) for k, r in rows.items()}))
        for _ in range(10):
            low = rng.choice([rng.randrange(0, 5000), rng.randrange(50_000, 50_500)])
            predicates = [("v", ">=", low), ("v", "<", low + rng.choice([5, 50, 500]))]
            got, meta = _ids(t, predicates)
            assert got == _expected(rows, predicates), (step, predicates)
            assert b"partition_stats" in meta[b"read.pruned_by"], meta
            partitions_pruned += int(meta[b"read.partitions_pruned"])
    assert partitions_pruned > 50, "partition_stats pruned no partition"
    for instant, then in history[::3]:
        predicates = [("v", ">=", 1000), ("v", "<", 1500)]
        got, meta = _ids(t, predicates, as_of=instant)
        assert got == _expected(then, predicates), instant
        assert b"partition_stats" not in meta[b"read.pruned_by"]


def test_partition_stats_are_built_with_column_stats_and_dropped_with_them(tmp_path: Path) -> None:
    t = lakeshore.Table.create(str(tmp_path / "t"), GROUPED, record_key="id", partition_by="g")
    for b in range(4):
        t.insert(
            pa.Table.from_pylist([{"id": k, "v": k, "g": f"g{b}"} for k in range(b * 10, b * 10 + 10)], schema=GROUPED)
        )
    built = t.create_index("partition_stats")["partitions"]
    assert {"column_stats", "partition_stats"} <= set(built)
    got, meta = _ids(t, [("v", "=", 25)])
    assert got == [25]
    assert meta[b"read.partitions_pruned"] == b"3" and meta[b"read.file_groups_pruned"] == b"3"
    t.upsert(pa.Table.from_pylist([{"id": 5, "v": 9999, "g": "g0"}], schema=GROUPED))
    got, meta = _ids(t, [("v", "=", 9999)])
    assert got == [5] and meta[b"read.partitions_pruned"] == b"3"
    after = t.drop_index("column_stats")["partitions"]
    assert "column_stats" not in after and "partition_stats" not in after
    got, meta = _ids(t, [("v", "=", 9999)])
    assert got == [5] and meta[b"read.pruned_by"] == b"none"


@pytest.mark.parametrize("float_type", [pa.float64(), pa.float32()], ids=["double", "float"])
def test_in_and_not_in_over_floats_agree_with_equal_and_not_equal(tmp_path: Path, float_type: pa.DataType) -> None:
    """Found by outside testing: `in` compared bits (Arrow's set lookup) where `=` compares as
    IEEE does, so `in [0.0]` missed -0.0 and `in [nan]` matched the NaN `= nan` does not."""
    values = [0.0, -0.0, math.nan, 1.0, None, -1.5]
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("f", float_type)])
    t = lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id", properties=STATS)
    t.insert(pa.table({"id": list(range(len(values))), "f": pa.array(values, float_type)}, schema=schema))
    for wanted in (0.0, -0.0, math.nan, 1.0):
        for set_op, op in (("in", "="), ("not in", "!=")):
            by_set = _ids(t, [("f", set_op, [wanted])])[0]
            by_op = _ids(t, [("f", op, wanted)])[0]
            assert by_set == by_op, (set_op, wanted)
            assert by_op == [i for i, v in enumerate(values) if v is not None and _holds(v, op, wanted)], (op, wanted)
    assert _ids(t, [("f", "in", [0.0, math.nan, None])])[0] == [0, 1, 4]
    assert _ids(t, [("f", "not in", [-0.0, math.nan])])[0] == [2, 3, 5]


def test_an_empty_column_list_reads_the_rows_and_no_column(tmp_path: Path) -> None:
    # columns=[] read every column, as columns=None does; pyarrow's readers answer it with the
    # row count and no column.
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
    t = lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id")
    first = t.upsert(pa.table({"id": pa.array([1, 2], pa.int64()), "v": ["a", "b"]}))
    t.upsert(pa.table({"id": pa.array([3], pa.int64()), "v": ["c"]}))
    for read in (
        t.to_arrow(columns=[]),
        t.to_arrow(columns=[], filter=[("v", "!=", "a")]),
        t.read_incremental("000", columns=[]),
        t.read_incremental(first["instant_time"], columns=[]),
    ):
        assert read.num_columns == 0
    assert [r.num_rows for r in (t.to_arrow(columns=[]), t.to_arrow(columns=[], filter=[("v", "!=", "a")]))] == [3, 2]
    assert t.read_incremental("000", columns=[]).num_rows == 3
    assert t.read_incremental(first["instant_time"], columns=[]).num_rows == 1
