"""lakeshore.Table end to end: create, open, every write mode, every read."""

from __future__ import annotations

import datetime as dt
import os
import threading
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import lakeshore

META = [
    "_hoodie_commit_time",
    "_hoodie_commit_seqno",
    "_hoodie_record_key",
    "_hoodie_partition_path",
    "_hoodie_file_name",
]
SCHEMA = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        pa.field("city", pa.string()),
        pa.field("ver", pa.int64()),
        pa.field("note", pa.string()),
    ]
)


def rows(*items: tuple[int, str, int, str]) -> pa.Table:
    return pa.Table.from_pylist([dict(zip(SCHEMA.names, i, strict=False)) for i in items], schema=SCHEMA)


def state(t: lakeshore.Table, **read: Any) -> dict[int, tuple[Any, ...]]:
    data = t.to_arrow(**read)
    return {r["id"]: (r["city"], r["ver"], r["note"]) for r in data.select(SCHEMA.names).to_pylist()}


@pytest.fixture()
def table(table_path: str) -> lakeshore.Table:
    return lakeshore.Table.create(table_path, SCHEMA, record_key="id", partition_by="city", ordering_field="ver")


def test_create_and_open_keep_the_config(table_path: str) -> None:
    t = lakeshore.Table.create(table_path, SCHEMA, record_key=["id"], partition_by=["city"], ordering_field="ver")
    again = lakeshore.Table.open(table_path)
    for x in (t, again):
        assert x.schema == SCHEMA
        assert x.record_key == ["id"]
        assert x.partition_by == ["city"]
        assert x.config["ordering_field"] == "ver"
        assert x.config["table_type"] == "cow"
        assert x.config["name"] == "table"
        assert x.full_schema.names == META + SCHEMA.names
    props = Path(table_path, ".hoodie", "hoodie.properties").read_text()
    assert "hoodie.table.version=9" in props and "hoodie.table.recordkey.fields=id" in props


def test_create_refuses_an_existing_table(table: lakeshore.Table, table_path: str) -> None:
    with pytest.raises(lakeshore.LakeshoreError, match="already"):
        lakeshore.Table.create(table_path, SCHEMA, record_key="id")


def test_file_uri_and_plain_path_are_the_same_table(
    table: lakeshore.Table, table_path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table.insert(rows((1, "oslo", 1, "a")))
    # "file:/x" (as Hadoop and Spark print paths) and "file://localhost/x" were read as folders
    # under the current directory.
    monkeypatch.chdir(tmp_path)
    for uri in ("file://", "file:", "file://localhost"):
        assert state(lakeshore.Table.open(uri + table_path)) == {1: ("oslo", 1, "a")}, uri
        assert lakeshore.vacuum(uri + table_path, dry_run=True)["candidates"] == [], uri
    for uri, problem in (("file://otherhost" + table_path, "names the host 'otherhost'"), ("file:t", "absolute")):
        with pytest.raises(lakeshore.InvalidArgumentError, match=problem):
            lakeshore.Table.open(uri)
    # A table made from a URI reopens by its uri: "u%2541" was decoded to "u%41", kept as a URI,
    # and decoded again to "uA", another table.
    for name, marker in (("u%41", 1), ("uA", 2), ("a b", 3)):
        made = lakeshore.Table.create((tmp_path / name).as_uri(), SCHEMA, record_key="id")
        made.insert(rows((marker, "oslo", 1, name)))
        assert made.uri == str(tmp_path / name)
        assert state(lakeshore.Table.open(made.uri)) == {marker: ("oslo", 1, name)}, name


def test_write_modes_and_results(table: lakeshore.Table) -> None:
    r = table.bulk_insert(rows((1, "oslo", 1, "a"), (2, "lima", 1, "b"), (3, "oslo", 1, "c")))
    assert set(r) == {
        "instant_time",
        "operation",
        "records_in",
        "records_inserted",
        "records_updated",
        "records_deleted",
        "files_written",
        "bytes_written",
        "file_groups_touched",
        "file_groups_replaced",
        "rolled_back_instants",
        "compaction_instant",
        "active_write_instants",
        "archived_instants",
        "duration_ms",
    }
    assert r["operation"] == "bulk_insert" and r["compaction_instant"] is None
    assert (r["records_in"], r["records_inserted"], r["records_updated"]) == (3, 3, 0)
    assert r["files_written"] >= 2 and r["bytes_written"] > 0  # two partitions
    r = table.upsert(rows((2, "lima", 2, "b2"), (4, "quito", 1, "d")))
    assert (r["records_inserted"], r["records_updated"]) == (1, 1)
    r = table.insert(rows((5, "quito", 1, "e")))
    assert r["records_inserted"] == 1
    r = table.delete([1, 99])
    assert r["records_deleted"] == 1
    assert state(table) == {2: ("lima", 2, "b2"), 3: ("oslo", 1, "c"), 4: ("quito", 1, "d"), 5: ("quito", 1, "e")}


def test_ordering_field_picks_the_winner(table: lakeshore.Table) -> None:
    table.insert(rows((1, "oslo", 5, "stored")))
    table.upsert(rows((1, "oslo", 3, "older loses")))
    assert state(table)[1] == ("oslo", 5, "stored")
    table.upsert(rows((1, "oslo", 7, "newer"), (1, "oslo", 9, "newest in batch"), (1, "oslo", 8, "middle")))
    assert state(table)[1] == ("oslo", 9, "newest in batch")


def test_delete_accepts_arrow_keys_and_composite_keys(table_path: str) -> None:
    schema = pa.schema([("a", pa.string()), ("b", pa.int32()), ("v", pa.int64())])
    t = lakeshore.Table.create(table_path, schema, record_key=["a", "b"])
    t.insert(pa.table({"a": ["x", "x", "y"], "b": pa.array([1, 2, 1], pa.int32()), "v": [1, 2, 3]}))
    t.delete([("x", 1)])
    t.delete([{"a": "y", "b": 1}])
    assert t.to_arrow(columns=["a", "b", "v"]).to_pylist() == [{"a": "x", "b": 2, "v": 2}]
    t.delete(pa.table({"a": ["x"], "b": pa.array([2], pa.int32())}))
    assert t.to_arrow().num_rows == 0


def test_a_key_value_the_key_field_cannot_hold_exactly_is_refused(table_path: str) -> None:
    # pyarrow typed the key 1.5 as the integer 1: delete([1.5]) deleted record 1, and
    # lookup([1.5]) found it. Such a key, and one the type cannot hold at all, is a TypeError
    # naming the field; nothing is deleted.
    schema = pa.schema([("id", pa.int64()), ("v", pa.string())])
    t = lakeshore.Table.create(table_path, schema, record_key="id")
    t.insert(pa.table({"id": [1, 2], "v": ["a", "b"]}, schema=schema))
    for keys in ([1.5], [Decimal("2.5")], [2**63], ["x"], [True]):
        with pytest.raises(TypeError, match="record key field 'id' \\(int64\\)"):
            t.delete(keys)
        with pytest.raises(TypeError, match="record key field 'id' \\(int64\\)"):
            t.lookup(keys)
    assert t.to_arrow(columns=["id"]).sort_by("id").to_pylist() == [{"id": 1}, {"id": 2}]
    assert t.lookup([2.0]).column("record_key").to_pylist() == ["2"]
    t.delete([1.0])
    assert t.to_arrow(columns=["id"]).to_pylist() == [{"id": 2}]


def test_projection_filter_time_travel_incremental(table: lakeshore.Table) -> None:
    r1 = table.insert(rows((1, "oslo", 1, "a"), (2, "lima", 1, "b"), (3, "quito", 1, "c")))
    r2 = table.upsert(rows((1, "oslo", 2, "a2"), (4, "lima", 1, "d")))
    table.delete([3])

    cols = table.to_arrow(columns=["note", "id"])
    assert cols.column_names == ["note", "id"]
    assert state(table, filter=[("city", "=", "oslo")]) == {1: ("oslo", 2, "a2")}
    assert set(state(table, filter=[("city", "in", ["oslo", "quito"])])) == {1}
    assert set(state(table, filter=[("city", "!=", "oslo")])) == {2, 4}
    assert set(state(table, filter=[[("city", "not in", ["oslo"]), ("city", ">=", "lima")]])) == {2, 4}
    with pytest.raises(ValueError, match="conjunction"):
        table.to_arrow(filter=[[("city", "=", "a")], [("city", "=", "b")]])

    assert state(table, as_of=r1["instant_time"]) == {1: ("oslo", 1, "a"), 2: ("lima", 1, "b"), 3: ("quito", 1, "c")}
    assert state(table, as_of=int(r2["instant_time"]))[1] == ("oslo", 2, "a2")
    changed = table.read_incremental(r1["instant_time"])
    assert sorted(changed.column("id").to_pylist()) == [1, 4]
    assert table.read_incremental(r1["instant_time"], r1["instant_time"]).num_rows == 0
    # Hudi's "from the beginning" start (its initial instant, 0s of any length: "000" in its docs).
    everything = sorted(table.to_arrow().column("id").to_pylist())
    for start in ("0", "000", "00000000000000", "00000000000000000"):
        assert sorted(table.read_incremental(start).column("id").to_pylist()) == everything, start
    with pytest.raises(lakeshore.InvalidArgumentError, match="the incremental start '2024' is not an instant time"):
        table.read_incremental("2024")
    with pytest.raises(lakeshore.InvalidArgumentError, match="the incremental end 'x' is not an instant time"):
        table.read_incremental(r1["instant_time"], "x")


def test_timeline_and_files(table: lakeshore.Table, table_path: str) -> None:
    r1 = table.insert(rows((1, "oslo", 1, "a")))
    table.insert(rows((2, "lima", 1, "b")))
    tl = table.timeline()
    assert r1["instant_time"] in [i["time"] for i in tl]
    for i in tl:
        assert {"time", "action", "state"} <= set(i)
        assert i["state"] == "completed"
        assert i["action"] == "commit"
    assert [i["time"] for i in tl] == sorted(i["time"] for i in tl)
    files = table.files()
    assert len(files) == 2 and all(Path(f).is_absolute() and Path(f).is_file() for f in files)
    assert all(f.endswith(".parquet") for f in files)
    assert len(table.files(as_of=r1["instant_time"])) == 1
    # Other tools open them as they are.
    import duckdb

    assert duckdb.sql(f"select count(*) from read_parquet({files!r})").fetchall() == [(2,)]


def test_time_travel_by_datetime(table: lakeshore.Table) -> None:
    table.insert(rows((1, "oslo", 1, "a")))
    later = dt.datetime.now(dt.timezone.utc) + dt.timedelta(minutes=1)
    assert set(state(table, as_of=later)) == {1}


def test_inputs_reader_batch_generator_and_foreign_stream(table: lakeshore.Table) -> None:
    data = rows((1, "oslo", 1, "a"), (2, "lima", 1, "b"))
    table.insert(data.to_batches()[0])
    table.upsert(pa.RecordBatchReader.from_batches(SCHEMA, data.to_batches(max_chunksize=1)))

    def gen() -> Iterator[pa.RecordBatch]:
        for i in range(10, 20):
            yield rows((i, "quito", 1, str(i))).to_batches()[0]

    table.upsert(pa.RecordBatchReader.from_batches(SCHEMA, gen()))

    class Foreign:
        def __arrow_c_stream__(self, requested_schema: object = None) -> object:
            return rows((30, "oslo", 1, "foreign")).__arrow_c_stream__()

    table.upsert(Foreign())
    assert set(state(table)) == {1, 2, 30, *range(10, 20)}
    with pytest.raises(TypeError, match="Arrow data"):
        table.upsert([{"id": 1}])


def test_progress_callback_sees_the_phases(table: lakeshore.Table) -> None:
    seen: list[tuple[str, int, int, str]] = []
    table.upsert(rows((1, "oslo", 1, "a"), (2, "lima", 1, "b")), progress=lambda *a: seen.append(a))
    phases = [s[0] for s in seen]
    assert "writing" in phases and "committing" in phases
    assert all(0 <= done <= total for _, done, total, _ in seen)


def _raising_at(phase: str, done: int, exc: type[BaseException]) -> Any:
    def progress(p: str, d: int, total: int, unit: str) -> None:
        if p == phase and d == done:
            raise exc("stop here")

    return progress


@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
@pytest.mark.parametrize("phase", ["tagging", "writing", "committing"])
def test_an_exception_in_the_progress_callback_stops_the_write_before_its_commit(
    table: lakeshore.Table, phase: str, exc: type[BaseException]
) -> None:
    # Ctrl-C reaches a write inside its progress callback. The write used to run on to its
    # commit and raise only then: the caller believed nothing was written, and retrying an
    # insert stored its rows twice. Raised before the commit point, it now stops the write.
    table.insert(rows((1, "oslo", 1, "a")))
    completed = [i for i in table.timeline() if i["state"] == "completed"]
    with pytest.raises(exc, match="stop here") as raised:
        table.upsert(rows((2, "oslo", 1, "b")), progress=_raising_at(phase, 0, exc))
    assert any("nothing of it is visible" in n for n in raised.value.__notes__)
    assert state(table) == {1: ("oslo", 1, "a")}
    assert [i for i in table.timeline() if i["state"] == "completed" and i["action"] == "commit"] == [
        i for i in completed if i["action"] == "commit"
    ]
    table.upsert(rows((2, "oslo", 1, "b")))  # the retry stores it once
    assert state(table) == {1: ("oslo", 1, "a"), 2: ("oslo", 1, "b")}
    assert lakeshore.Table.open(table.uri).to_arrow().num_rows == 2


def test_an_exception_in_the_progress_callback_after_the_commit_says_the_write_completed(
    table: lakeshore.Table,
) -> None:
    with pytest.raises(RuntimeError, match="stop here") as raised:
        table.insert(rows((1, "oslo", 1, "a")), progress=_raising_at("committing", 1, RuntimeError))
    assert any("it completed" in n for n in raised.value.__notes__)
    assert state(table) == {1: ("oslo", 1, "a")}


def test_an_exception_in_the_progress_callback_stops_a_compaction_and_a_vacuum(table_path: str) -> None:
    t = lakeshore.Table.create(table_path, SCHEMA, record_key="id", ordering_field="ver", table_type="mor")
    t.insert(rows((1, "oslo", 1, "a"), (2, "lima", 1, "b")))
    t.upsert(rows((1, "oslo", 2, "c")))
    with pytest.raises(KeyboardInterrupt) as raised:
        t.compact(progress=_raising_at("compacting", 0, KeyboardInterrupt))
    assert any("nothing of it is visible" in n for n in raised.value.__notes__)
    assert not [i for i in t.timeline() if i["action"] == "commit" and i["state"] == "completed"]
    assert t.compact()["completed"]  # the next one resumes it
    assert state(t) == {1: ("oslo", 2, "c"), 2: ("lima", 1, "b")}
    # A vacuum stopped in its deletes has deleted whole batches at most; the next finds the rest.
    strays = [Path(table_path) / f"stray-{k}.parquet" for k in range(5)]
    for f in strays:
        f.write_bytes(b"x")
        os.utime(f, (time.time() - 3600, time.time() - 3600))

    def interrupted(phase: str, done: int, total: int, unit: str) -> None:
        if phase == "deleting":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as raised:
        lakeshore.vacuum(table_path, retain_hours=0, enforce_retention=False, progress=interrupted)
    assert any("the vacuum" in n for n in raised.value.__notes__)
    lakeshore.vacuum(table_path, retain_hours=0, enforce_retention=False)
    assert not [f for f in strays if f.exists()]
    assert state(t) == {1: ("oslo", 2, "c"), 2: ("lima", 1, "b")}


def test_blob_column_roundtrip(table_path: str, tmp_path: Path) -> None:
    blob_file = tmp_path / "b.bin"
    blob_file.write_bytes(b"x" * 100)
    schema = pa.schema([("id", pa.string()), ("photo", lakeshore.blob_type())])
    t = lakeshore.Table.create(table_path, schema, record_key="id")
    assert t.config["blob_columns"] == ["photo"]
    values = [
        {"id": "a", "photo": lakeshore.out_of_line_blob(str(blob_file), offset=0, length=100, managed=True)},
        {"id": "b", "photo": lakeshore.inline_blob(b"\x00\x01")},
        {"id": "c", "photo": None},
    ]
    t.insert(pa.Table.from_pylist(values, schema=schema))
    got = sorted(t.to_arrow(columns=["id", "photo"]).to_pylist(), key=lambda r: r["id"])
    assert got == values


def test_heavy_calls_release_the_gil(table_path: str) -> None:
    n = 400_000
    schema = pa.schema([("id", pa.int64()), ("s", pa.string())])
    data = pa.table({"id": pa.array(range(n), pa.int64()), "s": pa.array([str(i) for i in range(n)])})
    t = lakeshore.Table.create(table_path, schema, record_key="id")
    ticks = 0
    stop = threading.Event()

    def spin() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0.001)

    worker = threading.Thread(target=spin)
    worker.start()
    try:
        time.sleep(0.05)
        before = ticks
        start = time.perf_counter()
        t.bulk_insert(data)
        t.to_arrow()
        elapsed = time.perf_counter() - start
        during = ticks - before
    finally:
        stop.set()
        worker.join()
    # With the GIL held for the whole call the other thread could tick at most a few times.
    if elapsed > 0.1:
        assert during >= max(5, elapsed / 0.001 * 0.05), (during, elapsed)


def test_properties_reach_the_writer_and_unknown_keys_are_refused(table_path: str, tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    t = lakeshore.Table.create(table_path, SCHEMA, record_key="id", properties={"write.parquet.compression": "zstd"})
    assert t.config["properties"]["write.parquet.compression"] == "zstd"
    t.insert(rows((1, "oslo", 1, "a")))
    meta = pq.ParquetFile(Path(table_path, t.files()[0])).metadata
    assert meta.row_group(0).column(0).compression == "ZSTD"
    with pytest.raises(lakeshore.InvalidArgumentError, match="no.such.key"):
        lakeshore.Table.create(str(tmp_path / "other"), SCHEMA, record_key="id", properties={"no.such.key": "1"})
    with pytest.raises(lakeshore.InvalidArgumentError, match="bad"):
        lakeshore.Table.create(str(tmp_path / "t3"), SCHEMA, record_key="id", table_type="bad")


def test_create_refuses_options_that_contradict_each_other(tmp_path: Path) -> None:
    # Each value alone is valid; together they leave no archival possible, and a table accepted
    # with them failed every write once its metadata compaction was due. Nothing is created.
    for keep_min, keep_max in (("30", "20"), ("20", "20")):
        path = tmp_path / f"t{keep_min}_{keep_max}"
        props = {"hoodie.keep.min.commits": keep_min, "hoodie.keep.max.commits": keep_max}
        with pytest.raises(lakeshore.InvalidArgumentError, match="hoodie.keep.min.commits.*hoodie.keep.max.commits"):
            lakeshore.Table.create(str(path), SCHEMA, record_key="id", properties=props)
        assert not path.exists() or not any(path.iterdir())
    only_max = {"hoodie.keep.max.commits": "10"}  # below the default minimum (20)
    with pytest.raises(lakeshore.InvalidArgumentError, match="got 20 and 10"):
        lakeshore.Table.create(str(tmp_path / "only_max"), SCHEMA, record_key="id", properties=only_max)
    groups = {
        "hoodie.metadata.record.index.min.filegroup.count": "20",
        "hoodie.metadata.record.index.max.filegroup.count": "5",
    }
    with pytest.raises(lakeshore.InvalidArgumentError, match="min.filegroup.count.*max.filegroup.count"):
        lakeshore.Table.create(str(tmp_path / "groups"), SCHEMA, record_key="id", properties=groups)
    fine = {"hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "3"}
    lakeshore.Table.create(str(tmp_path / "fine"), SCHEMA, record_key="id", properties=fine)


def test_absurd_durations_and_counts_are_refused_before_any_arithmetic(tmp_path: Path) -> None:
    # A heartbeat interval of 2^63-1 ms was accepted, and the expiry check multiplied it by the
    # tolerable misses (signed overflow); lock leases and waits were added to clocks likewise.
    # Durations are at most 100 years, as retention is; misses at most 1000.
    huge = str(2**63 - 1)
    for key, value in (
        ("write.heartbeat.interval_ms", huge),
        ("write.lock.lease_ms", huge),
        ("write.lock.wait_timeout_ms", huge),
        ("write.lock.lease_ms", str(100 * 366 * 24 * 3600 * 1000)),
        ("write.heartbeat.tolerable_misses", "1001"),
    ):
        with pytest.raises(lakeshore.InvalidArgumentError, match=key.replace(".", "\\.")):
            lakeshore.Table.create(str(tmp_path / "t"), SCHEMA, record_key="id", properties={key: value})
        assert not (tmp_path / "t").exists() or not any((tmp_path / "t").iterdir())
    t = lakeshore.Table.create(str(tmp_path / "t"), SCHEMA, record_key="id")
    with pytest.raises(lakeshore.InvalidArgumentError, match="write\\.lock\\.wait_timeout_ms"):
        lakeshore.Table.open(t.uri, properties={"write.lock.wait_timeout_ms": huge})
    ok = {"write.heartbeat.interval_ms": str(3600 * 1000), "write.heartbeat.tolerable_misses": "1000"}
    lakeshore.Table.open(t.uri, properties=ok).insert(rows((1, "oslo", 1, "a")))


def test_threads_share_one_table(table: lakeshore.Table) -> None:
    from concurrent.futures import ThreadPoolExecutor

    table.insert(rows(*[(i, ["oslo", "lima"][i % 2], 1, str(i)) for i in range(200)]))
    expected = state(table)

    def read(_: int) -> dict[int, tuple[Any, ...]]:
        return state(table)

    def write(i: int) -> dict[str, Any]:
        return table.upsert(rows((1000 + i, "quito", 1, "new")))

    with ThreadPoolExecutor(max_workers=4) as pool:
        reads = [pool.submit(read, i) for i in range(8)]
        writes = [pool.submit(write, i) for i in range(4)]
        for f in reads:
            got = f.result()
            assert {k: v for k, v in got.items() if k < 1000} == expected
        assert len({f.result()["instant_time"] for f in writes}) == 4  # writes from one Table serialize
    assert set(state(table)) == set(expected) | {1000, 1001, 1002, 1003}


def test_typed_partition_filters(table_path: str) -> None:
    s = pa.schema([("id", pa.int64()), ("y", pa.int32()), ("d", pa.date32()), ("b", pa.bool_())])
    t = lakeshore.Table.create(table_path, s, record_key="id", partition_by=["y", "d", "b"])
    t.insert(
        pa.table(
            {
                "id": pa.array([1, 2, 3], pa.int64()),
                "y": pa.array([2024, 2025, 2025], pa.int32()),
                "d": pa.array([dt.date(2024, 1, 1), dt.date(2025, 2, 1), dt.date(2025, 3, 1)]),
                "b": [True, False, True],
            },
            schema=s,
        )
    )

    def ids(flt: list[tuple[str, str, Any]]) -> list[int]:
        return sorted(t.to_arrow(columns=["id"], filter=flt).column("id").to_pylist())

    assert ids([("y", ">=", 2025)]) == [2, 3]
    assert ids([("y", ">=", 2025), ("b", "==", True)]) == [3]
    assert ids([("d", "<", dt.date(2025, 3, 1))]) == [1, 2]
    assert ids([("b", "=", False)]) == [2]
    assert ids([("y", "in", [2024]), ("d", "not in", [dt.date(2025, 1, 1)])]) == [1]
    assert ids([("y", "=", pa.scalar(2025, pa.int32()))]) == [2, 3]


def test_filter_values_of_every_type_select_the_partition_they_name(table_path: str) -> None:
    """A filter value is rendered by the core exactly as partition values are written: a
    datetime, a date, a Decimal, a float or a string all select their partition."""
    import decimal

    s = pa.schema(
        [
            ("id", pa.int64()),
            ("ts", pa.timestamp("ms")),
            ("tz", pa.timestamp("us", tz="UTC")),
            ("day", pa.date32()),
            ("price", pa.decimal128(6, 2)),
            ("n", pa.int16()),
        ]
    )
    t = lakeshore.Table.create(table_path, s, record_key="id", partition_by=["ts", "tz", "day", "price", "n"])
    when = dt.datetime(2024, 1, 2, 3, 4, 5)
    utc = dt.datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=dt.timezone.utc)
    t.insert(
        pa.table(
            {
                "id": [1, 2],
                "ts": [when, dt.datetime(2024, 1, 3)],
                "tz": [utc, utc + dt.timedelta(days=1)],
                "day": [dt.date(2024, 1, 2), dt.date(2024, 1, 3)],
                "price": [decimal.Decimal("1.50"), decimal.Decimal("2.00")],
                "n": [9, 10],
            },
            schema=s,
        )
    )

    def ids(flt: list[tuple[str, str, Any]]) -> list[int]:
        return sorted(t.to_arrow(columns=["id"], filter=flt).column("id").to_pylist())

    assert ids([("ts", "=", when)]) == [1]
    assert ids([("ts", "=", "2024-01-02 03:04:05.000")]) == [1]
    assert ids([("ts", "=", "2024-01-02 03:04:05")]) == [1]  # parsed as the field's type
    assert ids([("ts", "in", [when, dt.datetime(2024, 1, 3)])]) == [1, 2]
    assert ids([("ts", ">", when)]) == [2]
    assert ids([("ts", "=", pa.scalar(when, pa.timestamp("ms")))]) == [1]
    assert ids([("tz", "=", utc)]) == [1]
    assert ids([("tz", "=", utc.astimezone(dt.timezone(dt.timedelta(hours=2))))]) == [1]  # same instant
    assert ids([("day", "=", dt.date(2024, 1, 3))]) == [2]
    assert ids([("day", "=", "2024-01-03")]) == [2]
    assert ids([("price", "=", decimal.Decimal("1.5"))]) == [1]
    assert ids([("price", ">", 1.75)]) == [2]
    assert ids([("n", "<", 10)]) == [1]  # by value, not as text ("10" < "9")
    assert ids([("n", "<=", "10")]) == [1, 2]
    assert ids([("n", "=", 9.0)]) == [1]


def test_none_filter_value_selects_the_null_partition(table_path: str) -> None:
    t = lakeshore.Table.create(table_path, SCHEMA, record_key="id", partition_by="city")
    t.insert(rows((1, "oslo", 1, "a"), (2, None, 1, "b"), (3, "None", 1, "c")))  # type: ignore[arg-type]

    def ids(flt: list[tuple[str, str, Any]]) -> list[int]:
        return sorted(t.to_arrow(columns=["id"], filter=flt).column("id").to_pylist())

    assert ids([("city", "=", None)]) == [2]
    assert ids([("city", "!=", None)]) == [1, 3]
    assert ids([("city", "in", [None, "oslo"])]) == [1, 2]
    assert ids([("city", "not in", [None, "oslo"])]) == [3]
    assert ids([("city", "=", "None")]) == [3]  # the string, not the null
    assert ids([("city", "!=", "oslo")]) == [3]  # a comparison with a value never keeps the null
    with pytest.raises(lakeshore.LakeshoreError, match="null can only be compared"):
        t.to_arrow(filter=[("city", "<", None)])


def test_filter_value_that_is_not_of_the_field_type_is_a_clear_error(table_path: str) -> None:
    s = pa.schema([("id", pa.int64()), ("y", pa.int32())])
    t = lakeshore.Table.create(table_path, s, record_key="id", partition_by="y")
    t.insert(pa.table({"id": [1], "y": pa.array([7], pa.int32())}, schema=s))
    with pytest.raises(lakeshore.LakeshoreError, match="'y'.*cannot be read as the field's type int32"):
        t.to_arrow(filter=[("y", "=", "seven")])
    # A data column's values are checked the same way; a column the table lacks is named.
    with pytest.raises(lakeshore.LakeshoreError, match="'id'.*cannot be read as the field's type int64"):
        t.to_arrow(filter=[("id", "=", "one")])
    with pytest.raises(lakeshore.LakeshoreError, match="'nope' is not a column of the table"):
        t.to_arrow(filter=[("nope", "=", 1)])
    assert t.to_arrow(columns=["id"], filter=[("y", "=", "7")]).num_rows == 1
    assert t.to_arrow(columns=["id"], filter=[("id", "=", 1)]).num_rows == 1
    # A fractional number is no integer: pyarrow typed 1.5 as 1, and "id = 1.5" found id 1 and
    # "id < 1.5" missed it. It is refused; a whole one (7.0) is the integer it equals.
    for op, value, field in (("=", 1.5, "id"), ("<", 1.5, "id"), ("in", [1, 7.5], "y"), ("=", Decimal("1.5"), "id")):
        with pytest.raises(lakeshore.LakeshoreError, match=f"'{field}'.*cannot be read as the field's type int"):
            t.to_arrow(filter=[(field, op, value)])
    assert t.to_arrow(columns=["id"], filter=[("y", "=", 7.0), ("id", "<=", 1.0)]).num_rows == 1


def test_a_number_is_no_boolean_filter_value_unless_it_is_0_or_1(table_path: str) -> None:
    # Arrow casts any number to a bool: "flag = 2" found the true rows, "flag < 10.0" the false.
    s = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("flag", pa.bool_())])
    t = lakeshore.Table.create(table_path, s, record_key="id")
    t.insert(pa.table({"id": [1, 2, 3], "flag": [True, False, True]}, schema=s))
    for op, value in (("=", 2), ("<", 10.0), ("in", [1, 5])):
        with pytest.raises(lakeshore.LakeshoreError, match="'flag'.*cannot be read exactly as the field's type bool"):
            t.to_arrow(filter=[("flag", op, value)])
    assert sorted(t.to_arrow(columns=["id"], filter=[("flag", "=", True)]).column("id").to_pylist()) == [1, 3]
    assert t.to_arrow(columns=["id"], filter=[("flag", "=", 0)]).column("id").to_pylist() == [2]


def test_in_memory_table_is_shared_within_the_process() -> None:
    import uuid

    uri = f"mem://test-{uuid.uuid4().hex}"
    t = lakeshore.Table.create(uri, SCHEMA, record_key="id", partition_by="city")
    t.insert(rows((1, "oslo", 1, "a")))
    assert state(lakeshore.Table.open(uri)) == {1: ("oslo", 1, "a")}
    assert lakeshore.Table.open(uri).files() == t.files()


def test_a_large_bulk_insert_splits_into_a_file_per_core(tmp_path: Any) -> None:
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
    data = pa.table({"id": pa.array(range(600_000), pa.int64()), "v": ["x"] * 600_000}, schema=schema)
    files = {}
    for parallelism in ("1", "2", "4"):
        t = lakeshore.Table.create(
            str(tmp_path / parallelism),
            schema,
            record_key="id",
            properties={"write.bulk_insert.parallelism": parallelism},
        )
        r = t.bulk_insert(data)
        files[parallelism] = r["files_written"]
        assert sorted(t.to_arrow(columns=["id"]).column("id").to_pylist()) == list(range(600_000))
    # Each file holds at least 250,000 rows: four cores still make two files of 300,000.
    assert files == {"1": 1, "2": 2, "4": 2}
    small = lakeshore.Table.create(str(tmp_path / "small"), schema, record_key="id")
    assert small.bulk_insert(data.slice(0, 400_000))["files_written"] == 1


def test_inline_compaction_runs_after_every_nth_deltacommit(tmp_path: Path) -> None:
    # No small-file packing: each write's updates become log files, its inserts new file groups.
    props = {
        "hoodie.compact.inline": "true",
        "hoodie.compact.inline.max.delta.commits": "3",
        "write.small_file_limit_bytes": "0",
    }
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.int64())])
    t = lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id", table_type="mor", properties=props)
    compactions = []
    for i in range(7):
        r = t.upsert(pa.table({"id": [i % 2, 10 + i], "v": [i, i]}, schema=schema))
        compactions.append(r["compaction_instant"])
    # Deltacommits 1..3 trigger the first, 4..6 the next.
    done = [c for c in compactions if c is not None]
    assert len(done) == 2, compactions
    assert compactions[2] == done[0] and compactions[5] == done[1]
    actions = [i["action"] for i in t.timeline()]
    assert actions.count("commit") == 2 and actions.count("deltacommit") == 7
    rows = {r["id"]: r["v"] for r in t.to_arrow(columns=["id", "v"]).to_pylist()}
    assert rows == {0: 6, 1: 5, **{10 + i: i for i in range(7)}}


def test_lookup_finds_where_each_record_lives(tmp_path: Path) -> None:
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("city", pa.string())])
    t = lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id", partition_by="city", table_type="mor")
    t.insert(pa.table({"id": [1, 2, 3], "city": ["oslo", "lima", "oslo"]}, schema=schema))
    t.upsert(pa.table({"id": [1], "city": ["oslo"]}, schema=schema))  # a log record keeps its file group
    t.delete([3])
    found = t.lookup([1, 2, 3, 4])
    assert found.schema.metadata[b"lookup.method"] == b"scan"  # no record index on this table
    rows = found.to_pylist()
    assert [r["record_key"] for r in rows] == ["1", "2", "3", "4"]
    assert [r["partition"] for r in rows] == ["city=oslo", "city=lima", None, None]
    groups = {f.split("/")[-1].split("_")[0] for f in t.files() if f.endswith(".parquet")}
    assert rows[0]["file_id"] in groups and rows[1]["file_id"] in groups
    with pytest.raises(lakeshore.InvalidArgumentError, match="record key field 'id'"):
        t.lookup(pa.table({"city": ["oslo"]}))
    # A pyarrow array (or chunked array) of the key's values is the key column.
    assert t.lookup(pa.array([1, 2, 3, 4], pa.int64())).to_pylist() == rows
    assert t.lookup(pa.chunked_array([[1, 2], [3, 4]], pa.int64())).to_pylist() == rows
    t.delete(pa.array([2], pa.int64()))
    assert t.lookup([2]).to_pylist()[0]["file_id"] is None


def test_table_paths_may_be_path_objects(tmp_path: Path) -> None:
    # pathlib paths are what most scripts hold: create() failed on them with
    # "'PosixPath' object has no attribute 'split'".
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False)])
    t = lakeshore.Table.create(tmp_path / "t", schema, record_key="id")
    t.insert(pa.table({"id": [1]}, schema=schema))
    assert lakeshore.Table.open(tmp_path / "t").to_arrow(columns=["id"]).to_pylist() == [{"id": 1}]
    assert lakeshore.Table.open(tmp_path / "t").config["name"] == "t"


READ_MEMORY = """
import resource, sys, pyarrow as pa, lakeshore
path, files = sys.argv[1], int(sys.argv[2])
s = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("p", pa.string())])
t = lakeshore.Table.create(path, s, record_key="id", partition_by="p")
t.bulk_insert(pa.table({"id": list(range(files)), "p": [f"x{i}" for i in range(files)]}, schema=s))
t = lakeshore.Table.open(path)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
assert t.to_arrow(columns=["id"]).num_rows == files
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024 // files)
"""


def test_a_read_of_many_files_does_not_hold_each_files_footer(tmp_path: Path) -> None:
    # Each base file's footer holds Hudi's bloom filter (~430 KB for a one-row file); a read held
    # one copy per file until the end: 420 KB of peak memory per file read (4.4 GB for 10,000).
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", READ_MEMORY, str(tmp_path / "t"), "400"], capture_output=True, text=True, check=True
    )
    per_file = int(out.stdout.strip())
    assert per_file < 100_000, f"{per_file} bytes of peak memory per file read"


def test_ctrl_c_without_a_progress_callback_stops_the_write_or_says_it_completed(tmp_path: Path) -> None:
    # Ctrl-C during a write given no progress callback (a script; the CLI without a terminal)
    # reached Python only after the commit, as a bare KeyboardInterrupt: the caller was told
    # nothing, and the write had completed (an insert retried stored its rows twice). The
    # signal is now checked where a callback would be called: the write stops before its commit
    # point, or the exception says it completed.
    import signal

    n = 1_000_000
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("p", pa.string()), ("v", pa.string())])
    ids = pa.array(range(n), pa.int64())
    parts = pa.array([f"p{i % 4}" for i in range(n)])
    t = lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id", partition_by="p")
    t.bulk_insert(pa.table([ids, parts, pa.array(["old"] * n)], schema=schema))
    timeline = tmp_path / "t" / ".hoodie" / "timeline"
    before = set(os.listdir(timeline))

    def interrupt_once_the_write_starts() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not set(os.listdir(timeline)) - before:
            time.sleep(0.001)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt_once_the_write_starts, daemon=True).start()
    with pytest.raises(KeyboardInterrupt) as raised:
        t.upsert(pa.table([ids, parts, pa.array(["new"] * n)], schema=schema))
        time.sleep(5)  # a write that outran the signal: it arrives here, and the test fails below
    notes = getattr(raised.value, "__notes__", [])
    updated = lakeshore.Table.open(str(tmp_path / "t")).to_arrow(filter=[("v", "=", "new")]).num_rows
    if any("nothing of it is visible" in note for note in notes):
        assert updated == 0
    else:
        assert any("it completed" in note for note in notes), notes
        assert updated == n


KV = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])


def _kv(t: lakeshore.Table, as_of: Any = None) -> list[tuple[int, str]]:
    return sorted((r["id"], r["v"]) for r in t.to_arrow(columns=["id", "v"], as_of=as_of).to_pylist())


def test_a_restore_undoes_the_writes_completed_after_the_savepoint_not_those_requested_after(
    tmp_path: Path,
) -> None:
    # A restore chose the writes to undo by requested time, while as_of, rollback and savepoints
    # order them by completion: a write requested after the savepointed instant but completed
    # before it was undone, and one requested before but completed after it survived. The
    # restored table must read as the savepoint did.
    # A compaction scheduled, an upsert completed, the compaction completed and savepointed.
    root = str(tmp_path / "mor")
    t = lakeshore.Table.create(
        root, KV, record_key="id", table_type="mor", properties={"write.small_file_limit_bytes": "0"}
    )
    t.upsert(pa.table({"id": [1, 2], "v": ["a", "a"]}, schema=KV))
    t.upsert(pa.table({"id": [1], "v": ["b"]}, schema=KV))
    k = t.compact(schedule_only=True)["instant_time"]
    t.upsert(pa.table({"id": [2, 3], "v": ["c", "c"]}, schema=KV))
    assert t.compact()["instant_time"] == k
    t.savepoint(k)
    expected = _kv(t, as_of=k)
    assert expected == [(1, "b"), (2, "c"), (3, "c")]
    t.restore(k)
    assert _kv(t) == expected
    # A write requested first and completed after the savepointed one.
    root = str(tmp_path / "cow")
    t = lakeshore.Table.create(root, KV, record_key="id", properties={"write.small_file_limit_bytes": "0"})
    t.upsert(pa.table({"id": [1], "v": ["a"]}, schema=KV))
    late = lakeshore.Table.open(root)
    paused, go = threading.Event(), threading.Event()

    def hold(phase: str, done: int, total: int, unit: str) -> None:
        if phase == "committing" and not paused.is_set():
            paused.set()
            go.wait(60)

    out: dict[str, Any] = {}
    writer = threading.Thread(
        target=lambda: out.update(w=late.insert(pa.table({"id": [10], "v": ["w"]}, schema=KV), progress=hold))
    )
    writer.start()
    assert paused.wait(60)
    c = t.insert(pa.table({"id": [20], "v": ["c"]}, schema=KV))["instant_time"]
    go.set()
    writer.join()
    assert out["w"]["instant_time"] < c
    t.savepoint(c)
    expected = _kv(t, as_of=c)
    assert expected == [(1, "a"), (20, "c")]
    t.restore(c)
    assert _kv(t) == expected
    assert _kv(lakeshore.Table.open(root)) == expected


@pytest.mark.parametrize("mode", ["insert", "bulk_insert", "upsert"])
def test_a_tiny_first_write_does_not_shrink_the_next_writes_files(tmp_path: Path, mode: str) -> None:
    # New files are sized by the table's bytes per record. A one-row file weighs ~430 KB (Hudi's
    # bloom filter in its footer), so after a one-row first write 100,000 rows went into ~350
    # files of ~290 rows. Files too small to say (as Hudi skips small commits) are not counted.
    t = lakeshore.Table.create(str(tmp_path / "t"), KV, record_key="id")
    t.insert(pa.table({"id": [-1], "v": ["seed"]}, schema=KV))
    n = 100_000
    result = t.write(pa.table({"id": list(range(n)), "v": ["x"] * n}, schema=KV), mode=mode)
    assert result["files_written"] <= 4, result["files_written"]
    assert t.to_arrow().num_rows == n + 1


def test_ctrl_c_after_a_compactions_last_report_carries_the_note_that_it_completed(table_path: str) -> None:
    # A Ctrl-C landing after the last progress report (the compaction's complete step) was
    # raised bare once the call returned: no word that the compaction had completed.
    import signal

    t = lakeshore.Table.create(table_path, SCHEMA, record_key="id", ordering_field="ver", table_type="mor")
    t.insert(rows((1, "oslo", 1, "a"), (2, "lima", 1, "b")))
    t.upsert(rows((1, "oslo", 2, "c")))

    def interrupt_after_the_last_report(phase: str, done: int, total: int, unit: str) -> None:
        if done == total:  # the kill lands once this returns, while the compaction completes
            threading.Thread(target=os.kill, args=(os.getpid(), signal.SIGINT)).start()

    with pytest.raises(KeyboardInterrupt) as raised:
        t.compact(progress=interrupt_after_the_last_report)
        time.sleep(5)  # not reached when the note is raised by compact() itself
    notes = getattr(raised.value, "__notes__", [])
    compacted = any(i["action"] == "commit" and i["state"] == "completed" for i in t.timeline())
    assert notes, "a bare KeyboardInterrupt"
    assert any(("it completed" if compacted else "nothing of it is visible") in n for n in notes), notes


def test_as_of_a_datetime_is_a_moment_never_an_instant_that_starts_then(table: lakeshore.Table) -> None:
    # A datetime whose milliseconds matched a write's start instant was read as that instant:
    # as_of=T showed the write, as_of=T + 1 ms did not (it had not completed yet).
    import datetime as dt

    table.insert(rows((1, "oslo", 1, "a")))
    table.upsert(rows((2, "oslo", 1, "b")))
    last = table.timeline()[-1]

    def moment(text: str) -> dt.datetime:
        return dt.datetime.strptime(text, "%Y%m%d%H%M%S%f").replace(tzinfo=dt.UTC)

    start, done = moment(last["time"]), moment(last["completion_time"])
    assert done > start
    assert table.to_arrow(as_of=start).num_rows == 1  # the write had not completed then
    assert table.to_arrow(as_of=done).num_rows == 2
    assert table.to_arrow(as_of=last["time"]).num_rows == 2  # the instant itself: right after it
    assert table.to_arrow(as_of=done.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + "Z").num_rows == 2


def test_a_partition_value_near_the_name_limit_is_written(tmp_path: Path) -> None:
    # A 232-byte folder name is legal, but it was staged under ".<name>.<marker>.<pid>..." past
    # 255 bytes, and the write failed with "its folder kept disappearing".
    s = pa.schema([pa.field("id", pa.int64(), False), pa.field("p", pa.string())])
    t = lakeshore.Table.create(str(tmp_path / "t"), s, record_key="id", partition_by="p")
    t.bulk_insert(pa.Table.from_pylist([{"id": 1, "p": "x" * 230}], schema=s))
    assert t.to_arrow(columns=["p"]).column("p").to_pylist() == ["x" * 230]
    assert not [p for p in (tmp_path / "t").rglob("*") if ".lakeshore-staged" in p.name]


def test_incremental_reads_need_a_start_and_read_only_asked_columns(table: lakeshore.Table) -> None:
    # "" read the whole table as changed (an emptied pipeline checkpoint re-emitted everything);
    # a projected incremental read read every column and dropped the rest at the end.
    first = table.insert(rows((1, "oslo", 1, "a"), (2, "lima", 1, "b")))["instant_time"]
    table.upsert(rows((2, "lima", 2, "c"), (3, "oslo", 1, "d")))
    for start in ("", "  "):
        with pytest.raises(ValueError, match="needs a start instant"):
            table.read_incremental(start)
    got = table.read_incremental(first, columns=["id"], filter=[("city", "=", "lima")])
    assert got.column_names == ["id"] and got.column("id").to_pylist() == [2]
    both = table.read_incremental("000", columns=["note", "id"])
    assert both.column_names == ["note", "id"] and sorted(both.column("id").to_pylist()) == [1, 2, 3]


def test_a_moment_before_the_year_1000_is_before_every_instant(table: lakeshore.Table) -> None:
    # strftime wrote the year 999 as "999", which no instant time matched.
    table.insert(rows((1, "oslo", 1, "a")))
    assert lakeshore.table.format_instant_time(dt.datetime(999, 1, 2)) == "09990102000000000"
    assert table.to_arrow(as_of=dt.datetime(999, 1, 1)).num_rows == 0
    assert table.to_arrow(as_of=dt.datetime(999, 1, 1, tzinfo=dt.UTC)).num_rows == 0


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_a_table_whose_folder_was_deleted_is_an_error_never_an_empty_table(table_path: str, table_type: str) -> None:
    # An open Table read a deleted table as an empty one (every read, lookup and service said
    # "nothing"), and a refused write recreated the folder with its lock and heartbeat objects.
    import shutil

    t = lakeshore.Table.create(table_path, SCHEMA, record_key="id", ordering_field="ver", table_type=table_type)
    t.insert(rows((1, "oslo", 1, "a")))
    shutil.rmtree(table_path)
    calls = {
        "to_arrow": lambda: t.to_arrow(),
        "timeline": lambda: t.timeline(),
        "files": lambda: t.files(),
        "read_incremental": lambda: t.read_incremental("000"),
        "savepoints": lambda: t.savepoints(),
        "lookup": lambda: t.lookup([1]),
        "compact": lambda: t.compact(),
        "cluster": lambda: t.cluster(),
        "rollback_failed_writes": lambda: t.rollback_failed_writes(),
        "upsert": lambda: t.upsert(rows((2, "lima", 1, "b"))),
        "delete": lambda: t.delete([1]),
    }
    for name, call in calls.items():
        with pytest.raises(lakeshore.StorageError, match="no table at .*hoodie.properties is missing"):
            call()
        assert not os.path.exists(table_path), f"{name} recreated the deleted table's folder"


def test_a_table_re_created_at_its_path_is_not_written_by_a_stale_table_object(table_path: str) -> None:
    # Another process deleted the table and created one of other columns and key at the path;
    # the stale object's upsert then wrote its rows (and its schema) into the new table.
    import shutil

    stale = lakeshore.Table.create(table_path, SCHEMA, record_key="id", ordering_field="ver")
    stale.insert(rows((1, "oslo", 1, "a")))
    shutil.rmtree(table_path)
    other = pa.schema([pa.field("k", pa.string(), nullable=False), pa.field("w", pa.float64())])
    fresh = lakeshore.Table.create(table_path, other, record_key="k")
    with pytest.raises(lakeshore.CommitConflictError, match="re-created"):
        stale.upsert(rows((2, "lima", 1, "b")))
    fresh.insert(pa.table({"k": ["a"], "w": [1.5]}, schema=other))
    assert lakeshore.Table.open(table_path).to_arrow(columns=["k", "w"]).to_pylist() == [{"k": "a", "w": 1.5}]


@pytest.mark.parametrize("table_type", ["cow", "mor"])
@pytest.mark.parametrize("order", ["newest_first", "newest_last", "packed"])
def test_copies_of_a_key_in_one_file_group_merge_before_an_update_meets_them(
    table_path: str, table_type: str, order: str
) -> None:
    # Copy-on-write compared the update with the last copy only: with copies ts=5 and ts=3, an
    # update at ts=4 replaced both (or, copies the other way round, left both unmerged).
    schema = pa.schema(
        [pa.field("id", pa.int64(), nullable=False), pa.field("ts", pa.int64()), pa.field("v", pa.string())]
    )
    t = lakeshore.Table.create(table_path, schema, record_key="id", ordering_field="ts", table_type=table_type)

    def batch(*items: tuple[int, int, str]) -> pa.Table:
        return pa.Table.from_pylist([{"id": i, "ts": ts, "v": v} for i, ts, v in items], schema=schema)

    if order == "newest_first":
        t.bulk_insert(batch((1, 5, "a"), (1, 3, "b")))
    elif order == "newest_last":
        t.bulk_insert(batch((1, 3, "b"), (1, 5, "a")))
    else:
        t.insert(batch((1, 5, "a"), (2, 0, "z")))
        t.insert(batch((1, 3, "b")))  # packed into the small group that holds key 1
    assert len({f.split("_")[0] for f in t.to_arrow().column("_hoodie_file_name").to_pylist()}) == 1  # one group
    t.upsert(batch((1, 4, "older")))
    assert sorted((r["ts"], r["v"]) for r in t.to_arrow(filter=[("id", "=", 1)]).to_pylist()) == [(5, "a")]
    t.upsert(batch((1, 5, "tie")))  # a tie goes to the update
    assert sorted((r["ts"], r["v"]) for r in t.to_arrow(filter=[("id", "=", 1)]).to_pylist()) == [(5, "tie")]


@pytest.mark.parametrize("table_type", ["cow", "mor"])
@pytest.mark.parametrize("index", ["GLOBAL_SIMPLE", "GLOBAL_BLOOM"])
def test_a_global_index_deletes_every_copy_of_a_key_stored_in_two_partitions(
    table_path: str, table_type: str, index: str
) -> None:
    # An insert stores a stored key again (in another partition too); a delete of the key alone
    # was then refused ("comes in partitions 'p=a' and 'p=b' of one write"), and the documented
    # way out (delete it, then write it once) was closed.
    schema = pa.schema(
        [pa.field("id", pa.int64(), nullable=False), pa.field("p", pa.string()), pa.field("ts", pa.int64())]
    )
    t = lakeshore.Table.create(
        table_path,
        schema,
        record_key="id",
        partition_by="p",
        ordering_field="ts",
        table_type=table_type,
        properties={"hoodie.index.type": index},
    )

    def batch(*items: tuple[int, str]) -> pa.Table:
        return pa.Table.from_pylist([{"id": i, "p": p, "ts": 1} for i, p in items], schema=schema)

    def stored() -> list[tuple[int, str]]:
        return sorted((r["id"], r["p"]) for r in t.to_arrow(columns=["id", "p"]).to_pylist())

    t.upsert(batch((1, "a"), (2, "a"), (3, "a")))
    t.insert(batch((1, "b"), (3, "b")))
    assert stored() == [(1, "a"), (1, "b"), (2, "a"), (3, "a"), (3, "b")]
    t.delete([1])
    assert stored() == [(2, "a"), (3, "a"), (3, "b")]
    t.delete([{"id": 3, "p": "b"}])  # the copy in the partition named
    assert stored() == [(2, "a"), (3, "a")]
    with pytest.raises(lakeshore.InvalidArgumentError, match="is stored in partition 'p=a'"):
        t.delete([{"id": 2, "p": "b"}])  # stored elsewhere only: refused as before
    t.upsert(batch((1, "b")))  # written once again
    assert stored() == [(1, "b"), (2, "a"), (3, "a")]


def test_copies_tied_on_ordering_merge_into_the_later_written_even_after_clustering(table_path: str) -> None:
    # Ties went to the later place in the file; clustering's sort reorders files, and the older
    # write was kept.
    schema = pa.schema(
        [pa.field("id", pa.int64(), nullable=False), pa.field("o", pa.int64()), pa.field("v", pa.string())]
    )
    t = lakeshore.Table.create(table_path, schema, record_key="id", ordering_field="o")

    def batch(*items: tuple[int, int, str]) -> pa.Table:
        return pa.Table.from_pylist([{"id": i, "o": o, "v": v} for i, o, v in items], schema=schema)

    t.insert(batch((1, 5, "z_old"), (2, 5, "m")))
    t.insert(batch((1, 5, "a_new")))  # packed beside it: a second copy, written later
    t.cluster(sort_by=["v"])  # the file now holds a_new before z_old
    t.upsert(batch((1, 4, "older")))  # loses to both copies
    assert [r["v"] for r in t.to_arrow(filter=[("id", "=", 1)]).to_pylist()] == ["a_new"]


@pytest.mark.parametrize("index", ["GLOBAL_SIMPLE", "GLOBAL_BLOOM"])
def test_a_global_delete_naming_a_partition_that_does_not_hold_the_key_is_refused_in_any_batch(
    table_path: str, index: str
) -> None:
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("p", pa.string())])
    t = lakeshore.Table.create(
        table_path, schema, record_key="id", partition_by="p", properties={"hoodie.index.type": index}
    )
    t.upsert(pa.Table.from_pylist([{"id": 2, "p": "a"}, {"id": 4, "p": "a"}], schema=schema))
    for keys in (
        [{"id": 2, "p": "b"}],
        [{"id": 2, "p": "b"}, {"id": 2, "p": "a"}],
        [{"id": 2, "p": "a"}, {"id": 2, "p": "b"}],
    ):
        with pytest.raises(lakeshore.InvalidArgumentError, match="is stored in partition 'p=a'"):
            t.delete(keys)
    assert sorted(r["id"] for r in t.to_arrow(columns=["id"]).to_pylist()) == [2, 4]


def test_keys_to_delete_name_their_partition_in_every_dict_or_in_none(table_path: str) -> None:
    # A list naming the partition in some dicts only was sent as keys alone, which delete every
    # stored copy: a copy in a partition not named was deleted.
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("p", pa.string())])
    t = lakeshore.Table.create(table_path, schema, record_key="id", partition_by="p")
    t.upsert(pa.Table.from_pylist([{"id": 3, "p": "a"}, {"id": 3, "p": "b"}, {"id": 1, "p": "a"}], schema=schema))
    with pytest.raises(lakeshore.InvalidArgumentError, match="in some dicts only"):
        t.delete([{"id": 3, "p": "b"}, {"id": 1}])
    assert len(t.to_arrow(columns=["id"])) == 3
    t.delete([{"id": 3, "p": "b"}, {"id": 1, "p": "a"}])
    assert [(r["id"], r["p"]) for r in t.to_arrow(columns=["id", "p"]).to_pylist()] == [(3, "a")]
