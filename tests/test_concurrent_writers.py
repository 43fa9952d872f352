"""Two writer processes on one table: overlapping writes (one must fail with CommitConflictError,
nothing of it visible) and disjoint writes (both commit)."""

from __future__ import annotations

import multiprocessing as mp
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import lakeshore

SCHEMA = pa.schema(
    [pa.field("id", pa.int64(), nullable=False), pa.field("city", pa.string()), pa.field("who", pa.string())]
)


def batch(ids: list[int], city: str, who: str) -> pa.Table:
    return pa.table(
        {"id": pa.array(ids, pa.int64()), "city": [city] * len(ids), "who": [who] * len(ids)}, schema=SCHEMA
    )


def writer(path: str, ids: list[int], city: str, who: str, barrier: Any, results: Any) -> None:
    """Upserts; the first progress report (the write's view of the table is fixed by then) waits
    until the other writer got as far, so both writes overlap."""
    waited = [False]

    def progress(phase: str, done: int, total: int, unit: str) -> None:
        if not waited[0]:
            waited[0] = True
            barrier.wait(timeout=60)

    try:
        r = lakeshore.Table.open(path).upsert(batch(ids, city, who), progress=progress)
        results.put((who, "ok", r["instant_time"]))
    except lakeshore.LakeshoreError as e:
        results.put((who, type(e).__name__, str(e)))
    except BaseException as e:  # reported, so the test fails with the reason
        results.put((who, f"unexpected {type(e).__name__}", str(e)))


def run_two(path: str, a: tuple[list[int], str], b: tuple[list[int], str]) -> dict[str, tuple[str, Any]]:
    barrier = mp.get_context("spawn").Barrier(2)
    return run_processes([(writer, (path, ids, city, who, barrier)) for who, (ids, city) in (("A", a), ("B", b))])


def seeded(path: str) -> lakeshore.Table:
    t = lakeshore.Table.create(path, SCHEMA, record_key="id", partition_by="city")
    t.insert(batch([1, 2, 3], "oslo", "seed"))
    t.insert(batch([10, 11], "lima", "seed"))
    return t


def test_overlapping_writers_one_conflicts(table_path: str) -> None:
    t = seeded(table_path)
    out = run_two(table_path, ([1, 2], "oslo"), ([2, 3], "oslo"))
    statuses = sorted(s for s, _ in out.values())
    assert statuses == ["CommitConflictError", "ok"], out
    winner = next(w for w, (s, _) in out.items() if s == "ok")
    loser_message = next(d for s, d in out.values() if s != "ok")
    assert "conflict" in loser_message.lower()
    rows = {r["id"]: r["who"] for r in t.to_arrow(columns=["id", "who"]).to_pylist()}
    touched = [1, 2] if winner == "A" else [2, 3]
    assert rows == {k: (winner if k in touched else "seed") for k in (1, 2, 3, 10, 11)}
    completed = [i for i in t.timeline() if i["state"] == "completed" and i["action"] == "commit"]
    assert len(completed) == 3  # two seeds and the winner


def test_disjoint_writers_both_commit(table_path: str) -> None:
    t = seeded(table_path)
    out = run_two(table_path, ([1, 2], "oslo"), ([10], "lima"))
    assert {s for s, _ in out.values()} == {"ok"}, out
    rows = {r["id"]: r["who"] for r in t.to_arrow(columns=["id", "who"]).to_pylist()}
    assert rows == {1: "A", 2: "A", 3: "seed", 10: "B", 11: "seed"}
    assert out["A"][1] != out["B"][1]  # distinct instant times


def steady_writer(path: str, first_id: int, count: int, results: Any) -> None:
    """Upserts `count` one-row batches, retrying a conflict; reports the instants it committed."""
    done = []
    try:
        t = lakeshore.Table.open(path)
        for k in range(count):
            for _ in range(20):
                try:
                    done.append(t.upsert(batch([first_id + k], "x", "w"))["instant_time"])
                    break
                except lakeshore.CommitConflictError:
                    continue
        results.put(("ok", done))
    except BaseException as e:  # reported, so the test fails with the reason
        results.put((f"{type(e).__name__}", str(e)))


def test_archival_runs_beside_a_writer_process_and_loses_no_instant(tmp_path: Any) -> None:
    # A writer process commits while this process archives and reads, over and over: every
    # committed instant stays readable (active or archived) and the snapshot has every row.
    path = str(tmp_path / "t")
    t = lakeshore.Table.create(path, SCHEMA, record_key="id")
    t.upsert(batch([0], "x", "seed"))
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    proc = ctx.Process(target=steady_writer, args=(path, 1, 25, results))
    proc.start()
    archived: list[str] = []
    while proc.is_alive():
        archived += t.archive(keep_min_commits=2, keep_max_commits=3)["archived_instants"]
        assert t.to_arrow().num_rows >= 1
    status, detail = results.get(timeout=120)
    proc.join(timeout=60)
    assert status == "ok", detail
    archived += t.archive(keep_min_commits=2, keep_max_commits=3)["archived_instants"]
    assert archived, "the archiver never had anything to move"
    assert sorted(t.to_arrow().column("id").to_pylist()) == list(range(26))
    for k, instant in enumerate(detail):
        ids = sorted(t.to_arrow(as_of=instant).column("id").to_pylist())
        assert ids == list(range(k + 2)), instant


def run_processes(targets: list[tuple[Any, tuple[Any, ...]]]) -> dict[str, tuple[str, Any]]:
    """Runs each (function, args) in a spawned process; each reports (who, status, detail) on
    the queue passed as its last argument. Returns who → (status, detail) once all exited."""
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    procs = [ctx.Process(target=fn, args=(*args, results)) for fn, args in targets]
    for p in procs:
        p.start()
    out = {}
    for _ in procs:
        who, status, detail = results.get(timeout=300)
        out[who] = (status, detail)
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    return out


def mor_writer(path: str, who: str, ids: list[int], rounds: int, results: Any) -> None:
    """Upserts its own keys `rounds` times (version = round), retrying a write that conflicts."""
    try:
        t = lakeshore.Table.open(path)
        conflicts = 0
        for version in range(1, rounds + 1):
            while True:
                try:
                    t.upsert(batch(ids, "oslo", f"{who}{version}"))
                    break
                except lakeshore.CommitConflictError:
                    conflicts += 1
                    t = lakeshore.Table.open(path)
        results.put((who, "ok", conflicts))
    except BaseException as e:  # reported, so the test fails with the reason
        results.put((who, f"unexpected {type(e).__name__}", str(e)))


def compactor(path: str, rounds: int, results: Any) -> None:
    """Compacts and clusters while the writers write."""
    try:
        done = 0
        for i in range(rounds):
            t = lakeshore.Table.open(path)
            r = t.compact() if i % 2 == 0 else t.cluster(sort_by="id")
            done += bool(r["completed"])
        results.put(("compactor", "ok", done))
    except BaseException as e:
        results.put(("compactor", f"unexpected {type(e).__name__}", str(e)))


def test_writer_processes_and_a_compacting_process_on_a_merge_on_read_table(table_path: str) -> None:
    # Two writers keep updating their own keys (in the same file groups: they conflict and
    # retry) while a third process compacts and clusters. Every write that returned is visible
    # at the end, whatever the services did meanwhile; hudi-rs reads the same.
    t = lakeshore.Table.create(table_path, SCHEMA, record_key="id", partition_by="city", table_type="mor")
    t.insert(batch([1, 2, 3, 4], "oslo", "seed"))
    out = run_processes(
        [
            (mor_writer, (table_path, "A", [1, 2], 6)),
            (mor_writer, (table_path, "B", [3, 4], 6)),
            (compactor, (table_path, 6)),
        ]
    )
    assert all(status == "ok" for status, _ in out.values()), out
    rows = {r["id"]: r["who"] for r in lakeshore.Table.open(table_path).to_arrow(columns=["id", "who"]).to_pylist()}
    assert rows == {1: "A6", 2: "A6", 3: "B6", 4: "B6"}, out
    import hudi

    theirs = pa.Table.from_batches(hudi.HudiTable(table_path).read()).select(["id", "who"]).to_pylist()
    assert {r["id"]: r["who"] for r in theirs} == rows
    assert not [i for i in lakeshore.Table.open(table_path).timeline() if i["state"] != "completed"]


def test_a_key_two_writers_insert_at_once_is_stored_once_with_a_record_index(tmp_path: Any) -> None:
    # Keys new to the table are not locked: two upserts of the same new key into different new
    # file groups both committed, and the key was stored twice (a merge-on-read table's inserts
    # go to new groups; Hudi's file-group conflict check lets that through). Tagged by the
    # record index, the later one to commit now conflicts. The second writer runs inside the
    # first's "committing" progress report: after the first tagged, before it takes the lock.
    path = str(tmp_path / "t")
    props = {
        "hoodie.metadata.record.index.enable": "true",
        "hoodie.index.type": "RECORD_INDEX",
        "write.small_file_limit_bytes": "0",  # every write's inserts in a new file group
    }
    lakeshore.Table.create(path, SCHEMA, record_key="id", table_type="mor", properties=props)
    first, second = lakeshore.Table.open(path), lakeshore.Table.open(path)
    first.upsert(batch([1], "oslo", "seed"))
    fired = [False]

    def progress(phase: str, done: int, total: int, unit: str) -> None:
        if phase == "committing" and not fired[0]:
            fired[0] = True
            second.upsert(batch([7, 8], "lima", "second"))

    try:
        first.upsert(batch([7, 9], "rome", "first"), progress=progress)
        raise AssertionError("the first write committed key 7 beside the second's")
    except lakeshore.CommitConflictError as e:
        assert "'7'" in str(e)
    rows = lakeshore.Table.open(path).to_arrow(columns=["id", "who"]).to_pylist()
    assert sorted((r["id"], r["who"]) for r in rows) == [(1, "seed"), (7, "second"), (8, "second")]
    # Retried, it updates the stored key.
    first = lakeshore.Table.open(path, properties=props)
    first.upsert(batch([7, 9], "rome", "first"))
    rows = lakeshore.Table.open(path).to_arrow(columns=["id", "who"]).to_pylist()
    assert sorted((r["id"], r["who"]) for r in rows) == [(1, "seed"), (7, "first"), (8, "second"), (9, "first")]


def upsert_while_another_commits(path: str, props: dict[str, str], mine: pa.Table, theirs: pa.Table) -> str | None:
    """Upserts `mine` while `theirs` is upserted by another writer inside this write's
    "committing" progress report (after this write tagged, before it takes the lock); returns
    the conflict's message, or None when both committed."""
    first, second = lakeshore.Table.open(path, properties=props), lakeshore.Table.open(path, properties=props)
    fired = [False]

    def progress(phase: str, done: int, total: int, unit: str) -> None:
        if phase == "committing" and not fired[0]:
            fired[0] = True
            second.upsert(theirs)

    try:
        first.upsert(mine, progress=progress)
        return None
    except lakeshore.CommitConflictError as e:
        return str(e)


@pytest.mark.parametrize("table_type", ["cow", "mor"])
@pytest.mark.parametrize("index", ["SIMPLE", "GLOBAL_SIMPLE", "BLOOM", "GLOBAL_BLOOM"])
def test_a_key_two_writers_insert_at_once_is_stored_once_with_every_index(
    tmp_path: Any, index: str, table_type: str
) -> None:
    # The same race as above, tagged by the indexes that read data files: the later write to
    # commit reads the key columns of the file groups the writes completed meanwhile wrote.
    path = str(tmp_path / "t")
    props = {"hoodie.index.type": index, "write.small_file_limit_bytes": "0"}
    lakeshore.Table.create(path, SCHEMA, record_key="id", table_type=table_type, properties=props)
    lakeshore.Table.open(path, properties=props).upsert(batch([1], "oslo", "seed"))
    message = upsert_while_another_commits(path, props, batch([7, 9], "rome", "first"), batch([8, 7], "lima", "second"))
    assert message is not None, "the first write committed key 7 beside the second's"
    assert "'7'" in message and "concurrent" in message
    rows = lakeshore.Table.open(path).to_arrow(columns=["id", "who"]).to_pylist()
    assert sorted((r["id"], r["who"]) for r in rows) == [(1, "seed"), (7, "second"), (8, "second")]
    # Retried, it updates the stored key.
    lakeshore.Table.open(path, properties=props).upsert(batch([7, 9], "rome", "first"))
    rows = lakeshore.Table.open(path).to_arrow(columns=["id", "who"]).to_pylist()
    assert sorted((r["id"], r["who"]) for r in rows) == [(1, "seed"), (7, "first"), (8, "second"), (9, "first")]


@pytest.mark.parametrize("index", ["SIMPLE", "GLOBAL_SIMPLE", "BLOOM", "GLOBAL_BLOOM", "RECORD_INDEX"])
def test_a_new_key_another_writer_put_in_another_partition_meanwhile(tmp_path: Any, index: str) -> None:
    # Partitioned indexes keep a key once per partition: the same new key in two partitions is
    # two records, and both writes commit. Global ones keep a key in one partition: conflict.
    path = str(tmp_path / "t")
    props = {"hoodie.index.type": index, "write.small_file_limit_bytes": "0"}
    if index == "RECORD_INDEX":
        props["hoodie.metadata.record.index.enable"] = "true"
    lakeshore.Table.create(path, SCHEMA, record_key="id", partition_by="city", properties=props)
    lakeshore.Table.open(path, properties=props).upsert(batch([1], "oslo", "seed"))
    message = upsert_while_another_commits(path, props, batch([7], "rome", "first"), batch([7], "lima", "second"))
    rows = sorted(
        (r["id"], r["city"], r["who"])
        for r in lakeshore.Table.open(path).to_arrow(columns=["id", "city", "who"]).to_pylist()
    )
    if index.startswith("GLOBAL") or index == "RECORD_INDEX":
        assert message is not None and "'7'" in message
        assert rows == [(1, "oslo", "seed"), (7, "lima", "second")]
    else:
        assert message is None
        assert rows == [(1, "oslo", "seed"), (7, "lima", "second"), (7, "rome", "first")]


@pytest.mark.parametrize("index", ["SIMPLE", "BLOOM"])
def test_writers_of_different_new_keys_both_commit(tmp_path: Any, index: str) -> None:
    # The check finds only the keys both wrote: disjoint new keys, and updates of one stored
    # key beside a new one, commit as before.
    path = str(tmp_path / "t")
    props = {"hoodie.index.type": index, "write.small_file_limit_bytes": "0"}
    lakeshore.Table.create(path, SCHEMA, record_key="id", properties=props)
    lakeshore.Table.open(path, properties=props).upsert(batch([1, 2], "oslo", "seed"))
    message = upsert_while_another_commits(path, props, batch([7, 9], "rome", "first"), batch([1, 8], "lima", "second"))
    assert message is None
    rows = lakeshore.Table.open(path).to_arrow(columns=["id", "who"]).to_pylist()
    assert sorted((r["id"], r["who"]) for r in rows) == [
        (1, "second"),
        (2, "seed"),
        (7, "first"),
        (8, "second"),
        (9, "first"),
    ]


def overlapping_inserter(path: str, who: str, seed: int, rounds: int, results: Any) -> None:
    """Upserts `rounds` batches of keys drawn from one small shared range (most new when first
    drawn, then updates), retrying a conflict; reports the last value it committed per key."""
    import random

    rng = random.Random(seed)
    try:
        t = lakeshore.Table.open(path)
        mine: dict[int, str] = {}
        for version in range(rounds):
            ids = sorted(rng.sample(range(40), 6))
            for _ in range(50):
                try:
                    t.upsert(batch(ids, "x", f"{who}{version}"))
                    mine.update({k: f"{who}{version}" for k in ids})
                    break
                except lakeshore.CommitConflictError:
                    t = lakeshore.Table.open(path)
            else:
                raise AssertionError("50 conflicts in a row")
        results.put((who, "ok", mine))
    except BaseException as e:  # reported, so the test fails with the reason
        results.put((who, f"unexpected {type(e).__name__}", str(e)))


@pytest.mark.parametrize("index", ["SIMPLE", "BLOOM"])
def test_writer_processes_inserting_overlapping_new_keys_store_each_key_once(tmp_path: Any, index: str) -> None:
    # Three processes upsert overlapping keys of one small range, each new to the table when
    # first drawn: every key ends stored exactly once, with a value one of the writers committed.
    path = str(tmp_path / "t")
    props = {"hoodie.index.type": index, "write.small_file_limit_bytes": "0"}
    lakeshore.Table.create(path, SCHEMA, record_key="id", properties=props)
    out = run_processes([(overlapping_inserter, (path, w, k, 8)) for k, w in enumerate("ABC")])
    assert all(status == "ok" for status, _ in out.values()), out
    rows = lakeshore.Table.open(path).to_arrow(columns=["id", "who"]).to_pylist()
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)), sorted(ids)
    written = set().union(*(set(d) for _, d in out.values()))
    assert set(ids) == written
    for r in rows:
        assert any(d.get(r["id"]) == r["who"] for _, d in out.values()), r


@pytest.mark.parametrize("table_type", ["cow", "mor"])
@pytest.mark.parametrize("indexed", [False, True])
@pytest.mark.parametrize("phase", ["tagging", "writing", "committing"])
def test_a_write_that_read_a_write_rolled_back_meanwhile_conflicts(
    tmp_path: Path, table_type: str, indexed: bool, phase: str
) -> None:
    # An upsert began after W completed, so it merged into W's file; W was rolled back while the
    # upsert ran, and the upsert then committed that file: W's records were visible again. A
    # rollback before the upsert read W's file failed it with a bare "No such file" instead.
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])

    def rows(ids: list[int], v: str) -> pa.Table:
        return pa.table({"id": pa.array(ids, pa.int64()), "v": [v] * len(ids)}, schema=schema)

    path = str(tmp_path / "t")
    props = {"hoodie.metadata.enable": "true", "hoodie.index.type": "RECORD_INDEX"} if indexed else {}
    t = lakeshore.Table.create(path, schema, record_key="id", table_type=table_type, properties=props)
    t.insert(rows([1, 2, 3, 4], "seed"))
    w = t.upsert(rows([1], "W"))["instant_time"]
    writer, other = lakeshore.Table.open(path), lakeshore.Table.open(path)
    rolled: list[str] = []

    def roll_back_w(at: str, done: int, total: int, unit: str) -> None:
        if at == phase and not rolled:
            rolled.append(other.rollback(w))

    with pytest.raises(lakeshore.CommitConflictError, match="rolled back|undid"):
        writer.upsert(rows([2], "U"), progress=roll_back_w)
    assert rolled
    got = {r["id"]: r["v"] for r in lakeshore.Table.open(path).to_arrow(columns=["id", "v"]).to_pylist()}
    assert got == {1: "seed", 2: "seed", 3: "seed", 4: "seed"}
    writer.upsert(rows([2], "U"))  # the retry reads the table as it is
    got = {r["id"]: r["v"] for r in lakeshore.Table.open(path).to_arrow(columns=["id", "v"]).to_pylist()}
    assert got == {1: "seed", 2: "U", 3: "seed", 4: "seed"}


def test_an_upsert_whose_record_index_a_concurrent_overwrite_drops_conflicts(tmp_path: Path) -> None:
    # insert_overwrite drops the record index (the next write rebuilds it). An upsert tagging
    # with it meanwhile failed with CorruptMetadataError ("has no file groups"): the table was
    # fine, and a retry committed.
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("p", pa.string()), ("v", pa.string())])

    def rows(ids: list[int], v: str) -> pa.Table:
        return pa.table(
            {"id": pa.array(ids, pa.int64()), "p": [f"p{i % 2}" for i in ids], "v": [v] * len(ids)}, schema=schema
        )

    path = str(tmp_path / "t")
    props = {"hoodie.metadata.enable": "true", "hoodie.index.type": "RECORD_INDEX"}
    t = lakeshore.Table.create(path, schema, record_key="id", partition_by="p", properties=props)
    t.insert(rows(list(range(10)), "seed"))
    writer, other = lakeshore.Table.open(path), lakeshore.Table.open(path)
    fired: list[str] = []

    def overwrite_meanwhile(phase: str, done: int, total: int, unit: str) -> None:
        if not fired:
            fired.append(other.insert_overwrite(rows([0, 2], "OW"))["instant_time"])

    try:
        writer.upsert(rows([1, 3, 100], "U"), progress=overwrite_meanwhile)
    except lakeshore.CommitConflictError:
        writer.upsert(rows([1, 3, 100], "U"))  # the retry
    got = {r["id"]: r["v"] for r in lakeshore.Table.open(path).to_arrow(columns=["id", "v"]).to_pylist()}
    assert got[1] == got[3] == got[100] == "U" and got[0] == got[2] == "OW"
