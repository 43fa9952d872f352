"""lakeshore.vacuum on Delta tables written by delta-rs (the ``deltalake`` package).

The oracle is delta-rs itself: on the same table and clock, our dry-run set must equal delta-rs's
full vacuum dry run; after our real vacuum delta-rs must still load the table, read the same rows
and show VACUUM START / VACUUM END in its history. Where we differ on purpose (deletion vectors,
hidden folders below the top level) a test says why.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

deltalake = pytest.importorskip("deltalake")
from deltalake import DeltaTable, write_deltalake  # noqa: E402

import lakeshore  # noqa: E402

Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"


def batch(start: int, n: int, partitioned: bool) -> pa.Table:
    data: dict[str, Any] = {"id": list(range(start, start + n)), "v": [f"v{i}" for i in range(start, start + n)]}
    if partitioned:
        data["p"] = [f"k{i % 3}" for i in range(start, start + n)]
    return pa.table(data)


def write(path: Path, start: int, n: int, partitioned: bool, mode: str = "append") -> None:
    write_deltalake(str(path), batch(start, n, partitioned), mode=mode, partition_by=["p"] if partitioned else None)


def appends_deletes_merges_optimize(path: Path, partitioned: bool) -> None:
    write(path, 0, 30, partitioned)
    write(path, 30, 30, partitioned)
    DeltaTable(str(path)).delete("id < 10")
    source = batch(25, 10, partitioned)
    (
        DeltaTable(str(path))
        .merge(source, predicate="t.id = s.id", source_alias="s", target_alias="t")
        .when_matched_update_all()
        .when_not_matched_insert_all()
        .execute()
    )
    DeltaTable(str(path)).optimize.compact()


def with_overwrite(path: Path, partitioned: bool) -> None:
    appends_deletes_merges_optimize(path, partitioned)
    write(path, 100, 20, partitioned, mode="overwrite")
    write(path, 120, 20, partitioned)


def with_updates(path: Path, partitioned: bool) -> None:
    write(path, 0, 40, partitioned)
    DeltaTable(str(path)).update(predicate="id < 20", updates={"v": "'changed'"})
    DeltaTable(str(path)).delete("id >= 35")
    DeltaTable(str(path)).optimize.z_order(["id"])


HISTORIES: dict[str, Callable[[Path, bool], None]] = {
    "appends_deletes_merges_optimize": appends_deletes_merges_optimize,
    "overwrite": with_overwrite,
    "updates_zorder": with_updates,
}


def add_orphans(path: Path) -> None:
    """Files no commit names: one at the top, one in a partition-like folder, and hidden ones."""
    (path / "orphan.parquet").write_bytes(b"x" * 123)
    (path / "stray_dir").mkdir(exist_ok=True)
    (path / "stray_dir" / "orphan2.parquet").write_bytes(b"x" * 7)
    (path / "_hidden").mkdir(exist_ok=True)
    (path / "_hidden" / "keep.parquet").write_bytes(b"x")
    (path / ".keep_me").write_bytes(b"x")


def delta_rs_dry_run(path: Path, retention_hours: int) -> list[str]:
    dt = DeltaTable(str(path))
    return sorted(dt.vacuum(retention_hours=retention_hours, dry_run=True, enforce_retention_duration=False, full=True))


def ours(path: Path, **kwargs: Any) -> dict[str, Any]:
    return lakeshore.vacuum(str(path), **kwargs)


@pytest.mark.parametrize("history", sorted(HISTORIES))
@pytest.mark.parametrize("partitioned", [False, True], ids=["flat", "partitioned"])
def test_dry_run_equals_delta_rs_full_vacuum(tmp_path: Path, history: str, partitioned: bool) -> None:
    table = tmp_path / "t"
    HISTORIES[history](table, partitioned)
    add_orphans(table)
    theirs = delta_rs_dry_run(table, 0)
    report = ours(table, retain_hours=0, enforce_retention=False, dry_run=True)
    assert report["dry_run"] and report["format"] == "delta" and report["mode"] == "full"
    assert [c["path"] for c in report["candidates"]] == theirs
    assert "orphan.parquet" in theirs and "stray_dir/orphan2.parquet" in theirs
    sizes = {c["path"]: c["size"] for c in report["candidates"]}
    assert sizes["orphan.parquet"] == 123
    # Within the default 7-day retention neither deletes anything.
    assert delta_rs_dry_run(table, 168) == []
    assert ours(table, dry_run=True)["candidates"] == []


@pytest.mark.parametrize("history", sorted(HISTORIES))
def test_real_vacuum_keeps_the_table_readable_by_delta_rs(tmp_path: Path, history: str) -> None:
    table = tmp_path / "t"
    HISTORIES[history](table, True)
    add_orphans(table)
    rows_before = DeltaTable(str(table)).to_pyarrow_table().sort_by("id")
    expected = delta_rs_dry_run(table, 0)
    report = ours(table, retain_hours=0, enforce_retention=False)
    assert report["files_deleted"] == len(expected)
    assert report["bytes_deleted"] == sum(c["size"] for c in report["candidates"])
    for path in expected:
        assert not (table / path).exists()
    assert (table / "_hidden" / "keep.parquet").exists() and (table / ".keep_me").exists()
    assert not (table / "stray_dir").exists()  # emptied folder removed
    dt = DeltaTable(str(table))
    assert dt.to_pyarrow_table().sort_by("id").equals(rows_before)
    operations = [h["operation"] for h in dt.history()]
    assert operations[:2] == ["VACUUM END", "VACUUM START"]
    end = dt.history(1)[0]
    assert end["operationParameters"]["status"] == "COMPLETED"
    assert int(end["operationMetrics"]["numDeletedFiles"]) == len(expected)
    # delta-rs agrees there is nothing left (it still names expired tombstones from the log, but
    # none of those files exists any more), and our optimistic rerun skips without listing.
    assert all(not (table / p).exists() for p in delta_rs_dry_run(table, 0))
    again = ours(table, retain_hours=0, enforce_retention=False, optimistic=True)
    assert again["skipped"] and again["files_listed"] == 0, again["skip_reason"]


def test_lite_vacuum_finds_what_delta_rs_lite_finds(tmp_path: Path) -> None:
    table = tmp_path / "t"
    appends_deletes_merges_optimize(table, True)
    add_orphans(table)
    report = ours(table, retain_hours=0, enforce_retention=False, dry_run=True, mode="lite")
    assert report["files_listed"] == 0
    lite = {c["path"] for c in report["candidates"]}
    full = set(delta_rs_dry_run(table, 0))
    assert lite == full - {"orphan.parquet", "stray_dir/orphan2.parquet"}  # lite sees only what the log names
    theirs_lite = set(DeltaTable(str(table)).vacuum(retention_hours=0, dry_run=True, enforce_retention_duration=False))
    assert lite == theirs_lite


def z85_uuid(u: uuid.UUID) -> str:
    data, out = u.bytes, []
    for i in range(0, 16, 4):
        v = int.from_bytes(data[i : i + 4], "big")
        group = []
        for _ in range(5):
            group.append(Z85[v % 85])
            v //= 85
        out.append("".join(reversed(group)))
    return "".join(out)


def test_deletion_vectors_are_kept_where_delta_rs_would_delete_them(tmp_path: Path) -> None:
    """delta-rs ignores deletion vectors when vacuuming: it treats a DV file as untracked. A DV
    file named by an active add is live, so we keep it (as Spark does)."""
    table = tmp_path / "t"
    write(table, 0, 10, False)
    dt = DeltaTable(str(table))
    data_file = dt.file_uris()[0].rsplit("/", 1)[-1]
    dv_uuid = uuid.uuid4()
    (table / "ab").mkdir()
    dv_file = table / "ab" / f"deletion_vector_{dv_uuid}.bin"
    dv_file.write_bytes(b"\x00" * 40)
    dv = {
        "storageType": "u",
        "pathOrInlineDv": "ab" + z85_uuid(dv_uuid),
        "offset": 1,
        "sizeInBytes": 34,
        "cardinality": 1,
    }
    size = (table / data_file).stat().st_size
    actions = [
        {"commitInfo": {"timestamp": 1, "operation": "DELETE"}},
        {
            "protocol": {
                "minReaderVersion": 3,
                "minWriterVersion": 7,
                "readerFeatures": ["deletionVectors"],
                "writerFeatures": ["deletionVectors"],
            }
        },
        {"remove": {"path": data_file, "deletionTimestamp": 1, "dataChange": True, "size": size}},
        {
            "add": {
                "path": data_file,
                "size": size,
                "modificationTime": 1,
                "dataChange": True,
                "partitionValues": {},
                "deletionVector": dv,
            }
        },
    ]
    (table / "_delta_log" / "00000000000000000001.json").write_text("\n".join(json.dumps(a) for a in actions) + "\n")
    report = ours(table, retain_hours=0, enforce_retention=False, dry_run=True)
    assert f"ab/deletion_vector_{dv_uuid}.bin" not in [c["path"] for c in report["candidates"]]
    try:
        theirs = delta_rs_dry_run(table, 0)
    except Exception as e:  # a delta-rs that refuses DV tables is also "not ours"
        pytest.skip(f"delta-rs cannot vacuum this table: {e}")
    assert f"ab/deletion_vector_{dv_uuid}.bin" in theirs


def test_hidden_folders_below_the_top_level_are_left_alone(tmp_path: Path) -> None:
    """Spark applies the hidden rule to every path segment; delta-rs only to the first."""
    table = tmp_path / "t"
    write(table, 0, 10, True)
    (table / "p=k0" / "_staging").mkdir()
    (table / "p=k0" / "_staging" / "x.parquet").write_bytes(b"x")
    # A name shaped as Lakeshore's staged writes is the user's hidden folder in a Delta table
    # (found by outside testing: it was a candidate).
    (table / ".backup.tmp.2024.06.01").mkdir()
    (table / ".backup.tmp.2024.06.01" / "part-0.parquet").write_bytes(b"x")
    (table / ".export.tmp.1.2.3").write_bytes(b"x")
    (table / ".export.lakeshore-staged.1.2.3").write_bytes(b"x")
    report = ours(table, retain_hours=0, enforce_retention=False, dry_run=True)
    candidates = [c["path"] for c in report["candidates"]]
    assert "p=k0/_staging/x.parquet" not in candidates
    assert not [c for c in candidates if c.startswith(".")], candidates


def table_with_orphans(tmp_path: Path) -> Path:
    """A small delta-rs table with old untracked files (see add_orphans)."""
    table = tmp_path / "t"
    write(table, 0, 10, False)
    add_orphans(table)
    return table


def assert_refused(table: Path, error: type[Exception], match: str, **kwargs: Any) -> None:
    """The vacuum raises `error` matching `match` and deletes nothing."""
    before = sorted(p.relative_to(table).as_posix() for p in table.rglob("*") if p.is_file())
    with pytest.raises(error, match=match):
        ours(table, **{"retain_hours": 0, "enforce_retention": False, **kwargs})
    assert sorted(p.relative_to(table).as_posix() for p in table.rglob("*") if p.is_file()) == before


def test_bad_log_raises_and_deletes_nothing(tmp_path: Path) -> None:
    table = table_with_orphans(tmp_path)
    (table / "_delta_log" / "00000000000000000001.json").write_text('{"remove":{"path":"x","deletionTi')
    assert_refused(table, lakeshore.CorruptMetadataError, "00000000000000000001.json")


def test_a_log_line_or_checkpoint_row_holding_two_actions_is_corrupt(tmp_path: Path) -> None:
    # {"add": x, "remove": y} on one line: both were applied, and y, which Spark and delta-rs
    # read as live, was deleted. A line (or a checkpoint row) is one action.
    table = table_with_orphans(tmp_path)
    two = {"add": {"path": "x.parquet", "partitionValues": {}, "size": 4, "modificationTime": 0, "dataChange": True}}
    line = json.dumps(two)[:-1] + ', "remove": {"path": "y.parquet", "deletionTimestamp": 0, "dataChange": true}}'
    (table / "_delta_log" / "00000000000000000001.json").write_text(line + "\n")
    assert_refused(table, lakeshore.CorruptMetadataError, "00000000000000000001.json.*more than one action")
    s = pa.struct([("path", pa.string()), ("size", pa.int64()), ("deletionTimestamp", pa.int64())])
    rows = pa.table(
        {
            "add": pa.array([{"path": "x.parquet", "size": 4, "deletionTimestamp": None}], s),
            "remove": pa.array([{"path": "y.parquet", "size": 4, "deletionTimestamp": 0}], s),
        }
    )
    (table / "_delta_log" / "00000000000000000001.json").unlink()
    pq.write_table(rows, table / "_delta_log" / "00000000000000000000.checkpoint.parquet")
    assert_refused(table, lakeshore.CorruptMetadataError, "checkpoint.parquet.*more than one action")


@pytest.mark.parametrize("large", [False, True])
def test_a_checkpoint_of_large_or_dictionary_types_keeps_retention_and_features(tmp_path: Path, large: bool) -> None:
    # Lists and maps of large_string (an Arrow writer keeps them) read as empty: the table's 30
    # days fell back to 7 (a file removed 10 days ago was deleted) and a writer feature went unseen.
    now = int(time.time() * 1000)
    day = 86_400_000
    text = pa.large_string() if large else pa.dictionary(pa.int32(), pa.string())
    listed = pa.large_list(text) if large else pa.list_(text)

    def build(name: str, features: list[str]) -> Path:
        root = tmp_path / name
        (root / "_delta_log").mkdir(parents=True)
        protocol_t = pa.struct(
            [
                ("minReaderVersion", pa.int32()),
                ("minWriterVersion", pa.int32()),
                ("readerFeatures", listed),
                ("writerFeatures", listed),
            ]
        )
        meta_t = pa.struct(
            [("id", pa.string()), ("partitionColumns", listed), ("configuration", pa.map_(pa.large_string(), text))]
        )
        file_t = pa.struct([("path", pa.string()), ("size", pa.int64()), ("deletionTimestamp", pa.int64())])
        conf = [("delta.deletedFileRetentionDuration", "interval 30 days")]
        protocol = {"minReaderVersion": 3, "minWriterVersion": 7, "readerFeatures": [], "writerFeatures": features}
        meta = {"id": "x", "partitionColumns": [], "configuration": conf}
        checkpoint = pa.table(
            {
                "protocol": pa.array([protocol, None, None, None], protocol_t),
                "metaData": pa.array([None, meta, None, None], meta_t),
                "add": pa.array([None, None, {"path": "a.parquet", "size": 4}, None], file_t),
                "remove": pa.array(
                    [None, None, None, {"path": "b.parquet", "size": 4, "deletionTimestamp": now - 10 * day}], file_t
                ),
            }
        )
        pq.write_table(checkpoint, root / "_delta_log" / "00000000000000000000.checkpoint.parquet")
        commit = {"commitInfo": {"timestamp": now - 10 * day, "operation": "WRITE"}}
        (root / "_delta_log" / "00000000000000000000.json").write_text(json.dumps(commit) + "\n")
        old = time.time() - 40 * 86400
        for n in ("a.parquet", "b.parquet", "stray.parquet"):
            (root / n).write_text("data")
            os.utime(root / n, (old, old))
        return root

    kept = build("kept", [])
    candidates = sorted(c["path"] for c in ours(kept, dry_run=True)["candidates"])
    assert candidates == ["stray.parquet"], candidates  # b was removed 10 days ago, within the table's 30
    refused = build("refused", ["catalogManaged"])
    with pytest.raises(lakeshore.UnsupportedFeatureError, match="catalogManaged"):
        ours(refused, dry_run=True)
    # A list column of numbers cannot hold features: refused, not read as none.
    odd = build("odd", [])
    bad = pq.read_table(odd / "_delta_log" / "00000000000000000000.checkpoint.parquet")
    protocol_t = pa.struct([("minReaderVersion", pa.int32()), ("minWriterVersion", pa.int32()),
                            ("writerFeatures", pa.list_(pa.int64()))])  # fmt: skip
    column = pa.array([{"minReaderVersion": 3, "minWriterVersion": 7, "writerFeatures": [1]}, None, None, None],
                      protocol_t)  # fmt: skip
    bad = bad.set_column(bad.schema.get_field_index("protocol"), "protocol", column)
    pq.write_table(bad, odd / "_delta_log" / "00000000000000000000.checkpoint.parquet")
    with pytest.raises(lakeshore.CorruptMetadataError, match="writerFeatures"):
        ours(odd, dry_run=True)


@pytest.mark.parametrize(
    ("column", "field", "kind"),
    [
        ("remove", "deletionTimestamp", pa.timestamp("ms")),
        ("remove", "deletionTimestamp", pa.string()),
        ("add", "deletionVector", pa.string()),
        ("add", "size", pa.float64()),
    ],
    ids=["tombstone_time_as_timestamp", "tombstone_time_as_text", "deletion_vector_as_text", "size_as_double"],
)
def test_a_checkpoint_column_of_another_type_is_corrupt_and_deletes_nothing(
    tmp_path: Path, column: str, field: str, kind: pa.DataType
) -> None:
    # Found by outside testing: a leaf of another type read as null in every row, so every
    # tombstone counted as expired (a file removed minutes ago was deleted under a 7-day
    # retention) and an add lost its deletion vector (whose file was then deleted).
    table = tmp_path / "t"
    write(table, 0, 10, False)
    write(table, 10, 10, False)
    DeltaTable(str(table)).delete("id < 3")
    DeltaTable(str(table)).create_checkpoint()
    checkpoint = table / "_delta_log" / "00000000000000000002.checkpoint.parquet"
    rows = pq.read_table(checkpoint)
    actions = rows.column(column).combine_chunks()
    fields, arrays = [], []
    for k, f in enumerate(actions.type):
        values = actions.field(k)
        if f.name == field:
            plain = [None if v is None else (str(v) if kind == pa.string() else v) for v in values.to_pylist()]
            values = pa.array(plain, pa.int64()).cast(kind) if kind == pa.timestamp("ms") else pa.array(plain, kind)
            f = pa.field(f.name, kind)
        fields.append(f)
        arrays.append(values)
    if field not in [f.name for f in fields]:
        fields.append(pa.field(field, kind))
        arrays.append(pa.nulls(len(actions), kind))
    retyped = pa.StructArray.from_arrays(arrays, fields=fields, mask=actions.is_null())
    rows = rows.set_column(rows.schema.get_field_index(column), pa.field(column, retyped.type), retyped)
    pq.write_table(rows, checkpoint)
    old = time.time() - 30 * 86400
    for f in table.glob("*.parquet"):
        os.utime(f, (old, old))
    assert_refused(table, lakeshore.CorruptMetadataError, f"checkpoint.parquet.*'{column}.{field}' column typed")


def test_a_checkpoint_column_of_the_null_type_is_read_as_nulls(tmp_path: Path) -> None:
    # Found by outside testing of the check above: a column of Arrow's null type holds no value
    # to misread (an all-null column as pyarrow or polars write it); it was refused.
    table = tmp_path / "t"
    write(table, 0, 10, False)
    DeltaTable(str(table)).create_checkpoint()
    checkpoint = table / "_delta_log" / "00000000000000000000.checkpoint.parquet"
    rows = pq.read_table(checkpoint)
    actions = rows.column("remove").combine_chunks()
    fields = [pa.field(f.name, pa.null()) if f.name in ("deletionTimestamp", "size") else f for f in actions.type]
    arrays = [pa.nulls(len(actions)) if f.name in ("deletionTimestamp", "size") else actions.field(k)
              for k, f in enumerate(actions.type)]  # fmt: skip
    retyped = pa.StructArray.from_arrays(arrays, fields=fields, mask=actions.is_null())
    rows = rows.set_column(rows.schema.get_field_index("remove"), pa.field("remove", retyped.type), retyped)
    pq.write_table(rows, checkpoint)
    assert ours(table, dry_run=True)["candidates"] == []


def test_a_tombstone_without_its_time_expires_with_its_commit(tmp_path: Path) -> None:
    # Found by outside testing: a remove without the optional deletionTimestamp counted as
    # removed at time 0 (as Spark and delta-rs take it), so a file removed minutes ago was
    # deleted under a 7-day retention and version 1 could not be read. It is dated by its commit.
    table = tmp_path / "t"
    write(table, 0, 3, False)
    write(table, 3, 3, False)
    log = table / "_delta_log"
    first = next(json.loads(line)["add"] for line in (log / "00000000000000000000.json").open() if '"add"' in line)
    with (log / "00000000000000000002.json").open("w") as f:
        f.write(json.dumps({"commitInfo": {"timestamp": int(time.time() * 1000), "operation": "DELETE"}}) + "\n")
        f.write(json.dumps({"remove": {"path": first["path"], "dataChange": True, "size": first["size"]}}) + "\n")
    old = time.time() - 30 * 86400
    os.utime(table / first["path"], (old, old))
    for lite in (False, True):
        assert first["path"] not in [
            c["path"] for c in ours(table, dry_run=True, mode="lite" if lite else "full")["candidates"]
        ]
    ours(table)  # default retention, enforced
    assert DeltaTable(str(table), version=1).to_pyarrow_table().num_rows == 6
    # In a checkpoint (delta-rs drops such a tombstone when it checkpoints; another writer may
    # keep it), it is dated by the checkpoint.
    other = tmp_path / "checkpointed"
    (other / "_delta_log").mkdir(parents=True)
    file_t = pa.struct([("path", pa.string()), ("size", pa.int64()), ("deletionTimestamp", pa.int64())])
    protocol = {"minReaderVersion": 1, "minWriterVersion": 2}
    protocol_t = pa.struct([("minReaderVersion", pa.int32()), ("minWriterVersion", pa.int32())])
    meta_t = pa.struct([("id", pa.string()), ("partitionColumns", pa.list_(pa.string()))])
    checkpoint = pa.table(
        {
            "protocol": pa.array([protocol, None, None, None], protocol_t),
            "metaData": pa.array([None, {"id": "x", "partitionColumns": []}, None, None], meta_t),
            "add": pa.array([None, None, {"path": "a.parquet", "size": 4}, None], file_t),
            "remove": pa.array([None, None, None, {"path": "b.parquet", "size": 4}], file_t),
        }
    )
    pq.write_table(checkpoint, other / "_delta_log" / "00000000000000000000.checkpoint.parquet")
    for name in ("a.parquet", "b.parquet", "stray.parquet"):
        (other / name).write_text("data")
        os.utime(other / name, (old, old))
    assert [c["path"] for c in ours(other, dry_run=True)["candidates"]] == ["stray.parquet"]


def test_in_commit_timestamps_are_on_whatever_the_case_of_true(tmp_path: Path) -> None:
    # Spark reads delta.enableInCommitTimestamps with Scala's toBoolean, case-insensitive: with
    # 'TRUE' our VACUUM START and END commits lacked the inCommitTimestamp Spark requires.
    table = tmp_path / "t"
    (table / "_delta_log").mkdir(parents=True)
    now = int(time.time() * 1000)
    schema = json.dumps(
        {"type": "struct", "fields": [{"name": "id", "type": "long", "nullable": True, "metadata": {}}]}
    )
    conf = {"delta.enableInCommitTimestamps": "TRUE", "delta.inCommitTimestampEnablementVersion": "0",
            "delta.inCommitTimestampEnablementTimestamp": str(now)}  # fmt: skip
    actions = [
        {"commitInfo": {"timestamp": now, "inCommitTimestamp": now, "operation": "CREATE TABLE"}},
        {"protocol": {"minReaderVersion": 1, "minWriterVersion": 7, "writerFeatures": ["inCommitTimestamp"]}},
        {"metaData": {"id": "x", "format": {"provider": "parquet", "options": {}}, "schemaString": schema,
                      "partitionColumns": [], "createdTime": now, "configuration": conf}},
    ]  # fmt: skip
    (table / "_delta_log" / "00000000000000000000.json").write_text("".join(json.dumps(a) + "\n" for a in actions))
    ours(table)
    written = sorted((table / "_delta_log").glob("*.json"))[1:]
    assert len(written) == 2
    for commit in written:
        info = json.loads(commit.read_text().splitlines()[0])["commitInfo"]
        assert info["inCommitTimestamp"] >= now, commit.name


def test_a_commit_file_linked_into_the_log_is_read(tmp_path: Path) -> None:
    # A linked commit file was skipped by the listing: the log read as the version before it,
    # and the dry run offered a file the latest version adds. delta-rs reads through the link.
    table = tmp_path / "t"
    write(table, 0, 10, False)
    write(table, 10, 20, False)
    log = table / "_delta_log"
    latest = log / "00000000000000000001.json"
    kept = tmp_path / "kept-elsewhere.json"
    latest.rename(kept)
    latest.symlink_to(kept)
    assert DeltaTable(str(table)).version() == 1
    old = time.time() - 30 * 86400
    for f in table.glob("*.parquet"):
        os.utime(f, (old, old))
    report = ours(table, retain_hours=0, enforce_retention=False, dry_run=True)
    assert report["candidates"] == []
    ours(table, retain_hours=0, enforce_retention=False)
    assert latest.is_symlink() and kept.exists()
    assert DeltaTable(str(table)).to_pyarrow_table().num_rows == 30


def test_the_file_a_live_link_leads_to_is_kept(tmp_path: Path) -> None:
    # The latest version adds a link (inside the table) to a file an overwrite removed: the vacuum
    # kept the link but deleted the file it leads to, and delta-rs could no longer read the table.
    table = tmp_path / "t"
    write(table, 0, 2, False)
    write(table, 2, 1, False, mode="overwrite")
    live = {os.path.basename(u) for u in DeltaTable(str(table)).file_uris()}
    removed = next(f for f in table.glob("*.parquet") if f.name not in live)
    link = table / "linked-part.parquet"
    link.symlink_to(removed.name)
    now = int(time.time() * 1000)
    add = {"add": {"path": link.name, "partitionValues": {}, "size": removed.stat().st_size,
                   "modificationTime": now, "dataChange": True}}  # fmt: skip
    commit = {"commitInfo": {"timestamp": now, "operation": "WRITE"}}
    (table / "_delta_log" / "00000000000000000002.json").write_text(json.dumps(add) + "\n" + json.dumps(commit) + "\n")
    rows = DeltaTable(str(table)).to_pyarrow_table().num_rows
    old = time.time() - 30 * 86400
    for f in table.glob("*.parquet"):
        os.utime(f, (old, old), follow_symlinks=False)
    report = ours(table, retain_hours=0, enforce_retention=False)
    assert removed.name not in [c["path"] for c in report["candidates"]]
    assert removed.exists() and link.is_symlink()
    assert DeltaTable(str(table)).to_pyarrow_table().num_rows == rows == 3


def test_unknown_writer_feature_is_refused(tmp_path: Path) -> None:
    table = table_with_orphans(tmp_path)
    protocol = {
        "protocol": {
            "minReaderVersion": 3,
            "minWriterVersion": 7,
            "readerFeatures": [],
            "writerFeatures": ["someFutureFeature"],
        }
    }
    (table / "_delta_log" / "00000000000000000001.json").write_text(json.dumps(protocol) + "\n")
    assert_refused(table, lakeshore.UnsupportedFeatureError, "someFutureFeature")


def test_retention_check(tmp_path: Path) -> None:
    table = tmp_path / "t"
    write(table, 0, 10, False)
    with pytest.raises(lakeshore.RetentionViolationError):
        ours(table, retain_hours=1)
    assert ours(table, retain_hours=1, enforce_retention=False, dry_run=True)["dry_run"]


@pytest.mark.parametrize("hours", [float("inf"), float("nan"), 1e300, -1.0, 876601.0])
@pytest.mark.parametrize("enforce", [True, False])
def test_absurd_retention_is_refused_and_deletes_nothing(tmp_path: Path, hours: float, enforce: bool) -> None:
    """inf or 1e300 once overflowed into a short retention; now any retention that is not a
    finite number of hours up to 100 years is refused with an error that says so."""
    table = table_with_orphans(tmp_path)
    assert_refused(
        table, lakeshore.InvalidArgumentError, "finite number of hours", retain_hours=hours, enforce_retention=enforce
    )


def test_long_but_sane_retention_deletes_nothing_young(tmp_path: Path) -> None:
    table = table_with_orphans(tmp_path)
    report = ours(table, retain_hours=24 * 365 * 50)
    assert report["files_deleted"] == 0 and (table / "orphan.parquet").exists()


def test_format_auto_refuses_a_folder_holding_two_tables(tmp_path: Path) -> None:
    table = table_with_orphans(tmp_path)
    (table / ".hoodie").mkdir()
    (table / ".hoodie" / "hoodie.properties").write_text("hoodie.table.name=t\n")
    assert_refused(table, lakeshore.InvalidArgumentError, "two tables.*Delta.*Hudi")


@pytest.mark.parametrize("version", ["99999999999999999999", "09223372036854775807"])
def test_log_file_name_beyond_int64_is_corrupt_metadata(tmp_path: Path, version: str) -> None:
    # The largest int64 overflowed the replay's counter into a missing "-9223372036854775808.json".
    table = table_with_orphans(tmp_path)
    (table / "_delta_log" / f"{version}.json").write_text("{}\n")
    assert_refused(table, lakeshore.CorruptMetadataError, version)


def test_inventory_in_place_of_listing(tmp_path: Path) -> None:
    table = tmp_path / "t"
    write(table, 0, 10, False)
    add_orphans(table)
    live = DeltaTable(str(table)).file_uris()[0].rsplit("/", 1)[-1]
    inventory = pa.table(
        {
            "path": [f"file://{table}/orphan.parquet", f"file://{table}/{live}"],
            "length": [123, 1],
            "isDir": [False, False],
            "modificationTime": [0, 0],
        }
    )
    inv_path = tmp_path / "inventory.parquet"
    pq.write_table(inventory, inv_path)
    report = ours(table, retain_hours=0, enforce_retention=False, inventory=str(inv_path))
    assert [c["path"] for c in report["candidates"]] == ["orphan.parquet"]
    assert not (table / "orphan.parquet").exists()
    assert (table / "stray_dir" / "orphan2.parquet").exists()  # not in the inventory


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lakeshore", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )


def test_cli_json_and_summary(tmp_path: Path) -> None:
    table = tmp_path / "t"
    appends_deletes_merges_optimize(table, False)
    add_orphans(table)
    dry = run_cli("vacuum", str(table), "--retain-hours", "0", "--no-enforce-retention", "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    doc = json.loads(dry.stdout)
    assert list(doc) == [
        "format",
        "mode",
        "dry_run",
        "skipped",
        "skip_reason",
        "files_listed",
        "files_deleted",
        "bytes_deleted",
        "dirs_deleted",
        "files_refused",
        "candidates",
        "time_to_identify_ms",
        "time_to_delete_ms",
    ]
    assert [c["path"] for c in doc["candidates"]] == delta_rs_dry_run(table, 0)
    real = run_cli("vacuum", str(table), "--retain-hours", "0", "--no-enforce-retention")
    assert real.returncode == 0, real.stderr
    assert "files deleted" in real.stdout
    skipped = run_cli("vacuum", str(table), "--retain-hours", "0", "--no-enforce-retention", "--optimistic", "--json")
    assert json.loads(skipped.stdout)["skipped"] is True
    refused = run_cli("vacuum", str(table), "--retain-hours", "1", "--json")
    assert refused.returncode == 1
    assert json.loads(refused.stdout)["error"]["type"] == "RetentionViolationError"


def test_progress_callback_sees_listing_and_deleting(tmp_path: Path) -> None:
    table = tmp_path / "t"
    appends_deletes_merges_optimize(table, True)
    add_orphans(table)
    phases: set[str] = set()
    ours(table, retain_hours=0, enforce_retention=False, progress=lambda phase, done, total, unit: phases.add(phase))
    assert phases == {"listing", "deleting"}


def test_z85_helper_matches_the_protocol_example() -> None:
    assert z85_uuid(uuid.UUID("d2c639aa-8816-431a-aaf6-d3fe2512ff61")) == "^-aqEH.-t@S}K{vb[*k^"


def test_vacuum_on_s3(s3_server: Any) -> None:
    """A delta-rs table on S3 (moto on loopback): the same candidates as delta-rs, deleted with
    multi-object deletes, and delta-rs still reads the table."""
    bucket = s3_server.make_bucket()
    delta_uri = f"s3://{bucket}/events"
    options = {
        "AWS_ENDPOINT_URL": f"http://{s3_server.endpoint}",
        "AWS_ACCESS_KEY_ID": s3_server.access_key,
        "AWS_SECRET_ACCESS_KEY": s3_server.secret_key,
        "AWS_REGION": s3_server.region,
        "AWS_ALLOW_HTTP": "true",
        "AWS_S3_ALLOW_UNSAFE_RENAME": "true",
    }
    for start in (0, 20):
        write_deltalake(delta_uri, batch(start, 20, True), mode="append", partition_by=["p"], storage_options=options)
    DeltaTable(delta_uri, storage_options=options).delete("id < 5")
    rows = DeltaTable(delta_uri, storage_options=options).to_pyarrow_table().num_rows
    theirs = sorted(
        DeltaTable(delta_uri, storage_options=options).vacuum(
            retention_hours=0, dry_run=True, enforce_retention_duration=False, full=True
        )
    )
    assert theirs
    uri = s3_server.uri(bucket, "events")
    # A key no table path names (an empty segment, legal on S3) was planned, and every real run
    # then failed on it: it is left alone.
    odd = urllib.request.Request(f"http://{s3_server.endpoint}/{bucket}/events/p=1//odd.parquet", b"x", method="PUT")
    with urllib.request.urlopen(odd, timeout=10) as resp:
        assert resp.status == 200
    # S3 dates a file to the second: one written in this second may be younger than a cutoff of
    # now, and is kept until the second is over (delta-rs takes the truncated second as exact).
    time.sleep(1.1)
    dry = lakeshore.vacuum(uri, retain_hours=0, enforce_retention=False, dry_run=True)
    assert [c["path"] for c in dry["candidates"]] == theirs
    real = lakeshore.vacuum(uri, retain_hours=0, enforce_retention=False)
    assert real["files_deleted"] == len(theirs)
    dt = DeltaTable(delta_uri, storage_options=options)
    assert dt.to_pyarrow_table().num_rows == rows
    assert [h["operation"] for h in dt.history()][:2] == ["VACUUM END", "VACUUM START"]
    again = lakeshore.vacuum(uri, retain_hours=0, enforce_retention=False, optimistic=True)
    assert again["skipped"], again["skip_reason"]
    listed = urllib.request.urlopen(f"http://{s3_server.endpoint}/{bucket}?prefix=events/p=1//", timeout=10).read()
    assert b"events/p=1//odd.parquet" in listed


def test_files_a_concurrent_restore_adds_back_while_vacuum_plans_are_kept(tmp_path: Path) -> None:
    # A delta-rs RESTORE commits while the vacuum lists the table, adding back files whose
    # tombstones had expired. VACUUM START goes after that commit; the files it re-added are
    # live again and must stay (they were deleted, and the latest version could not be read).
    import time

    root = tmp_path / "t"
    write_deltalake(str(root), pa.table({"a": [1, 2, 3], "p": ["x", "y", "z"]}), partition_by="p")  # v0
    write_deltalake(str(root), pa.table({"a": [4, 5], "p": ["x", "y"]}), mode="overwrite")  # v1
    time.sleep(1.5)  # v1's tombstones age past a 1 s retention
    fired: list[int] = []

    def progress(phase: str, done: int, total: int, unit: str) -> None:
        if phase == "listing" and not fired:
            fired.append(1)
            DeltaTable(str(root)).restore(0)  # v2 adds v0's three files back

    report = lakeshore.vacuum(str(root), retain_hours=1 / 3600, enforce_retention=False, progress=progress)
    assert fired
    table = DeltaTable(str(root))
    assert all(os.path.exists(u.removeprefix("file://")) for u in table.file_uris()), report
    assert sorted(table.to_pyarrow_table().column("a").to_pylist()) == [1, 2, 3]


def minimal_log(table: Path, *actions: dict[str, Any]) -> None:
    """A Delta table at `table` whose version 0 holds protocol, metaData and `actions`."""
    schema = '{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]}'
    meta = {"id": "t", "format": {"provider": "parquet", "options": {}}, "schemaString": schema,
            "partitionColumns": [], "configuration": {}, "createdTime": 0}  # fmt: skip
    lines = [{"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}}, {"metaData": meta}, *actions]
    (table / "_delta_log").mkdir(parents=True)
    (table / "_delta_log" / "00000000000000000000.json").write_text("".join(json.dumps(a) + "\n" for a in lines))


def test_files_listed_counts_files_not_folders(tmp_path: Path) -> None:
    # Found by outside testing: two files in two partition folders, beside an empty folder
    # chain, were reported as six files listed.
    table = tmp_path / "t"
    write(table, 0, 10, True)
    (table / "empty1" / "empty2").mkdir(parents=True)
    files = [p for p in table.rglob("*") if p.is_file() and "_delta_log" not in p.parts]
    assert ours(table, dry_run=True)["files_listed"] == len(files)


def test_an_escaped_colon_in_a_relative_log_path_is_a_file_name(tmp_path: Path) -> None:
    # Found by outside testing: `x%3Ay.parquet` (the file `x:y.parquet`) was decoded before its
    # scheme was looked for, read as URI scheme `x`, and the whole vacuum was refused.
    table = tmp_path / "t"
    add = {"path": "x%3Ay.parquet", "partitionValues": {}, "size": 1, "modificationTime": 0, "dataChange": True}
    minimal_log(table, {"add": add})
    old = time.time() - 30 * 86400
    for name in ("x:y.parquet", "stray.parquet"):
        (table / name).write_text("x")
        os.utime(table / name, (old, old))
    report = ours(table, retain_hours=0, enforce_retention=False)
    assert [c["path"] for c in report["candidates"]] == ["stray.parquet"]
    assert (table / "x:y.parquet").exists() and not (table / "stray.parquet").exists()


def test_a_chain_of_old_empty_folders_goes_in_one_run(tmp_path: Path) -> None:
    # Found by outside testing: only the deepest of e1/e2/e3 went per run (removing it made its
    # parent young), so each level waited one more retention period.
    table = tmp_path / "t"
    minimal_log(table)
    (table / "e1" / "e2" / "e3").mkdir(parents=True)
    old = time.time() - 30 * 86400
    for folder in ("e1/e2/e3", "e1/e2", "e1"):
        os.utime(table / folder, (old, old))
    report = ours(table, retain_hours=1, enforce_retention=False)
    assert report["dirs_deleted"] == 3 and not (table / "e1").exists()
