"""hudi-rs (PyPI `hudi`, the reference Hudi reader) reads every table Lakeshore writes exactly as
Lakeshore reads it: the snapshot, time travel to every completed instant and incremental reads
between instants, meta columns included, after every step of random histories checked against
a dict oracle. Histories mix inserts, upserts, deletes and bulk inserts, composite keys,
partition values with special characters, nulls and empty strings, blob columns, and writes that fail and are
aborted (hudi-rs must never see them)."""

from __future__ import annotations

import datetime
import decimal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import lakeshore

hudi = pytest.importorskip("hudi")

SCHEMA = pa.schema(
    [
        pa.field("zone", pa.string()),  # the partition field (nullable: the null partition)
        pa.field("name", pa.string(), nullable=False),
        pa.field("n", pa.int32(), nullable=False),
        pa.field("ver", pa.int64()),
        pa.field("val", pa.string()),
        pa.field("at", pa.timestamp("us", tz="UTC")),
        pa.field("day", pa.date32()),
        pa.field("price", pa.decimal128(10, 2)),
        pa.field("tags", pa.list_(pa.string())),
        pa.field("photo", lakeshore.blob_type()),
    ]
)
# Partition values with Hive's special characters, non-ASCII, null and "" (both in the default
# folder, as Hudi's key generators lay them out: one partition, so one record per key there).
ZONES = ["eu", "us west", "a=b", "x/y", "50%", "ü", None, ""]
KEY = st.tuples(st.sampled_from(ZONES), st.sampled_from(["a", "b:c", "ü", ""]), st.integers(0, 5))
step = st.one_of(
    st.tuples(st.just("upsert"), st.lists(KEY, min_size=1, max_size=6)),
    st.tuples(st.just("insert"), st.lists(KEY, min_size=1, max_size=6, unique=True)),
    st.tuples(st.just("bulk_insert"), st.lists(KEY, min_size=1, max_size=6, unique=True)),
    st.tuples(st.just("delete"), st.lists(KEY, min_size=1, max_size=4, unique=True)),
    st.tuples(st.just("crashed"), st.lists(KEY, min_size=1, max_size=4, unique=True)),
    st.tuples(st.just("insert_overwrite"), st.lists(KEY, min_size=1, max_size=4, unique=True)),
    st.tuples(st.just("delete_partition"), st.lists(KEY, min_size=1, max_size=2, unique=True)),
    st.tuples(st.just("compact"), st.just([])),  # merge-on-read tables only
    st.tuples(st.just("cluster"), st.just([])),
)

# A writer process that dies after writing its files, before its commit.
CRASHING_WRITER = """
import os, sys, pyarrow as pa, lakeshore
t = lakeshore.Table.open(sys.argv[1])
data = pa.ipc.open_file(sys.argv[2]).read_all()
def die(phase, done, total, unit):
    if phase == "committing":
        os._exit(3)
t.upsert(data, progress=die)
"""


def _sorted(table: pa.Table) -> list[dict[str, Any]]:
    return sorted(table.to_pylist(), key=lambda r: (str(r["_hoodie_record_key"]), str(r["_hoodie_file_name"])))


def _hudi(root: Path, **options: str) -> pa.Table:
    t = hudi.HudiTable(str(root))
    read = hudi.HudiReadOptions()
    if "as_of" in options:
        read = read.with_as_of_timestamp(options["as_of"])
    if "start" in options:
        read = (
            read.with_query_type(hudi.HudiQueryType.Incremental)
            .with_start_timestamp(options["start"])
            .with_end_timestamp(options["end"])
        )
    batches = t.read(read)
    return pa.Table.from_batches(batches) if batches else pa.table({})


def _same(ours: pa.Table, theirs: pa.Table, what: str) -> None:
    if theirs.num_columns == 0:
        assert ours.num_rows == 0, what
        return
    assert ours.column_names == theirs.column_names, what
    assert _sorted(ours) == _sorted(theirs), what


def _blob(counter: int) -> dict[str, Any]:
    if counter % 2:
        return {"type": "INLINE", "data": f"bytes{counter}".encode(), "reference": None}
    ref = {"external_path": f"s3://blobs/{counter}.jpg", "offset": 0, "length": 10, "managed": counter % 3 == 0}
    return {"type": "OUT_OF_LINE", "data": None, "reference": ref}


def _folder(zone: str | None) -> str | None:
    """The partition a zone lands in: null and "" share the default folder."""
    return None if zone in (None, "") else zone


def _ident(zone: str | None, name: str, n: int) -> tuple[Any, ...]:
    """A record's identity: its partition and its record key."""
    return (_folder(zone), name, n)


def _check(t: lakeshore.Table, root: Path, oracle: dict[tuple[Any, ...], tuple[Any, ...]]) -> None:
    """`oracle` maps a record's identity to (its zone as written, ver, val)."""
    ours = t.to_arrow()
    got = {_ident(r["zone"], r["name"], r["n"]): (r["zone"], r["ver"], r["val"]) for r in ours.to_pylist()}
    assert got == oracle
    assert ours.num_rows == len(oracle)
    _same(ours, _hudi(root), "snapshot")
    writes = [
        i
        for i in t.timeline()
        if i["state"] == "completed" and i["action"] in ("commit", "deltacommit", "replacecommit")
    ]
    for i in writes:
        _same(t.to_arrow(as_of=i["completion_time"]), _hudi(root, as_of=i["completion_time"]), f"as_of {i}")
    bounds = ["19700101000000000"] + [i["completion_time"] for i in writes]
    for start, end in zip(bounds, bounds[1:], strict=False):
        _same(t.read_incremental(start, end), _hudi(root, start=start, end=end), f"incremental ({start}, {end}]")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(history=st.lists(step, min_size=1, max_size=5))
@example(
    history=[
        ("upsert", [("eu", "a", 1), (None, "b:c", 2), ("x/y", "ü", 3), ("50%", "a", 4)]),
        ("crashed", [("eu", "a", 1), ("a=b", "a", 5)]),
        ("upsert", [("eu", "a", 1), ("us west", "b:c", 6)]),
        ("delete", [(None, "b:c", 2), ("x/y", "ü", 3)]),
        ("bulk_insert", [("ü", "a", 7)]),
    ]
)
@example(
    history=[
        ("upsert", [("eu", "a", 1), (None, "b:c", 2), ("x/y", "ü", 3), ("eu", "b:c", 4)]),
        ("insert_overwrite", [("eu", "ü", 5), (None, "a", 6)]),
        ("delete_partition", [("x/y", "a", 0), (None, "a", 0)]),
        ("upsert", [("eu", "ü", 5), ("x/y", "a", 7)]),
    ]
)
@example(
    history=[
        ("upsert", [("eu", "a", 1), (None, "b:c", 2), ("x/y", "ü", 3)]),
        ("upsert", [("eu", "a", 1), (None, "b:c", 2)]),
        ("delete", [("x/y", "ü", 3)]),
        ("compact", []),
        ("upsert", [("eu", "a", 1), ("x/y", "ü", 3)]),
        ("cluster", []),
        ("upsert", [("eu", "a", 1), ("eu", "b:c", 4)]),
    ]
)
@example(
    history=[
        ("upsert", [("", "a", 1), (None, "b:c", 2), ("eu", "a", 1)]),
        ("upsert", [(None, "a", 1), ("", "a", 1)]),
        ("delete", [("", "b:c", 2)]),
        ("compact", []),
        ("insert_overwrite", [("", "ü", 3), (None, "ü", 3)]),
        ("delete_partition", [(None, "a", 0)]),
    ]
)
@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_hudi_rs_reads_what_lakeshore_wrote_after_every_step(
    table_type: str, history: list[tuple[str, list[Any]]]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "t"
        # Short heartbeats: a crashed writer's instant is rolled back by the next writer soon.
        props = {"write.heartbeat.interval_ms": "100", "write.heartbeat.tolerable_misses": "1"}
        t = lakeshore.Table.create(
            str(root),
            SCHEMA,
            record_key=["name", "n"],
            partition_by="zone",
            ordering_field="ver",
            table_type=table_type,
            properties=props,
        )
        oracle: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        written: set[str] = set()  # partition folders a completed write wrote in
        counter = 0
        for mode, keys in history:
            if mode == "delete":
                t.delete(pa.Table.from_pylist([{"zone": z, "name": a, "n": n} for z, a, n in keys]))
                for k in keys:
                    oracle.pop(_ident(*k), None)
            elif mode == "compact":
                if table_type == "MERGE_ON_READ":
                    t.compact()
            elif mode == "cluster":
                t.cluster(sort_by=["zone", "ver"])
            elif mode == "delete_partition":
                zones = {z for z, _, _ in keys}
                if any(_folder(z) not in written for z in zones):
                    # A partition never written is named, not skipped (a misspelt one would be).
                    with pytest.raises(lakeshore.InvalidArgumentError, match="was never written"):
                        t.delete_partitions([z for z in zones])
                else:
                    t.delete_partitions([z for z in zones])
                    oracle = {k: v for k, v in oracle.items() if k[0] not in {_folder(z) for z in zones}}
            else:
                if mode != "upsert":  # one row per record: "" and null of one key are one record
                    keys = list({_ident(*k): k for k in reversed(keys)}.values())[::-1]
                if mode in ("insert", "bulk_insert"):
                    keys = [k for k in keys if _ident(*k) not in oracle]  # insert semantics: new keys only
                    if not keys:
                        continue
                batch, rows = [], {}
                for zone, name, n in keys:
                    counter += 1
                    row = {"zone": zone, "name": name, "n": n, "ver": counter, "val": f"{mode}{counter}"}
                    row["photo"] = _blob(counter)
                    row["at"] = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(
                        seconds=counter
                    )
                    row["day"] = datetime.date(2026, 1, 1 + counter % 28)
                    row["price"] = decimal.Decimal(counter) / 100
                    row["tags"] = [f"t{counter}", "x"] if counter % 2 else None
                    batch.append(row)
                    rows[_ident(zone, name, n)] = (zone, counter, row["val"])
                data = pa.Table.from_pylist(batch, schema=SCHEMA)
                if mode == "crashed":
                    arrow_file = Path(tmp) / "batch.arrow"
                    with pa.ipc.new_file(arrow_file, SCHEMA) as sink:
                        sink.write_table(data)
                    done = subprocess.run([sys.executable, "-c", CRASHING_WRITER, str(root), str(arrow_file)])
                    assert done.returncode == 3
                    time.sleep(0.3)  # its heartbeat expires
                    assert any(i["state"] != "completed" for i in t.timeline())  # left pending
                else:
                    t.write(data, mode)
                    written.update(_folder(z) for z, _, _ in keys)
                    if mode == "insert_overwrite":  # the records' partitions hold just them
                        folders = {_folder(z) for z, _, _ in keys}
                        oracle = {k: v for k, v in oracle.items() if k[0] not in folders}
                    oracle.update(rows)
            _check(t, root, oracle)
        # A reopened table and hudi-rs agree too.
        _same(lakeshore.Table.open(str(root)).to_arrow(), _hudi(root), "reopened")


def test_after_archival_hudi_rs_and_every_instant_read_as_before(tmp_path: Path) -> None:
    # Archival moves old instants into Hudi 1.x's LSM history: hudi-rs still reads the table, and
    # Lakeshore reads every instant (archived ones included) as it did before.
    root = tmp_path / "t"
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
    t = lakeshore.Table.create(str(root), schema, record_key="id")
    before: dict[str, list[dict[str, Any]]] = {}
    for i in range(12):
        t.upsert(pa.table({"id": [i % 4, 100 + i], "v": [f"u{i}", "n"]}, schema=schema))
        before[t.timeline()[-1]["time"]] = _sorted(t.to_arrow())
    result = t.archive(keep_min_commits=4, keep_max_commits=6)
    assert len(result["archived_instants"]) == 8 and result["manifest_version"] == 1
    assert (root / ".hoodie" / "timeline" / "history" / "_version_").read_text() == "1"
    assert len([i for i in t.timeline() if i["state"] == "completed"]) == 4
    for instant, rows in before.items():
        assert _sorted(t.to_arrow(as_of=instant)) == rows, instant
    _same(t.to_arrow(), _hudi(root), "hudi-rs after archival")
    # The CLI says the same, and a second archival has nothing to move.
    out = subprocess.run(
        [
            str(Path(sys.executable).parent / "lakeshore"),
            "archive",
            str(root),
            "--keep-min",
            "4",
            "--keep-max",
            "6",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert '"archived_instants": []' in out.stdout
    t.upsert(pa.table({"id": [1], "v": ["last"]}, schema=schema))
    _same(t.to_arrow(), _hudi(root), "hudi-rs after a write to the archived table")


@pytest.mark.parametrize("damage", ["", "{}", '{"files": []}', None])
def test_an_archive_manifest_naming_no_files_is_corrupt_and_vacuum_deletes_nothing(
    tmp_path: Path, damage: str | None
) -> None:
    # An emptied manifest read as "nothing archived": the table read 1 of 6 rows and a vacuum
    # dry run offered the archived writes' live base files. A missing one (None) was a
    # StorageError, though damage to the archived timeline is CorruptMetadata.
    root = tmp_path / "t"
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
    t = lakeshore.Table.create(str(root), schema, record_key="id", partition_by="v")
    for i in range(6):
        t.insert(pa.table({"id": [i], "v": [f"p{i}"]}, schema=schema))
    assert len(t.archive(keep_min_commits=1, keep_max_commits=2)["archived_instants"]) == 5
    history = root / ".hoodie" / "timeline" / "history"
    manifest = history / f"manifest_{(history / '_version_').read_text().strip()}"
    if damage is None:
        manifest.unlink()
    else:
        manifest.write_text(damage)
    for attempt in (lambda: lakeshore.Table.open(str(root)).to_arrow(), lambda: t.to_arrow()):
        with pytest.raises(lakeshore.CorruptMetadataError, match="manifest_1"):
            attempt()
    before = sorted(p for p in root.rglob("*.parquet"))
    with pytest.raises(lakeshore.CorruptMetadataError, match="manifest_1"):
        lakeshore.vacuum(str(root), retain_hours=0, enforce_retention=False)
    assert sorted(p for p in root.rglob("*.parquet")) == before


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_writes_archive_automatically_past_keep_max_and_every_instant_reads_as_before(
    tmp_path: Path, table_type: str
) -> None:
    # Hudi's hoodie.archive.automatic (on by default): a write that leaves more than
    # hoodie.keep.max.commits completed writes active archives down to hoodie.keep.min.commits,
    # and nothing of the history is lost (the archived timeline is read with the active one).
    root = tmp_path / "t"
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
    keep = {"hoodie.keep.min.commits": "3", "hoodie.keep.max.commits": "5", "hoodie.metadata.enable": "true"}
    t = lakeshore.Table.create(str(root), schema, record_key="id", table_type=table_type, properties=keep)
    before: dict[str, list[dict[str, Any]]] = {}
    archived: list[str] = []
    for i in range(13):
        r = t.upsert(pa.table({"id": [i % 4, 100 + i], "v": [f"u{i}", "n"]}, schema=schema))
        before[r["instant_time"]] = _sorted(t.to_arrow())
        writes = ("commit", "deltacommit", "replacecommit")
        active = [x for x in t.timeline() if x["state"] == "completed" and x["action"] in writes]
        if r["active_write_instants"] <= 5:
            assert r["archived_instants"] == [], (i, r)
        else:
            # The count that made it due is the one the write saw, and the archival keeps three.
            assert r["active_write_instants"] == 6 and len(r["archived_instants"]) == 3, (i, r)
            archived += r["archived_instants"]
        assert len(active) <= 5, (i, active)
    assert len(archived) == 9 and (root / ".hoodie" / "timeline" / "history" / "_version_").exists()
    for instant, rows in before.items():
        assert _sorted(t.to_arrow(as_of=instant)) == rows, instant
    _same(t.to_arrow(), _hudi(root), "hudi-rs after automatic archivals")
    _same(lakeshore.Table.open(str(root)).to_arrow(), _hudi(root), "reopened")
    # Off, as Hudi's hoodie.archive.automatic=false: the active timeline grows until archive().
    off = lakeshore.Table.open(str(root), properties={"hoodie.archive.automatic": "false"})
    for i in range(4):
        r = off.upsert(pa.table({"id": [i], "v": ["off"]}, schema=schema))
        assert r["archived_instants"] == []
    assert r["active_write_instants"] == 8
    assert len(off.archive()["archived_instants"]) == 5


def test_savepoints_are_hudis_and_hold_archival_back(tmp_path: Path) -> None:
    root = tmp_path / "t"
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
    t = lakeshore.Table.create(str(root), schema, record_key="id")
    for i in range(6):
        t.upsert(pa.table({"id": [i], "v": [f"v{i}"]}, schema=schema))
    writes = [i["time"] for i in t.timeline()]
    sp = t.savepoint(writes[1], user="ana", comment="keep")
    assert (sp["instant_time"], sp["user"], sp["comment"], sp["files"]) == (writes[1], "ana", "keep", 1)
    # Hudi's files: the savepoint shares its commit's instant time.
    names = sorted(p.name for p in (root / ".hoodie" / "timeline").iterdir() if "savepoint" in p.name)
    assert names[0] == f"{writes[1]}.savepoint.inflight" and names[1].startswith(f"{writes[1]}_")
    _same(t.to_arrow(), _hudi(root), "hudi-rs with a savepoint")
    assert t.archive(keep_min_commits=1, keep_max_commits=2)["archived_instants"] == [writes[0]]
    cli = str(Path(sys.executable).parent / "lakeshore")
    listed = subprocess.run([cli, "savepoint", "list", str(root), "--json"], capture_output=True, text=True, check=True)
    assert writes[1] in listed.stdout
    subprocess.run([cli, "savepoint", "delete", str(root), writes[1]], capture_output=True, check=True)
    assert t.savepoints() == []
    assert t.archive(keep_min_commits=1, keep_max_commits=2)["archived_instants"] == writes[1:5]
    with pytest.raises(lakeshore.LakeshoreError, match="not a completed commit"):
        t.savepoint("20000101000000000")


def test_a_rolled_back_write_vanishes_for_hudi_rs_too(tmp_path: Path) -> None:
    root = tmp_path / "t"
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
    t = lakeshore.Table.create(str(root), schema, record_key="id")
    t.upsert(pa.table({"id": [1, 2], "v": ["a", "b"]}, schema=schema))
    before = _sorted(t.to_arrow())
    r = t.insert_overwrite_table(pa.table({"id": [3], "v": ["c"]}, schema=schema))
    cli = str(Path(sys.executable).parent / "lakeshore")
    done = subprocess.run([cli, "rollback", str(root), r["instant_time"], "--json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert _sorted(t.to_arrow()) == before
    _same(t.to_arrow(), _hudi(root), "hudi-rs after a rollback of a replacecommit")
    actions = [(i["action"], i["state"]) for i in t.timeline()]
    assert actions == [("commit", "completed"), ("rollback", "completed")]
    t.upsert(pa.table({"id": [2], "v": ["b2"]}, schema=schema))
    _same(t.to_arrow(), _hudi(root), "hudi-rs after a write on top")


def test_a_restore_to_a_savepoint_reads_the_same_in_hudi_rs(tmp_path: Path) -> None:
    root = tmp_path / "t"
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("zone", pa.string())])
    t = lakeshore.Table.create(str(root), schema, record_key="id", partition_by="zone")
    t.upsert(pa.table({"id": [1, 2], "zone": ["a", "b"]}, schema=schema))
    saved = t.timeline()[-1]["time"]
    then = _sorted(t.to_arrow())
    t.savepoint(saved)
    t.upsert(pa.table({"id": [3], "zone": ["a"]}, schema=schema))
    t.insert_overwrite(pa.table({"id": [4], "zone": ["b"]}, schema=schema))
    t.delete_partitions(["a"])
    cli = str(Path(sys.executable).parent / "lakeshore")
    done = subprocess.run([cli, "restore", str(root), saved, "--json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert _sorted(t.to_arrow()) == then
    _same(t.to_arrow(), _hudi(root), "hudi-rs after a restore")
    assert [i["action"] for i in t.timeline() if i["action"] == "restore"] == ["restore"]
    t.upsert(pa.table({"id": [5], "zone": ["c"]}, schema=schema))
    _same(t.to_arrow(), _hudi(root), "hudi-rs after a write on the restored table")


def test_schema_evolution_adds_widens_and_reorders_and_refuses_the_rest(tmp_path: Path) -> None:
    root = tmp_path / "t"
    v1 = pa.schema(
        [
            pa.field("id", pa.int64(), nullable=False),
            pa.field("n", pa.int32()),
            pa.field("f", pa.float32()),
            pa.field("v", pa.string()),
        ]
    )
    t = lakeshore.Table.create(str(root), v1, record_key="id")
    t.upsert(pa.table({"id": [1, 2], "n": [10, 20], "f": [1.5, 2.5], "v": ["a", "b"]}, schema=v1))
    before = t.timeline()[-1]["time"]
    stale = lakeshore.Table.open(str(root))  # opened before the change
    v2 = pa.schema(
        [
            pa.field("id", pa.int64(), nullable=False),
            pa.field("note", pa.string()),
            pa.field("v", pa.string()),
            pa.field("n", pa.int64()),
            pa.field("f", pa.float64()),
        ]
    )
    t.evolve_schema(v2)
    assert t.schema == v2
    # A writer that still has the old schema would undo the change: it must reopen.
    with pytest.raises(lakeshore.CommitConflictError, match="reopen"):
        stale.upsert(pa.table({"id": [9], "n": [9], "f": [9.0], "v": ["z"]}, schema=v1))
    assert [i["action"] for i in t.timeline()] == ["commit", "commit"]
    rows = sorted(t.to_arrow(columns=["id", "note", "n", "f"]).to_pylist(), key=lambda r: r["id"])
    assert rows == [{"id": 1, "note": None, "n": 10, "f": 1.5}, {"id": 2, "note": None, "n": 20, "f": 2.5}]
    t.upsert(
        pa.table({"id": [2, 3], "note": ["x", "y"], "v": ["b2", "c"], "n": [2**40, 3], "f": [0.25, 3.0]}, schema=v2)
    )
    got = {r["id"]: (r["note"], r["n"]) for r in t.to_arrow().to_pylist()}
    assert got == {1: (None, 10), 2: ("x", 2**40), 3: ("y", 3)}
    reopened = lakeshore.Table.open(str(root))
    assert reopened.schema == v2
    assert sorted(reopened.to_arrow(as_of=before).column("id").to_pylist()) == [1, 2]
    _same(reopened.to_arrow(), _hudi(root), "hudi-rs after a schema evolution")
    # What cannot be read back under the new schema is refused, and nothing is committed.
    count = len(t.timeline())
    for bad in (
        pa.schema([f for f in v2 if f.name != "note"]),  # a dropped column
        v2.set(3, pa.field("n", pa.int32())),  # narrowed
        v2.set(2, pa.field("v", pa.int64())),  # retyped
        v2.append(pa.field("must", pa.string(), nullable=False)),  # a new non-nullable column
    ):
        with pytest.raises(lakeshore.SchemaMismatchError):
            t.evolve_schema(bad)
    # Names a new table could not have are refused too: a meta column's (accepted before, and
    # the table then refused every write), a name twice (reported as "drops column 'v'"), and
    # names differing only in case, which Spark and Trino match case-insensitively.
    for bad, why in (
        (v2.append(pa.field("_hoodie_record_key", pa.string())), "reserved prefix _hoodie_"),
        (v2.append(pa.field("v", pa.string())), "'v' appears more than once"),
        (v2.append(pa.field("V", pa.string())), "'v' and 'V' differ only in case"),
        (
            v2.append(pa.field("s", pa.struct([("a", pa.int32()), ("A", pa.int32())]))),
            "'s.a' and 's.A' differ only in case",
        ),
        (
            v2.append(pa.field("ls", pa.list_(pa.struct([("a", pa.int32()), ("A", pa.int32())])))),
            "'ls.a' and 'ls.A' differ only in case",
        ),
    ):
        with pytest.raises(lakeshore.LakeshoreError, match=why):
            t.evolve_schema(bad)
        with pytest.raises(lakeshore.LakeshoreError, match=why):
            lakeshore.Table.create(str(tmp_path / "other"), bad, record_key="id")
    assert len(t.timeline()) == count


def test_merge_on_read_merges_log_files_across_schema_versions(tmp_path: Path) -> None:
    root = tmp_path / "t"
    v1 = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("n", pa.int32()), pa.field("v", pa.string())])
    props = {"write.small_file_limit_bytes": "0"}  # updates go to log files, not into the base
    t = lakeshore.Table.create(str(root), v1, record_key="id", table_type="mor", properties=props)
    t.insert(pa.table({"id": [1, 2, 3], "n": [10, 20, 30], "v": ["a", "b", "c"]}, schema=v1))
    t.upsert(pa.table({"id": [1], "n": [11], "v": ["a1"]}, schema=v1))  # a log block under v1
    v2 = pa.schema(
        [
            pa.field("id", pa.int64(), nullable=False),
            pa.field("v", pa.string()),
            pa.field("n", pa.int64()),
            pa.field("note", pa.string()),
        ]
    )
    # Widening n while a log block holds it as int32 would leave a table Hudi's readers cannot
    # merge: refused until a compaction folded the logs into base files.
    with pytest.raises(lakeshore.UnsupportedFeatureError, match="compact the table first"):
        t.evolve_schema(v2)
    t.evolve_schema(pa.schema([*v1, pa.field("note", pa.string())]))  # adding a column is fine
    t.upsert(pa.table({"id": [3], "n": [31], "v": ["c1"], "note": [None]}))  # a log block under v1 + note
    assert t.compact()["completed"]
    t.evolve_schema(v2)
    t.upsert(pa.table({"id": [2], "v": ["b2"], "n": [2**40], "note": ["x"]}, schema=v2))  # a log block under v2
    expected = {1: ("a1", 11, None), 2: ("b2", 2**40, "x"), 3: ("c1", 31, None)}

    def read(table: pa.Table) -> dict[int, tuple[Any, ...]]:
        return {r["id"]: (r["v"], r["n"], r["note"]) for r in table.to_pylist()}

    assert read(t.to_arrow()) == expected
    assert read(_hudi(root).select(["id", "v", "n", "note"])) == expected
    assert t.compact()["completed"]
    assert read(t.to_arrow()) == expected
    assert read(t.to_arrow(read_optimized=True)) == expected
    assert read(_hudi(root).select(["id", "v", "n", "note"])) == expected


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_reading_only_an_added_column_returns_every_row(tmp_path: Path, table_type: str) -> None:
    # Base files written before the column was added hold none of the asked columns: the read
    # returned no rows from them (with one more column, every row).
    root = tmp_path / "t"
    s = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.int32())])
    t = lakeshore.Table.create(str(root), s, record_key="id", table_type=table_type)
    t.bulk_insert(pa.table({"id": [1, 2, 3], "v": [1, 2, 3]}, schema=s))
    t.evolve_schema(pa.schema([*s, pa.field("new", pa.string())]))
    assert t.to_arrow(columns=["new"]).column("new").to_pylist() == [None] * 3
    assert t.to_arrow(columns=["new"], filter=[("new", "=", None)]).num_rows == 3
    assert t.to_arrow(columns=["new"], read_optimized=table_type == "mor").num_rows == 3
    with pytest.raises(lakeshore.LakeshoreError, match="column 'v' is asked for more than once"):
        t.to_arrow(columns=["v", "v"], filter=[("id", "=", 1)])


def _float_table(root: Path, table_type: str, other: pa.Field, **create: Any) -> tuple[lakeshore.Table, pa.Schema]:
    """A table of `id`, `other` and a float32 column `f`, with column stats: what a widening of
    `f` to double meets."""
    s1 = pa.schema([pa.field("id", pa.int64(), nullable=False), other, pa.field("f", pa.float32())])
    props = {"hoodie.metadata.index.column.stats.enable": "true"}
    return lakeshore.Table.create(str(root), s1, record_key="id", table_type=table_type, properties=props, **create), s1


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_a_float_widened_to_double_reads_as_hudi_and_hudi_rs_read_it(tmp_path: Path, table_type: str) -> None:
    # Found by outside testing: a float stored before the widening read 0.10000000149011612
    # (Arrow's exact cast); Hudi (HoodieAvroUtils: Double.valueOf(value + "")) and hudi-rs read
    # 0.1, and a COW rewrite stored the other value for good.
    root = tmp_path / "t"
    t, s1 = _float_table(root, table_type, pa.field("p", pa.string()), partition_by="p")
    floats = [0.1, 1 / 3, -2.5e-7, 3.4e38, float("inf"), -0.0]
    t.insert(
        pa.table({"id": list(range(6)), "p": ["a"] * 3 + ["b"] * 3, "f": pa.array(floats, pa.float32())}, schema=s1)
    )
    s2 = pa.schema([s1[0], s1[1], pa.field("f", pa.float64())])
    t.evolve_schema(s2)
    t.upsert(pa.table({"id": [5], "p": ["b"], "f": [0.2]}, schema=s2))  # partition a is not rewritten
    expected = {0: 0.1, 1: 0.33333334, 2: -2.5e-7, 3: 3.4e38, 4: float("inf"), 5: 0.2}
    ours = {r["id"]: r["f"] for r in t.to_arrow(columns=["id", "f"]).to_pylist()}
    assert ours == expected
    theirs = {r["id"]: r["f"] for r in _hudi(root).select(["id", "f"]).to_pylist()}
    assert theirs == expected
    # The file's float bounds widen as its values: the filter finds the row, pruning or not.
    assert t.to_arrow(columns=["id"], filter=[("f", "=", 0.1)]).column("id").to_pylist() == [0]
    assert t.to_arrow(columns=["id"], filter=[("f", "in", [0.33333334, 3.4e38])]).column("id").to_pylist() == [1, 3]
    if table_type == "mor":
        assert t.compact()["completed"]
    t.upsert(pa.table({"id": [2], "p": ["a"], "f": [-1.0]}, schema=s2))  # now partition a is rewritten
    expected[2] = -1.0
    assert {r["id"]: r["f"] for r in t.to_arrow(columns=["id", "f"]).to_pylist()} == expected
    assert {r["id"]: r["f"] for r in _hudi(root).select(["id", "f"]).to_pylist()} == expected


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_a_widened_float_prunes_and_orders_as_it_reads(tmp_path: Path, table_type: str) -> None:
    # Found by outside testing of the fix above: the metadata table's column_stats gave a float
    # file's bounds as their exact doubles, so f = 0.1 pruned the file holding 0.1f (read 0.1);
    # and a merge-on-read merge ordered a stored 0.1f above a later 0.1, dropping the update.
    root = tmp_path / "t"
    t, s1 = _float_table(root, table_type, pa.field("v", pa.string()), ordering_field="f")
    t.bulk_insert(pa.table({"id": [1], "f": pa.array([0.1], pa.float32()), "v": ["old"]}, schema=s1))
    t.bulk_insert(pa.table({"id": [2], "f": pa.array([5.0], pa.float32()), "v": ["old"]}, schema=s1))
    s2 = pa.schema([s1[0], s1[1], pa.field("f", pa.float64())])
    t.evolve_schema(s2)
    for op, value, wanted in [("=", 0.1, [1]), ("<=", 0.1, [1]), ("in", [0.1], [1]), (">=", 0.1, [1, 2])]:
        got = sorted(t.to_arrow(columns=["id"], filter=[("f", op, value)]).column("id").to_pylist())
        assert got == wanted, (op, value, got)
    t.upsert(pa.table({"id": [1, 2], "f": [0.1, 5.0000000001], "v": ["new", "new"]}, schema=s2))
    expected = {1: "new", 2: "new"}  # a tie goes to the incoming row
    assert {r["id"]: r["v"] for r in t.to_arrow(columns=["id", "v"]).to_pylist()} == expected
    assert {r["id"]: r["v"] for r in _hudi(root).select(["id", "v"]).to_pylist()} == expected
    if table_type == "mor":
        assert t.compact()["completed"]
        assert {r["id"]: r["v"] for r in t.to_arrow(columns=["id", "v"]).to_pylist()} == expected


def test_a_column_made_nullable_takes_nulls(tmp_path: Path) -> None:
    # evolve_schema committed the change and hudi-rs saw it, but the table kept the base
    # file's NOT NULL and refused a null.
    root = tmp_path / "t"
    key = pa.field("id", pa.int64(), nullable=False)
    s = pa.schema([key, pa.field("v", pa.int32(), nullable=False)])
    t = lakeshore.Table.create(str(root), s, record_key="id")
    t.bulk_insert(pa.table({"id": [1, 2], "v": [5, 6]}, schema=s))
    relaxed = pa.schema([key, pa.field("v", pa.int32())])
    t.evolve_schema(relaxed)
    assert t.schema.field("v").nullable and lakeshore.Table.open(str(root)).schema.field("v").nullable
    t.upsert(pa.table({"id": [2], "v": [None]}, schema=relaxed))
    assert sorted(t.to_arrow(columns=["id", "v"]).to_pylist(), key=lambda r: r["id"]) == [
        {"id": 1, "v": 5},
        {"id": 2, "v": None},
    ]
    _same(t.to_arrow(), _hudi(root), "hudi-rs after the null")


def test_a_table_opened_before_another_writer_widened_a_column_says_reopen(tmp_path: Path) -> None:
    # The stale object read a new double 0.1 as float 0.10000000149, and an int64 beyond int32
    # as "corrupt": it now says the schema changed, and a reopened table reads exact values.
    root = tmp_path / "t"
    key = pa.field("id", pa.int64(), nullable=False)
    s = pa.schema([key, pa.field("f", pa.float32()), pa.field("v", pa.int32())])
    a = lakeshore.Table.create(str(root), s, record_key="id")
    a.bulk_insert(pa.table({"id": [1], "f": [1.0], "v": [1]}, schema=s))
    stale = lakeshore.Table.open(str(root))
    wide = pa.schema([key, pa.field("f", pa.float64()), pa.field("v", pa.int64())])
    a.evolve_schema(wide)
    a.upsert(pa.table({"id": [2], "f": [0.1], "v": [2**40]}, schema=wide))
    for read in (lambda: stale.to_arrow(), lambda: stale.to_arrow(as_of=a.timeline()[0]["time"])):
        with pytest.raises(lakeshore.SchemaMismatchError, match="changed since it was opened"):
            read()
    rows = {r["id"]: r for r in lakeshore.Table.open(str(root)).to_arrow().to_pylist()}
    assert (rows[2]["f"], rows[2]["v"]) == (0.1, 2**40)
    # A write that leaves the schema as it was leaves tables opened before it reading.
    same = lakeshore.Table.open(str(root))
    a.upsert(pa.table({"id": [3], "f": [0.5], "v": [3]}, schema=wide))
    assert same.to_arrow().num_rows == 3


def test_many_partition_fields_keep_every_tuple_in_its_own_folder(tmp_path: Path) -> None:
    # 33 fields of three values each: the tuple's one 64-bit number wrapped, a row with c0='b'
    # went to c0=a/..., a filter missed it, an upsert stored it twice and a delete left a copy.
    k = 33
    s = pa.schema([pa.field("id", pa.int64(), False)] + [pa.field(f"c{i}", pa.string()) for i in range(k)])
    t = lakeshore.Table.create(str(tmp_path / "t"), s, record_key="id", partition_by=[f"c{i}" for i in range(k)])
    first, rest = ["a", "b", "c", "c"], ["x", "x", "y", "z"]
    rows = [{"id": r, "c0": first[r], **{f"c{i}": rest[r] for i in range(1, k)}} for r in range(4)]
    t.bulk_insert(pa.Table.from_pylist(rows, schema=s))
    stored = {r["id"]: r["_hoodie_partition_path"] for r in t.to_arrow().to_pylist()}
    assert [stored[r].split("/")[0] for r in range(4)] == ["c0=a", "c0=b", "c0=c", "c0=c"]
    assert t.to_arrow(filter=[("c0", "=", "b")]).column("id").to_pylist() == [1]
    t.upsert(pa.Table.from_pylist([rows[1]], schema=s))
    t.delete([1])
    assert sorted(t.to_arrow().column("id").to_pylist()) == [0, 2, 3]


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_a_blob_column_added_by_evolution_takes_blobs_and_nulls(tmp_path: Path, table_type: str) -> None:
    # Records written before the column have no value for it: they were given Arrow's null
    # struct, whose non-nullable children (type, managed, ...) held nulls too, and the Parquet
    # writer refused every later write that rewrote them ("Column 'type' is declared
    # non-nullable but contains nulls").
    v1 = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.int32())])
    v2 = v1.append(pa.field("doc", lakeshore.blob_type()))
    t = lakeshore.Table.create(str(tmp_path / "t"), v1, record_key="id", table_type=table_type)
    t.insert(pa.table({"id": [1], "v": pa.array([1], pa.int32())}, schema=v1))
    t.evolve_schema(v2)
    t = lakeshore.Table.open(str(tmp_path / "t"))
    inline = {"type": "INLINE", "data": b"x", "reference": None}
    t.upsert(pa.table({"id": [2, 3], "v": pa.array([2, 3], pa.int32()), "doc": [inline, None]}, schema=v2))
    t.upsert(pa.table({"id": [1], "v": pa.array([10], pa.int32()), "doc": [None]}, schema=v2))
    if table_type == "mor":
        assert t.compact()["completed"]
    got = t.to_arrow(columns=["id", "v", "doc"]).sort_by("id").to_pylist()
    assert [(r["id"], r["v"], r["doc"]) for r in got] == [(1, 10, None), (2, 2, inline), (3, 3, None)]
    theirs = pa.Table.from_batches(hudi.HudiTable(str(tmp_path / "t")).read())
    assert sorted(theirs.column("id").to_pylist()) == [1, 2, 3]


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_an_empty_partition_value_lives_where_hudis_key_generators_put_it(tmp_path: Path, table_type: str) -> None:
    """Hudi's key generators (KeyGenUtils) put an empty partition value in the default folder,
    beside null: a Hudi writer upserting such a record looks for it there. Filters still tell
    "" from null, and an upsert finds the record it updates."""
    schema = pa.schema(
        [pa.field("id", pa.int64(), nullable=False), pa.field("zone", pa.string()), pa.field("v", pa.int64())]
    )
    root = tmp_path / "t"
    t = lakeshore.Table.create(str(root), schema, record_key="id", partition_by="zone", table_type=table_type)
    # The default folder's own name as a value lands there too (its text needs no escaping).
    default = "__HIVE_DEFAULT_PARTITION__"
    rows = [{"id": 1, "zone": "", "v": 1}, {"id": 2, "zone": None, "v": 1}, {"id": 3, "zone": "eu", "v": 1}]
    t.upsert(pa.Table.from_pylist([*rows, {"id": 5, "zone": default, "v": 1}], schema=schema))
    t.upsert(pa.Table.from_pylist([{"id": 1, "zone": "", "v": 2}], schema=schema))
    folders = sorted(p.name for p in root.iterdir() if not p.name.startswith("."))
    assert folders == ["zone=__HIVE_DEFAULT_PARTITION__", "zone=eu"]
    got = t.to_arrow()
    assert sorted((r["id"], r["zone"], r["v"]) for r in got.to_pylist()) == [
        (1, "", 2),
        (2, None, 1),
        (3, "eu", 1),
        (5, default, 1),
    ]
    paths = {r["id"]: r["_hoodie_partition_path"] for r in got.to_pylist()}
    assert paths == {1: f"zone={default}", 2: f"zone={default}", 3: "zone=eu", 5: f"zone={default}"}
    _same(got, _hudi(root), "snapshot")

    def ids(*predicate: Any) -> list[int]:
        return sorted(t.to_arrow(columns=["id"], filter=[predicate]).column("id").to_pylist())

    # "= '__HIVE_DEFAULT_PARTITION__'" found nothing: the folder was taken for nulls only.
    assert ids("zone", "=", default) == [5]
    assert ids("zone", "=", "") == [1]
    assert ids("zone", "=", None) == [2]
    assert ids("zone", "!=", "") == [3, 5]
    assert ids("zone", "!=", None) == [1, 3, 5]
    assert ids("zone", "in", ["", None]) == [1, 2]
    assert ids("zone", "in", [""]) == [1]
    assert ids("zone", "in", [default, "eu"]) == [3, 5]
    assert ids("zone", "not in", [""]) == [3, 5]
    assert ids("zone", ">=", "") == [1, 3, 5]
    assert ids("zone", "<", "eu") == [1, 5]
    assert ids("zone", ">", "eu") == []
    assert ids("zone", "=", "eu") == [3]
    # Deleting by key finds the record in the default folder; dropping that partition drops all.
    t.delete([1])
    assert sorted(t.to_arrow(columns=["id"]).column("id").to_pylist()) == [2, 3, 5]
    t.upsert(pa.Table.from_pylist([{"id": 4, "zone": "", "v": 1}], schema=schema))
    t.delete_partitions([""])
    assert t.to_arrow(columns=["id"]).column("id").to_pylist() == [3]
    _same(t.to_arrow(), _hudi(root), "after the partition was dropped")


def test_a_plain_partitioned_table_takes_an_empty_value_into_the_default_folder(tmp_path: Path) -> None:
    """A table that does not url-encode its paths (as Spark may write one) refused "" (no folder
    name); Hudi writes it to the default folder, and so do we."""
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("zone", pa.string())])
    root = tmp_path / "t"
    lakeshore.Table.create(str(root), schema, record_key="id", partition_by="zone")
    props = root / ".hoodie" / "hoodie.properties"  # its checksum covers the table's name only
    text = props.read_text().replace("hive_style_partitioning=true", "hive_style_partitioning=false")
    props.write_text(text.replace("partitionpath.urlencode=true", "partitionpath.urlencode=false"))
    t = lakeshore.Table.open(str(root))
    t.upsert(
        pa.Table.from_pylist([{"id": 1, "zone": ""}, {"id": 2, "zone": "eu"}, {"id": 3, "zone": None}], schema=schema)
    )
    assert sorted(p.name for p in root.iterdir() if not p.name.startswith(".")) == ["__HIVE_DEFAULT_PARTITION__", "eu"]
    assert t.to_arrow(columns=["id"], filter=[("zone", "=", "")]).column("id").to_pylist() == [1]
    assert t.to_arrow(columns=["id"], filter=[("zone", "=", None)]).column("id").to_pylist() == [3]
    _same(t.to_arrow(), _hudi(root), "snapshot")


def test_empty_record_key_values_are_keyed_as_hudis_key_generators_key_them(tmp_path: Path) -> None:
    """KeyGenUtils: a composite key writes an empty value as `__empty__`, so a Hudi writer's
    upsert of the same record finds it; an empty plain key is refused, as Hudi refuses it."""
    schema = pa.schema(
        [
            pa.field("a", pa.string(), nullable=False),
            pa.field("b", pa.string(), nullable=False),
            pa.field("v", pa.int64()),
        ]
    )
    root = tmp_path / "composite"
    t = lakeshore.Table.create(str(root), schema, record_key=["a", "b"])
    t.upsert(pa.Table.from_pylist([{"a": "", "b": "y", "v": 1}, {"a": "x", "b": "", "v": 1}], schema=schema))
    t.upsert(pa.Table.from_pylist([{"a": "", "b": "y", "v": 2}], schema=schema))
    got = {r["_hoodie_record_key"]: r["v"] for r in t.to_arrow().to_pylist()}
    assert got == {"a:__empty__,b:y": 2, "a:x,b:__empty__": 1}
    _same(t.to_arrow(), _hudi(root), "snapshot")
    with pytest.raises(lakeshore.SchemaMismatchError, match="all null or empty in row 0"):
        t.upsert(pa.Table.from_pylist([{"a": "", "b": "", "v": 1}], schema=schema))
    nullable = pa.schema([pa.field("a", pa.string()), pa.field("b", pa.string()), pa.field("v", pa.int64())])
    t2 = lakeshore.Table.create(str(tmp_path / "nullable"), nullable, record_key=["a", "b"])
    t2.upsert(pa.Table.from_pylist([{"a": None, "b": "y", "v": 1}, {"a": "", "b": "y", "v": 1}], schema=nullable))
    t2.upsert(pa.Table.from_pylist([{"a": None, "b": "y", "v": 2}], schema=nullable))
    got = {r["_hoodie_record_key"]: r["v"] for r in t2.to_arrow().to_pylist()}
    assert got == {"a:__null__,b:y": 2, "a:__empty__,b:y": 1}
    t2.delete([(None, "y")])
    assert t2.to_arrow(columns=["a"]).column("a").to_pylist() == [""]
    _same(t2.to_arrow(), _hudi(tmp_path / "nullable"), "nullable keys")
    with pytest.raises(lakeshore.SchemaMismatchError, match="placeholder"):
        t.upsert(pa.Table.from_pylist([{"a": "__empty__", "b": "y", "v": 1}], schema=schema))
    plain = lakeshore.Table.create(str(tmp_path / "plain"), schema, record_key="a")
    with pytest.raises(lakeshore.SchemaMismatchError, match="'a' is empty in row 1"):
        plain.upsert(pa.Table.from_pylist([{"a": "x", "b": "", "v": 1}, {"a": "", "b": "", "v": 1}], schema=schema))
    assert plain.to_arrow().num_rows == 0


def test_a_complex_key_generator_over_one_field_keys_as_the_table_says(tmp_path: Path) -> None:
    """HUDI-7001: Hudi's COMPLEX key generator over one record key field writes `id:1` at table
    version 9 (and where hoodie.table.complex.keygen.encoding says FIELD_PREFIXED), `1` where it
    says VALUE_ONLY; a version-8 table without the key cannot say, and is not written."""
    schema = pa.schema(
        [pa.field("id", pa.int64(), nullable=False), pa.field("p", pa.string()), pa.field("v", pa.int64())]
    )
    root = tmp_path / "t"
    lakeshore.Table.create(str(root), schema, record_key="id", partition_by="p")
    props = root / ".hoodie" / "hoodie.properties"  # its checksum covers the table's name only
    simple = props.read_text()
    props.write_text(simple.replace("keygenerator.type=SIMPLE", "keygenerator.type=COMPLEX"))
    t = lakeshore.Table.open(str(root))
    t.upsert(pa.Table.from_pylist([{"id": 1, "p": "a", "v": 1}], schema=schema))
    t.upsert(pa.Table.from_pylist([{"id": 1, "p": "a", "v": 2}], schema=schema))
    assert [(r["_hoodie_record_key"], r["v"]) for r in t.to_arrow().to_pylist()] == [("id:1", 2)]
    assert t.lookup([1]).num_rows == 1
    _same(t.to_arrow(), _hudi(root), "field-prefixed keys")

    v8 = props.read_text().replace("hoodie.table.version=9", "hoodie.table.version=8")
    props.write_text(v8)
    t = lakeshore.Table.open(str(root))
    assert t.to_arrow().num_rows == 1  # reads need no key encoding
    with pytest.raises(lakeshore.LakeshoreError, match="complex.keygen.encoding"):
        t.upsert(pa.Table.from_pylist([{"id": 1, "p": "a", "v": 3}], schema=schema))
    with pytest.raises(lakeshore.UnsupportedFeatureError, match="HUDI-7001"):
        t.lookup([1])
    props.write_text(v8 + "hoodie.table.complex.keygen.encoding=FIELD_PREFIXED\n")
    t = lakeshore.Table.open(str(root))
    t.upsert(pa.Table.from_pylist([{"id": 1, "p": "a", "v": 3}], schema=schema))
    assert [(r["_hoodie_record_key"], r["v"]) for r in t.to_arrow().to_pylist()] == [("id:1", 3)]


def _rewrite_meta_column(file: str, column: str, values: list[str]) -> None:
    """Rewrites one meta column of a base file in place, as another writer would have keyed it."""
    import pyarrow.parquet as pq

    table = pq.read_table(file)
    metadata = pq.read_metadata(file).metadata
    table = table.set_column(table.schema.get_field_index(column), column, pa.array(values, pa.string()))
    pq.write_table(table.replace_schema_metadata(metadata), file)


def test_a_table_keyed_by_another_writers_text_of_a_timestamp_is_not_upserted_into(tmp_path: Path) -> None:
    """Hudi's writers render a timestamp key by their own rules (Spark's row path: a
    java.sql.Timestamp in the JVM's zone; the Avro path: epoch microseconds); Lakeshore writes
    ISO text in UTC. Where the stored keys differ from ours, an upsert would write twins of the
    records (and a lookup would find nothing), so both are refused, naming the file and both
    texts; a table keyed as ours is written."""
    schema = pa.schema(
        [pa.field("ts", pa.timestamp("us"), nullable=False), pa.field("d", pa.date32()), pa.field("v", pa.int64())]
    )
    rows = [
        {"ts": datetime.datetime(2024, 1, 2, 3, 4, 5), "d": datetime.date(2024, 1, 2), "v": 1},
        {"ts": datetime.datetime(2024, 1, 2, 3, 4, 6), "d": datetime.date(2024, 1, 2), "v": 1},
    ]
    for column, stored in (
        ("_hoodie_record_key", ["2024-01-02 03:04:05.0", "2024-01-02 03:04:06.0"]),
        ("_hoodie_partition_path", ["d=19724", "d=19724"]),
    ):
        root = tmp_path / column
        t = lakeshore.Table.create(str(root), schema, record_key="ts", partition_by="d")
        t.upsert(pa.Table.from_pylist(rows, schema=schema))
        t.upsert(pa.Table.from_pylist([{**rows[0], "v": 2}], schema=schema))  # keyed as ours: updated
        assert sorted(r["v"] for r in t.to_arrow().to_pylist()) == [1, 2]
        _rewrite_meta_column(t.files()[0], column, stored)
        other = lakeshore.Table.open(str(root))
        before = other.timeline()
        with pytest.raises(lakeshore.UnsupportedFeatureError, match=f"{column} is '{stored[0]}'"):
            other.upsert(pa.Table.from_pylist([{**rows[0], "v": 3}], schema=schema))
        with pytest.raises(lakeshore.UnsupportedFeatureError, match="twins"):
            other.delete(pa.Table.from_pylist([rows[1]], schema=schema))
        with pytest.raises(lakeshore.UnsupportedFeatureError, match="looks keys up"):
            other.lookup(pa.Table.from_pylist([rows[1]], schema=schema).select(["ts"]))
        assert other.timeline() == before
        assert sorted(r["v"] for r in other.to_arrow().to_pylist()) == [1, 2]


def test_lookups_into_a_table_whose_folders_are_formatted_by_its_key_generator_compare_only_keys(
    tmp_path: Path,
) -> None:
    """A timestamp-based key generator formats its folders (`2024/01/02`) rather than writing the
    column's text, so the stored-key check compares record keys only there: lookups by key work
    while writes stay refused (this build does not write such tables)."""
    schema = pa.schema([pa.field("id", pa.string(), nullable=False), pa.field("d", pa.date32())])
    root = tmp_path / "t"
    t = lakeshore.Table.create(str(root), schema, record_key="id", partition_by="d")
    t.upsert(pa.Table.from_pylist([{"id": "k", "d": datetime.date(2024, 1, 2)}], schema=schema))
    _rewrite_meta_column(t.files()[0], "_hoodie_partition_path", ["2024/01/02"])
    props = root / ".hoodie" / "hoodie.properties"  # its checksum covers the table's name only
    props.write_text(props.read_text().replace("keygenerator.type=SIMPLE", "keygenerator.type=TIMESTAMP"))
    other = lakeshore.Table.open(str(root))
    found = other.lookup(["k"])
    assert found.column("file_id").null_count == 0
    with pytest.raises(lakeshore.UnsupportedFeatureError, match="timestamp-based"):
        other.upsert(pa.Table.from_pylist([{"id": "k", "d": datetime.date(2024, 1, 2)}], schema=schema))


ORDERED = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        pa.field("zone", pa.string()),
        pa.field("ts", pa.int64()),
        pa.field("v", pa.string()),
    ]
)


def _ordered(rows: list[tuple[int, str, int, str]]) -> pa.Table:
    return pa.Table.from_pylist([dict(zip(ORDERED.names, r, strict=True)) for r in rows], schema=ORDERED)


def _ordered_rows(t: lakeshore.Table, root: Path) -> tuple[list[Any], list[Any]]:
    ours = sorted(tuple(r.values()) for r in t.to_arrow(columns=ORDERED.names).to_pylist())
    batches = hudi.HudiTable(str(root)).read()
    theirs = pa.Table.from_batches(batches).select(ORDERED.names).to_pylist() if batches else []
    return ours, sorted(tuple(r.values()) for r in theirs)


@pytest.mark.parametrize("index", ["SIMPLE", "BLOOM", "GLOBAL_SIMPLE", "GLOBAL_BLOOM", "RECORD_INDEX"])
@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_a_deleted_key_written_again_with_a_smaller_ordering_value_reads_alike_everywhere(
    tmp_path: Path, table_type: str, index: str
) -> None:
    # Hudi's readers merge a file group's logs first, then meet the base version by ordering
    # value: a key deleted (in a log) and written again with a smaller ordering value into the
    # same group would read as the deleted base version in hudi-rs and Spark. Lakeshore writes it
    # again as a new record in a group without those logs, so every reader returns what was
    # written (as on copy-on-write); a global index lets it move to another partition.
    root = tmp_path / "t"
    props = {"hoodie.index.type": index}
    if index == "RECORD_INDEX":
        props["hoodie.metadata.record.index.enable"] = "true"
    t = lakeshore.Table.create(
        str(root),
        ORDERED,
        record_key="id",
        partition_by="zone",
        ordering_field="ts",
        table_type=table_type,
        properties=props,
    )
    t.upsert(_ordered([(8, "a", 39, "old"), (9, "a", 1, "other"), (10, "a", 50, "moving")]))
    t.delete(pa.table({"id": [8, 10], "zone": ["a", "a"]}))
    result = t.upsert(_ordered([(8, "a", 31, "new"), (10, "c", 5, "moved")]))
    assert (result["records_inserted"], result["records_updated"]) == (2, 0), result
    expected = [(8, "a", 31, "new"), (9, "a", 1, "other"), (10, "c", 5, "moved")]
    assert _ordered_rows(t, root) == (expected, expected)
    # An update with a smaller ordering value than the stored one changes nothing, anywhere.
    t.upsert(_ordered([(8, "a", 20, "stale")]))
    assert _ordered_rows(t, root) == (expected, expected)
    if table_type == "MERGE_ON_READ":
        t.compact()
        assert _ordered_rows(t, root) == (expected, expected)
    # Found where it lives now.
    found = {r["record_key"]: r["partition"] for r in t.lookup(pa.table({"id": [8, 10]})).to_pylist()}
    assert found == {"8": "zone=a", "10": "zone=c"}


def test_a_rolled_back_schema_change_stays_undone_for_every_table_object(tmp_path: Path) -> None:
    # The object that rolled the change back kept the evolved schema and wrote it again (the
    # undone column came back); one opened after the change did the same. Now the first follows
    # the rollback and the second is told to reopen.
    old = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("n", pa.int32())])
    new = old.append(pa.field("x", pa.string()))
    root = tmp_path / "t"
    t = lakeshore.Table.create(str(root), old, record_key="id")
    t.upsert(pa.table({"id": [1], "n": [1]}, schema=old))
    t.evolve_schema(new)
    evolved = lakeshore.Table.open(str(root))
    t.rollback(t.timeline()[-1]["time"])
    assert t.schema.names == ["id", "n"]
    with pytest.raises(lakeshore.LakeshoreError, match="x"):
        t.upsert(pa.table({"id": [2], "n": [2], "x": ["X"]}, schema=new))
    t.upsert(pa.table({"id": [3], "n": [3]}, schema=old))
    with pytest.raises(lakeshore.CommitConflictError, match="reopen"):
        evolved.upsert(pa.table({"id": [2], "n": [2], "x": ["X"]}, schema=new))
    reopened = lakeshore.Table.open(str(root))
    assert reopened.schema.names == ["id", "n"]
    assert sorted(reopened.to_arrow().column("id").to_pylist()) == [1, 3]
    assert pa.Table.from_batches(hudi.HudiTable(str(root)).read()).select(["id", "n"]).num_rows == 2


ORDERING_CASES = {
    # Decimals beyond a double's 15 digits: the log merge compared them as doubles, so the two
    # tied and the later, smaller one won.
    "decimal": (pa.decimal128(38, 0), decimal.Decimal(10**20 + 1), decimal.Decimal(10**20), "stored"),
    # NaN: Hudi compares doubles as Java's Double.compareTo, NaN above every number; the log
    # merge took NaN as equal to anything.
    "nan": (pa.float64(), float("nan"), 5.0, "stored"),
    # -0.0 below 0.0, as Double.compareTo has it: both merges had taken them as equal.
    "negative zero": (pa.float64(), 0.0, -0.0, "stored"),
    # A null ordering value orders below every value (Hudi's DefaultHoodieRecordPayload): the
    # log merge took it as the integer 0, which no string compares with, so the update won
    # there and lost in a base file merge.
    "null": (pa.string(), "2024-01-02", None, "stored"),
    "null stored": (pa.string(), None, "2024-01-02", "update"),
}


@pytest.mark.parametrize("with_insert", [False, True])
@pytest.mark.parametrize("table_type", ["cow", "mor"])
@pytest.mark.parametrize("case", sorted(ORDERING_CASES))
def test_ordering_values_compare_alike_in_every_merge(
    tmp_path: Path, case: str, table_type: str, with_insert: bool
) -> None:
    # One update of key 1 has one outcome: whether it merges in a log file, in a new base file
    # (a batch with an insert packed into the same small file group), in a compaction, and by
    # hudi-rs.
    kind, stored, incoming, winner = ORDERING_CASES[case]
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("seq", kind), ("v", pa.string())])
    root = tmp_path / "t"
    t = lakeshore.Table.create(str(root), schema, record_key="id", ordering_field="seq", table_type=table_type)
    t.upsert(pa.table({"id": [1], "seq": pa.array([stored], kind), "v": ["stored"]}, schema=schema))
    ids = [1, 2] if with_insert else [1]
    t.upsert(
        pa.table({"id": ids, "seq": pa.array([incoming] * len(ids), kind), "v": ["update"] * len(ids)}, schema=schema)
    )

    def value_of_1(read: pa.Table) -> list[str]:
        return [v for i, v in zip(read.column("id").to_pylist(), read.column("v").to_pylist(), strict=True) if i == 1]

    assert value_of_1(t.to_arrow(columns=["id", "v"])) == [winner]
    # hudi-rs 0.5 lets a null ordering value win its log merge (Hudi's own copy-on-write and
    # compaction merge, DefaultHoodieRecordPayload, let it lose), and keeps a stored null.
    if not case.startswith("null"):
        assert value_of_1(_hudi(root)) == [winner]
    if table_type == "mor":
        t.compact()
        assert value_of_1(lakeshore.Table.open(str(root)).to_arrow(columns=["id", "v"])) == [winner]
