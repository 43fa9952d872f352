"""Bad input gives a clear error and loses nothing: corrupt table.json, a truncated instant file,
a batch that does not match the schema, a missing record key."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

import lakeshore

SCHEMA = pa.schema(
    [pa.field("id", pa.int64(), nullable=False), pa.field("city", pa.string()), pa.field("v", pa.int64())]
)


def data(*ids: int) -> pa.Table:
    return pa.table(
        {"id": pa.array(ids, pa.int64()), "city": ["oslo"] * len(ids), "v": pa.array(ids, pa.int64())}, schema=SCHEMA
    )


def snapshot(t: lakeshore.Table) -> list[dict[str, object]]:
    return sorted(t.to_arrow(columns=SCHEMA.names).to_pylist(), key=lambda r: r["id"])


def all_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.fixture()
def filled(table_path: str) -> lakeshore.Table:
    t = lakeshore.Table.create(table_path, SCHEMA, record_key="id", partition_by="city")
    t.insert(data(1, 2, 3))
    t.upsert(data(3, 4))
    return t


@pytest.mark.parametrize("content", [b"", b"{not json", b'{"name": "t"}', b"\x00\xff" * 10])
def test_corrupt_table_json(filled: lakeshore.Table, table_path: str, content: bytes) -> None:
    before = snapshot(filled)
    config = Path(table_path, ".lakeshore", "table.json")
    original = config.read_bytes()
    config.write_bytes(content)
    with pytest.raises(lakeshore.CorruptMetadataError, match="table.json"):
        lakeshore.Table.open(table_path)
    config.write_bytes(original)
    assert snapshot(lakeshore.Table.open(table_path)) == before


def test_truncated_instant_file(filled: lakeshore.Table, table_path: str) -> None:
    root = Path(table_path)
    latest = filled.timeline()[-1]["time"]
    completed = [
        p for p in (root / ".lakeshore" / "timeline").iterdir() if p.name.startswith(latest + "_") and p.is_file()
    ]
    assert len(completed) == 1, sorted(p.name for p in (root / ".lakeshore" / "timeline").iterdir())
    instant = completed[0]
    original = instant.read_bytes()
    before_files = all_files(root)
    instant.write_bytes(original[: len(original) // 2])
    with pytest.raises(lakeshore.CorruptMetadataError, match=instant.name):
        lakeshore.Table.open(table_path).to_arrow()
    with pytest.raises(lakeshore.CorruptMetadataError):
        lakeshore.Table.open(table_path).upsert(data(9))
    # nothing was deleted or changed besides the file we damaged
    after = all_files(root)
    for name, content in before_files.items():
        if name != str(instant.relative_to(root)):
            assert after.get(name) == content, name
    instant.write_bytes(original)
    assert snapshot(lakeshore.Table.open(table_path)) == snapshot(filled)


@pytest.mark.parametrize(
    "batch",
    [
        pa.table({"id": pa.array([5], pa.int64()), "city": ["oslo"]}),  # a column missing
        pa.table({"id": pa.array([5], pa.int64()), "city": ["oslo"], "v": ["text"]}),  # wrong type
        pa.table({"id": pa.array([5], pa.int64()), "city": ["oslo"], "v": pa.array([5], pa.int64()), "x": [1]}),
    ],
    ids=["missing-column", "wrong-type", "extra-column"],
)
def test_schema_mismatched_batch(filled: lakeshore.Table, batch: pa.Table) -> None:
    before, timeline = snapshot(filled), filled.timeline()
    with pytest.raises(lakeshore.SchemaMismatchError):
        filled.upsert(batch)
    assert snapshot(filled) == before
    assert [i for i in filled.timeline() if i["state"] == "completed"] == timeline
    filled.upsert(data(5))  # the table still takes good writes
    assert {r["id"] for r in snapshot(filled)} == {1, 2, 3, 4, 5}


def test_record_key_missing_from_schema(table_path: str) -> None:
    with pytest.raises(lakeshore.InvalidArgumentError, match="nope"):
        lakeshore.Table.create(table_path, SCHEMA, record_key="nope")
    assert not Path(table_path, ".lakeshore", "table.json").exists()


def test_batch_without_the_record_key(filled: lakeshore.Table) -> None:
    before = snapshot(filled)
    with pytest.raises(lakeshore.SchemaMismatchError, match="id"):
        filled.delete(pa.table({"city": ["oslo"]}))
    with pytest.raises(lakeshore.LakeshoreError, match="id"):
        filled.upsert(
            pa.table(
                {"id": pa.array([None, 7], pa.int64()), "city": ["oslo", "oslo"], "v": pa.array([1, 2], pa.int64())}
            )
        )
    assert snapshot(filled) == before


def test_open_where_no_table_is(tmp_path: Path) -> None:
    with pytest.raises(lakeshore.LakeshoreError):
        lakeshore.Table.open(str(tmp_path / "nothing-here"))
