"""Bad input gives a clear error and loses nothing: corrupt table.json, a truncated instant file,
a batch that does not match the schema, a missing record key."""

from __future__ import annotations

import datetime
import decimal
import os
from pathlib import Path
from typing import Any

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


@pytest.mark.parametrize(
    "content",
    [
        b"",  # no name
        b"hoodie.table.name=table\nhoodie.table.version=9\nhoodie.table.checksum=12345\n",  # checksum mismatch
        b"hoodie.table.name=table\nhoodie.table.version=\\u00zz\n",  # malformed escape
        b"hoodie.table.name=table\nhoodie.table.version=nine\n",
        b"\x00\xff" * 10,
    ],
)
def test_corrupt_hoodie_properties(filled: lakeshore.Table, table_path: str, content: bytes) -> None:
    before = snapshot(filled)
    before_files = all_files(Path(table_path))
    config = Path(table_path, ".hoodie", "hoodie.properties")
    original = config.read_bytes()
    config.write_bytes(content)
    with pytest.raises(lakeshore.CorruptMetadataError, match="hoodie.properties"):
        lakeshore.Table.open(table_path)
    with pytest.raises(lakeshore.LakeshoreError):
        lakeshore.vacuum(table_path, retain_hours=0, enforce_retention=False)
    config.write_bytes(original)
    assert all_files(Path(table_path)) == before_files  # nothing deleted or changed
    assert snapshot(lakeshore.Table.open(table_path)) == before


def test_unknown_table_version_is_named(filled: lakeshore.Table, table_path: str) -> None:
    config = Path(table_path, ".hoodie", "hoodie.properties")
    text = config.read_text().replace("hoodie.table.version=9", "hoodie.table.version=10")
    config.write_text(text)
    with pytest.raises(lakeshore.UnsupportedFeatureError, match="table version 10"):
        lakeshore.Table.open(table_path)


def test_truncated_instant_file(filled: lakeshore.Table, table_path: str) -> None:
    root = Path(table_path)
    latest = filled.timeline()[-1]["time"]
    completed = [
        p for p in (root / ".hoodie" / "timeline").iterdir() if p.name.startswith(latest + "_") and p.is_file()
    ]
    assert len(completed) == 1, sorted(p.name for p in (root / ".hoodie" / "timeline").iterdir())
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


# ---- found by outside testing: each a crash, a wrong answer or a deleted user file ----------


@pytest.mark.parametrize(
    "column",
    [
        pa.field("u", pa.dense_union([pa.field("a", pa.int64())])),
        pa.field("big", pa.uint64()),
        pa.field("bad name", pa.int64()),
        pa.field("wide", pa.decimal256(50, 5)),  # Spark and hudi-rs stop at precision 38 (hudi-rs panicked)
        pa.field("nested", pa.struct([pa.field("wide", pa.decimal256(39, 0))])),
        # Parquet has no group without fields: every write failed after create accepted it.
        pa.field("hollow", pa.struct([])),
        pa.field("hollows", pa.list_(pa.struct([]))),
    ],
    ids=[
        "union",
        "uint64",
        "name",
        "decimal_over_38",
        "nested_decimal_over_38",
        "empty_struct",
        "list_of_empty_struct",
    ],
)
def test_unsupported_column_type_is_an_error_not_an_abort(tmp_path: Path, column: pa.Field) -> None:
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), column])
    with pytest.raises(lakeshore.UnsupportedFeatureError, match=column.name):
        lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id")
    assert not (tmp_path / "t").exists() or not any((tmp_path / "t").rglob("*"))


def test_map_and_dictionary_columns_round_trip_and_hudi_rs_reads_them(tmp_path: Path) -> None:
    hudi = pytest.importorskip("hudi")
    schema = pa.schema(
        [
            pa.field("id", pa.int64(), nullable=False),
            pa.field("m", pa.map_(pa.string(), pa.int64())),
            pa.field("d", pa.dictionary(pa.int32(), pa.string())),
        ]
    )
    t = lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id")
    data = pa.table(
        {"id": [1, 2], "m": [[("a", 1)], None], "d": pa.array(["x", "y"]).dictionary_encode()}, schema=schema
    )
    t.insert(data)
    got = t.to_arrow(columns=["id", "m", "d"]).sort_by("id").to_pylist()
    assert got == [{"id": 1, "m": [("a", 1)], "d": "x"}, {"id": 2, "m": None, "d": "y"}]
    theirs = pa.Table.from_batches(hudi.HudiTable(str(tmp_path / "t")).read())
    assert sorted(theirs.select(["id", "d"]).to_pylist(), key=lambda r: r["id"]) == [
        {"id": 1, "d": "x"},
        {"id": 2, "d": "y"},
    ]


def test_every_arrow_layout_of_a_stored_type_is_written_as_that_type(tmp_path: Path) -> None:
    # Arrow's cast from list views (pyarrow 25) makes arrays whose offsets are one short, and the
    # Parquet writer read past them: a list_view column killed the interpreter. Each layout Arrow
    # has for a type the table stores is written, at any depth, as that type.
    views = pa.array([[1], None, [], [2, 3]], pa.list_view(pa.int32()))
    columns = {
        "lv": views,
        "llv": pa.array([[1], None, [], [2, 3]], pa.large_list_view(pa.int32())),
        "s": pa.StructArray.from_arrays([views], names=["x"]),
        "ll": pa.array([[[1]], [None], None, [[2, 3], []]], pa.list_(pa.list_view(pa.int32()))),
        "m": pa.array([[("a", [1])], None, [], [("b", [2, 3])]], pa.map_(pa.string(), pa.list_view(pa.int32()))),
        # Views may share values and run out of order; a list holds each entry's own.
        "shared": pa.ListViewArray.from_arrays([2, 0, 1, 0], [1, 3, 2, 0], pa.array([1, 2, 3], pa.int32())),
        "fsl": pa.array([[1, 2], None, [3, 4], [5, 6]], pa.list_(pa.int32(), 2)),
        "bv": pa.array([b"a", None, b"", b"bc"], pa.binary_view()),
        "sv": pa.array(["a", None, "", "bc"], pa.string_view()),
    }
    data = pa.table({"id": pa.array([1, 2, 3, 4]), **columns})
    t = lakeshore.Table.create(str(tmp_path / "t"), data.schema, record_key="id")
    t.insert(data)
    t.upsert(data.slice(3))
    got = t.to_arrow(columns=["id", *columns]).sort_by("id")
    for name, values in columns.items():
        assert got.column(name).to_pylist() == values.to_pylist(), name
    assert t.to_arrow().column("m").type == pa.map_(pa.string(), pa.list_(pa.field("element", pa.int32())))


def test_create_refuses_a_folder_holding_other_files(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    (folder / "photos").mkdir(parents=True)
    (folder / "notes.txt").write_text("mine")
    (folder / "photos" / "holiday.jpg").write_bytes(b"\xff\xd8")
    with pytest.raises(lakeshore.InvalidArgumentError, match="not empty.*'notes.txt', 'photos/'"):
        lakeshore.Table.create(str(folder), SCHEMA, record_key="id")
    assert sorted(all_files(folder)) == ["notes.txt", "photos/holiday.jpg"]
    assert not (folder / ".lakeshore").exists()


def test_create_refuses_a_folder_holding_a_delta_table(tmp_path: Path) -> None:
    deltalake = pytest.importorskip("deltalake")
    folder = tmp_path / "t"
    deltalake.write_deltalake(str(folder), pa.table({"id": [1, 2]}))
    before = all_files(folder)
    with pytest.raises(lakeshore.InvalidArgumentError, match="not empty.*_delta_log"):
        lakeshore.Table.create(str(folder), SCHEMA, record_key="id")
    assert all_files(folder) == before


def test_create_where_the_table_already_is(filled: lakeshore.Table, table_path: str) -> None:
    with pytest.raises(lakeshore.AlreadyExistsError):
        lakeshore.Table.create(table_path, SCHEMA, record_key="id")


def test_create_in_an_empty_folder_works(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    lakeshore.Table.create(str(tmp_path / "empty"), SCHEMA, record_key="id").insert(data(1))


@pytest.mark.parametrize(
    ("where", "why"),
    [
        ("t\x00x", "NUL byte"),
        ("file:///tmp/t\x00x", "NUL byte"),
        # A folder name that is not UTF-8 (Python spells its bytes with surrogates): named, not
        # nanobind's TypeError about argument types.
        (b"\xff", "not valid UTF-8"),
    ],
)
def test_a_path_that_cannot_name_a_table_is_refused(tmp_path: Path, where: str | bytes, why: str) -> None:
    if isinstance(where, bytes):
        path = os.fsdecode(bytes(tmp_path) + b"/" + where)
    else:
        path = str(tmp_path / where) if not where.startswith("file:") else where
    with pytest.raises(lakeshore.InvalidArgumentError, match=why):
        lakeshore.Table.create(path, SCHEMA, record_key="id")
    with pytest.raises(lakeshore.InvalidArgumentError, match=why):
        lakeshore.Table.open(path)
    with pytest.raises(lakeshore.InvalidArgumentError, match=why):
        lakeshore.vacuum(path)


def test_write_from_inside_its_own_progress_callback_is_an_error_not_a_deadlock(filled: lakeshore.Table) -> None:
    seen: list[str] = []

    def progress(phase: str, done: int, total: int, unit: str) -> None:
        if not seen:
            seen.append(phase)
            filled.upsert(data(99))  # the outer write holds the table: this must fail, not hang

    with pytest.raises(lakeshore.InvalidArgumentError, match="inside the progress callback"):
        filled.upsert(data(5), progress=progress)
    ids = [r["id"] for r in snapshot(filled)]
    # The inner write never started; its error, escaping the callback, stopped the outer one
    # before its commit point (docs/writes.md, "Progress callbacks").
    assert 5 not in ids and 99 not in ids
    filled.upsert(data(99))  # and the table is free again
    assert 99 in [r["id"] for r in snapshot(filled)]


INNER_OPERATIONS = {
    "savepoint": lambda t: t.savepoint(t.timeline()[-1]["time"]),
    "archive": lambda t: t.archive(),
    "create_index": lambda t: t.create_index("record_index"),
    "compact": lambda t: t.compact(),
    "cluster": lambda t: t.cluster(sort_by="v"),
    "rollback": lambda t: t.rollback(t.timeline()[-1]["time"]),
}


@pytest.mark.parametrize("outer", ["upsert", "cluster"])
@pytest.mark.parametrize("inner", sorted(INNER_OPERATIONS))
def test_any_operation_from_inside_a_progress_callback_is_an_error_not_a_deadlock(
    filled: lakeshore.Table, outer: str, inner: str
) -> None:
    # Found by outside testing: compact inside compact's callback, cluster inside cluster's,
    # savepoint, archive and create_index inside an upsert's each waited for ever on the
    # table the outer operation holds.
    before = snapshot(filled)
    errors: list[BaseException] = []

    def progress(phase: str, done: int, total: int, unit: str) -> None:
        if not errors:
            try:
                INNER_OPERATIONS[inner](filled)
            except lakeshore.InvalidArgumentError as e:
                errors.append(e)
                raise

    with pytest.raises(lakeshore.InvalidArgumentError, match="inside the progress callback of an operation on it"):
        if outer == "upsert":
            filled.upsert(data(5), progress=progress)
        else:
            filled.cluster(sort_by="v", small_file_limit_bytes=1 << 30, progress=progress)
    assert errors, "the callback never ran"
    assert snapshot(filled) == before
    filled.upsert(data(99))  # the table is free again
    assert 99 in [r["id"] for r in snapshot(filled)]


def test_a_table_written_from_a_callback_nested_in_its_own_is_refused_not_deadlocked(
    filled: lakeshore.Table, tmp_path: Path
) -> None:
    # Found by outside testing: A's callback wrote table B, and B's callback, on an engine
    # worker thread, wrote A: it waited for ever for the lock A's running write holds.
    other = lakeshore.Table.create(str(tmp_path / "b"), SCHEMA, record_key="id", partition_by="city")
    refused: list[BaseException] = []

    def inner(phase: str, done: int, total: int, unit: str) -> None:
        if phase == "writing" and not refused:
            try:
                filled.upsert(data(77))
            except lakeshore.InvalidArgumentError as e:
                refused.append(e)
                raise

    def outer(phase: str, done: int, total: int, unit: str) -> None:
        if phase == "writing" and not refused:
            other.upsert(data(66), progress=inner)

    before = snapshot(filled)
    with pytest.raises(lakeshore.InvalidArgumentError, match="inside the progress callback"):
        filled.upsert(data(5), progress=outer)
    assert refused and snapshot(filled) == before and snapshot(other) == []


def test_names_and_keys_that_are_not_utf8_are_errors_not_crashes(tmp_path: Path) -> None:
    """Names and keys end up in JSON metadata and file names; invalid UTF-8 once made the
    core's JSON writer throw."""
    bad_name = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field(b"\xff", pa.int64())])
    with pytest.raises(lakeshore.InvalidArgumentError, match="column name is not valid UTF-8"):
        lakeshore.Table.create(str(tmp_path / "bad_name"), bad_name, record_key="id")
    assert not (tmp_path / "bad_name").exists() or not any((tmp_path / "bad_name").rglob("*.json"))
    t = lakeshore.Table.create(str(tmp_path / "t"), SCHEMA, record_key="id", partition_by="city")
    bad = pa.table(
        {"id": pa.array([1], pa.int64()), "city": pa.array([b"\xff"]).view(pa.string()), "v": pa.array([1], pa.int64())}
    )
    with pytest.raises(lakeshore.SchemaMismatchError, match="not valid UTF-8"):
        t.insert(bad)
    assert t.to_arrow().num_rows == 0
    assert not any(p.suffix == ".parquet" for p in (tmp_path / "t").rglob("*"))


def test_a_partition_value_too_long_for_a_folder_name_is_refused_up_front(tmp_path: Path) -> None:
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("p", pa.string())])
    t = lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id", partition_by="p")
    before = all_files(tmp_path / "t")
    with pytest.raises(lakeshore.SchemaMismatchError, match="'p'.*bytes long"):
        t.insert(pa.table({"id": [1], "p": ["x" * 300]}, schema=schema))
    assert all_files(tmp_path / "t").keys() <= before.keys() | {
        k for k in all_files(tmp_path / "t") if k.startswith(".hoodie/.aux/lakeshore/lock")
    }
    # The table stays writable: the next write needs no rollback of a half-made folder.
    t.insert(pa.table({"id": [2], "p": ["ok"]}, schema=schema))
    assert t.to_arrow(columns=["id"]).column("id").to_pylist() == [2]


@pytest.mark.parametrize(
    ("blob", "why"),
    [
        ({"type": "OUT_OF_LINE", "data": None, "reference": None}, "without a reference"),
        ({"type": "INLINE", "data": None, "reference": None}, "INLINE blob without data"),
        ({"type": "SIDEWAYS", "data": b"x", "reference": None}, "neither INLINE nor OUT_OF_LINE"),
        (
            {
                "type": "OUT_OF_LINE",
                "data": None,
                "reference": {"external_path": "/a", "offset": -1, "length": 1, "managed": True},
            },
            "negative offset",
        ),
        (
            {
                "type": "OUT_OF_LINE",
                "data": None,
                "reference": {"external_path": "/a", "offset": 0, "length": -5, "managed": False},
            },
            "negative length",
        ),
        (
            {
                "type": "OUT_OF_LINE",
                "data": None,
                "reference": {"external_path": "", "offset": 0, "length": 1, "managed": False},
            },
            "without a reference",
        ),
    ],
)
def test_malformed_blob_values_are_refused_on_write(tmp_path: Path, blob: dict[str, Any], why: str) -> None:
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("photo", lakeshore.blob_type())])
    t = lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id")
    with pytest.raises(lakeshore.SchemaMismatchError, match=why):
        t.insert(pa.Table.from_pylist([{"id": 1, "photo": blob}], schema=schema))
    assert t.to_arrow().num_rows == 0
    t.insert(
        pa.Table.from_pylist(
            [{"id": 1, "photo": None}, {"id": 2, "photo": lakeshore.inline_blob(b"ok")}], schema=schema
        )
    )
    assert t.to_arrow().num_rows == 2


def test_delete_and_upsert_act_on_every_copy_of_a_key_an_insert_stored_twice(tmp_path: Path) -> None:
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
    t = lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id")
    # insert neither looks keys up nor de-duplicates its batch: each key is stored twice.
    t.insert(pa.table({"id": [1, 2, 1, 2], "v": ["a", "b", "a2", "b2"]}, schema=schema))
    assert t.to_arrow().num_rows == 4
    t.upsert(pa.table({"id": [1], "v": ["one"]}, schema=schema))
    assert sorted(r["v"] for r in t.to_arrow(columns=["id", "v"]).to_pylist() if r["id"] == 1) == ["one"]
    result = t.delete([2])
    assert result["records_deleted"] == 2
    assert sorted(t.to_arrow(columns=["id", "v"]).to_pylist(), key=lambda r: r["id"]) == [{"id": 1, "v": "one"}]


@pytest.mark.parametrize("table_type", ["cow", "mor"])
@pytest.mark.parametrize("index", ["SIMPLE", "BLOOM", "GLOBAL_SIMPLE"])
def test_delete_and_upsert_reach_a_key_stored_in_two_file_groups(tmp_path: Path, table_type: str, index: str) -> None:
    # Two bulk inserts store key 1 in two file groups. The index kept one location per key, so
    # delete([1]) removed one copy, reported success, and every reader still returned the other.
    # Hudi's simple and bloom indexes join the batch with every stored (key, file) pair: an
    # update or delete reaches each copy.
    import hudi

    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("ts", pa.int64()), ("v", pa.string())])
    root = tmp_path / "t"
    t = lakeshore.Table.create(
        str(root),
        schema,
        record_key="id",
        ordering_field="ts",
        table_type=table_type,
        properties={"hoodie.index.type": index},
    )
    t.bulk_insert(pa.table({"id": [1, 2], "ts": [1, 1], "v": ["a", "b"]}, schema=schema))
    t.bulk_insert(pa.table({"id": [1, 3], "ts": [2, 1], "v": ["a again", "c"]}, schema=schema))

    def ours() -> list[tuple[int, str]]:
        return sorted((r["id"], r["v"]) for r in t.to_arrow(columns=["id", "v"]).to_pylist())

    def theirs() -> list[tuple[int, str]]:
        read = pa.Table.from_batches(hudi.HudiTable(str(root)).read())
        return sorted(zip(read.column("id").to_pylist(), read.column("v").to_pylist(), strict=True))

    assert ours() == theirs() == [(1, "a"), (1, "a again"), (2, "b"), (3, "c")]
    updated = t.upsert(pa.table({"id": [1], "ts": [5], "v": ["new"]}, schema=schema))
    assert updated["records_updated"] == 2
    assert ours() == theirs() == [(1, "new"), (1, "new"), (2, "b"), (3, "c")]
    deleted = t.delete([1])
    assert deleted["records_deleted"] == 2
    assert ours() == theirs() == [(2, "b"), (3, "c")]


@pytest.mark.parametrize("value", [".hoodie", ".hoodie_partition_metadata", ".", ".."])
@pytest.mark.parametrize("url_encode", [False, True])
def test_a_partition_value_naming_the_tables_own_folders_is_refused(
    tmp_path: Path, value: str, url_encode: bool
) -> None:
    # Without hive-style names, the value `.hoodie` put a partition, its files and its
    # .hoodie_partition_metadata inside the table's metadata folder, which readers listing the
    # table skip: hudi-rs read a row fewer.
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("p", pa.string())])
    lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id", partition_by="p")
    props = tmp_path / "t" / ".hoodie" / "hoodie.properties"  # as Spark writes plain paths
    text = props.read_text().replace("hive_style_partitioning=true", "hive_style_partitioning=false")
    props.write_text(
        text if url_encode else text.replace("partitionpath.urlencode=true", "partitionpath.urlencode=false")
    )
    t = lakeshore.Table.open(str(tmp_path / "t"))
    with pytest.raises(lakeshore.SchemaMismatchError, match="cannot be a folder name"):
        t.insert(pa.table({"id": [1], "p": [value]}, schema=schema))
    t.insert(pa.table({"id": [2], "p": ["ok"]}, schema=schema))
    assert t.to_arrow(columns=["id"]).column("id").to_pylist() == [2]
    assert not list((tmp_path / "t" / ".hoodie").glob("*.parquet"))


@pytest.mark.parametrize("ordering", [0, 9])
def test_an_insert_packed_into_a_small_file_stores_a_stored_key_again(tmp_path: Path, ordering: int) -> None:
    # "A key already stored is stored again" held for inserts into new files only: one packed
    # into a small file holding its key merged into it by the ordering field, so the insert
    # vanished (a smaller ordering value) or replaced the stored row. Hudi keeps both
    # (hoodie.merge.allow.duplicate.on.inserts, default true).
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string()), ("ts", pa.int64())])
    root = tmp_path / "t"
    t = lakeshore.Table.create(str(root), schema, record_key="id", ordering_field="ts")
    t.insert(pa.table({"id": [1, 2], "v": ["a", "b"], "ts": [5, 5]}, schema=schema))
    result = t.insert(pa.table({"id": [1], "v": ["again"], "ts": [ordering]}, schema=schema))
    assert result["records_inserted"] == 1
    rows = sorted((r["id"], r["v"]) for r in t.to_arrow(columns=["id", "v"]).to_pylist())
    assert rows == [(1, "a"), (1, "again"), (2, "b")]
    import hudi

    batches = hudi.HudiTable(str(root)).read()
    theirs = pa.Table.from_batches(batches)
    assert sorted(zip(theirs.column("id").to_pylist(), theirs.column("v").to_pylist(), strict=True)) == rows


@pytest.mark.parametrize("lease", ["1", "1000", "4999"])
def test_a_lock_lease_too_short_to_commit_is_refused_up_front(tmp_path: Path, lease: str) -> None:
    # A commit keeps a second of the lease in hand: a lease of a second or less was accepted and
    # then every write failed with LockTimeoutError, even alone on the table.
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
    with pytest.raises(lakeshore.InvalidArgumentError, match="write.lock.lease_ms.*5000"):
        lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id", properties={"write.lock.lease_ms": lease})
    t = lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id", properties={"write.lock.lease_ms": "5000"})
    t.upsert(pa.table({"id": pa.array([1], pa.int64()), "v": ["a"]}, schema=schema))
    assert t.to_arrow(columns=["id"]).column("id").to_pylist() == [1]


@pytest.mark.parametrize("cut", [8, 200])
def test_a_truncated_log_file_of_a_completed_write_is_corrupt_not_skipped(tmp_path: Path, cut: int) -> None:
    # Lakeshore and Hudi 1.x write each log file whole. One that lost its tail after its commit
    # was read as a crashed append (its damaged block skipped): the committed delete was undone
    # without a word, and a compaction then made that state permanent.
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("ts", pa.int64()), ("v", pa.string())])
    root = tmp_path / "t"
    t = lakeshore.Table.create(str(root), schema, record_key="id", ordering_field="ts", table_type="mor")
    t.bulk_insert(pa.table({"id": [1, 2, 3], "ts": [1, 1, 1], "v": ["a", "b", "c"]}, schema=schema))
    t.upsert(pa.table({"id": [1], "ts": [2], "v": ["updated"]}, schema=schema))
    before = set(os.listdir(root))
    t.delete([2])
    (log,) = [f for f in set(os.listdir(root)) - before if ".log." in f]
    data = (root / log).read_bytes()
    (root / log).write_bytes(data[: max(1, len(data) - cut)])
    with pytest.raises(lakeshore.CorruptMetadataError, match=f"{log}.*damaged"):
        lakeshore.Table.open(str(root)).to_arrow()
    with pytest.raises(lakeshore.CorruptMetadataError, match=f"{log}.*damaged"):
        lakeshore.Table.open(str(root)).compact()
    (root / log).write_bytes(data)  # repaired: nothing was lost
    rows = lakeshore.Table.open(str(root)).to_arrow(columns=["id", "v"]).to_pylist()
    assert sorted((r["id"], r["v"]) for r in rows) == [(1, "updated"), (3, "c")]


LOSSY_CASTS = {
    "double into decimal(10,2)": (pa.decimal128(10, 2), pa.array([1.2345], pa.float64())),
    "timestamp into date": (pa.date32(), pa.array([datetime.datetime(2026, 1, 1, 13, 30)], pa.timestamp("us"))),
    "double overflowing float": (pa.float32(), pa.array([1e300], pa.float64())),
    "int64 into bool": (pa.bool_(), pa.array([5], pa.int64())),
    "int64 beyond a double's 53 bits": (pa.float64(), pa.array([2**53 + 1], pa.int64())),
    "int64 beyond a decimal's precision": (pa.decimal128(5, 2), pa.array([123456], pa.int64())),
}
LOSSLESS_CASTS = {
    "double into decimal(10,2)": (pa.decimal128(10, 2), pa.array([1.23, 0.1, None], pa.float64())),
    "double rounded into float": (pa.float32(), pa.array([0.1, float("nan"), float("inf")], pa.float64())),
    "int16 into int32": (pa.int32(), pa.array([7, -3], pa.int16())),
    "date into timestamp": (pa.timestamp("us"), pa.array([datetime.date(2026, 1, 1)], pa.date32())),
    "int64 0 and 1 into bool": (pa.bool_(), pa.array([0, 1], pa.int64())),
    # Arrow refused any int64 for a decimal without room for every int64 (21 digits here).
    "int64 into decimal(5,2)": (pa.decimal128(5, 2), pa.array([2, -7, None], pa.int64())),
}


@pytest.mark.parametrize("case", sorted(LOSSY_CASTS))
def test_a_write_refuses_a_cast_that_changes_a_value(tmp_path: Path, case: str) -> None:
    # Arrow's "safe" cast rounded 1.2345 into 1.23, dropped 13:30 from a date, made 1e300 inf
    # and 5 True, and the write stored that without a word.
    kind, values = LOSSY_CASTS[case]
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("c", kind)])
    t = lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id")
    ids = pa.array(range(len(values)), pa.int64())
    with pytest.raises(
        lakeshore.SchemaMismatchError, match="column 'c'.*(loses information|not in range|does not fit)"
    ):
        t.upsert(pa.table({"id": ids, "c": values}))
    assert t.to_arrow().num_rows == 0


@pytest.mark.parametrize("case", sorted(LOSSLESS_CASTS))
def test_a_write_takes_a_cast_that_keeps_the_values(tmp_path: Path, case: str) -> None:
    kind, values = LOSSLESS_CASTS[case]
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("c", kind)])
    t = lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id")
    ids = pa.array(range(len(values)), pa.int64())
    t.upsert(pa.table({"id": ids, "c": values}))
    stored = t.to_arrow(columns=["id", "c"]).sort_by("id").column("c")
    try:
        expected = values.cast(stored.type)
    except pa.ArrowInvalid:  # pyarrow's own cast refuses int64 into a narrow decimal
        expected = pa.array(values.to_pylist(), stored.type)
    assert repr(stored.to_pylist()) == repr(expected.to_pylist())  # NaN as NaN


@pytest.mark.parametrize(
    "key_type, stored, asked",
    [
        (
            pa.timestamp("ms", tz="UTC"),
            datetime.datetime(2026, 1, 1, 0, 0, 0, 1000, tzinfo=datetime.UTC),
            datetime.datetime(2026, 1, 1, 0, 0, 0, 1500, tzinfo=datetime.UTC),
        ),
        (pa.date32(), datetime.date(2026, 1, 2), datetime.datetime(2026, 1, 2, 13, 30)),
    ],
)
def test_a_key_finer_than_its_field_is_refused_not_truncated(
    tmp_path: Path, key_type: pa.DataType, stored: Any, asked: Any
) -> None:
    # delete([00:00:00.0015]) on a millisecond key removed the record keyed 00:00:00.001, and a
    # datetime removed the record keyed by its date: the value was cast to the field's type.
    schema = pa.schema([pa.field("k", key_type, nullable=False), ("v", pa.int64())])
    t = lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="k")
    t.upsert(pa.table({"k": pa.array([stored], key_type), "v": [1]}, schema=schema))
    with pytest.raises(TypeError, match="record key field 'k'.*cannot hold"):
        t.delete([asked])
    with pytest.raises(TypeError, match="record key field 'k'.*cannot hold"):
        t.lookup([asked])
    assert t.to_arrow(columns=["v"]).column("v").to_pylist() == [1]
    t.delete([stored])
    assert t.to_arrow().num_rows == 0


def test_no_partition_named_drops_nothing_on_an_unpartitioned_table(tmp_path: Path) -> None:
    # On a table without partitions, delete_partitions([]) and an insert_overwrite of no rows
    # replaced every file group: its one partition, "", was taken as named.
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("v", pa.string())])
    t = lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id")
    t.upsert(pa.table({"id": [1, 2, 3], "v": ["a", "b", "c"]}, schema=schema))
    with pytest.raises(lakeshore.InvalidArgumentError, match="not partitioned"):
        t.delete_partitions([])
    result = t.insert_overwrite(pa.table({"id": pa.array([], pa.int64()), "v": pa.array([], pa.string())}))
    assert result["file_groups_replaced"] == 0
    assert t.to_arrow().num_rows == 3
    t.insert_overwrite_table(schema.empty_table())  # the explicit way to empty it
    assert t.to_arrow().num_rows == 0


@pytest.mark.parametrize("folder", ["blobs", "p=x", "_blobs", ".blobs", "outside"])
def test_a_blob_is_kept_where_no_vacuum_deletes_it(tmp_path: Path, folder: str) -> None:
    # A record referencing a file in a visible folder of the table lost it to the next vacuum
    # past retention: vacuum deletes what the timeline does not name.
    import time

    schema = pa.schema(
        [pa.field("id", pa.int64(), nullable=False), ("p", pa.string()), ("photo", lakeshore.blob_type())]
    )
    root = tmp_path / "t"
    t = lakeshore.Table.create(str(root), schema, record_key="id", partition_by="p")
    blob = (tmp_path / "a.jpg") if folder == "outside" else (root / folder / "a.jpg")
    blob.parent.mkdir(parents=True, exist_ok=True)
    blob.write_bytes(b"jpeg")
    rows = pa.Table.from_pylist([{"id": 1, "p": "x", "photo": lakeshore.out_of_line_blob(str(blob))}], schema=schema)
    if folder in ("blobs", "p=x"):
        with pytest.raises(lakeshore.SchemaMismatchError, match="inside the table where a vacuum may delete it"):
            t.insert(rows)
        return
    t.insert(rows)
    old = time.time() - 30 * 86400
    os.utime(blob, (old, old))
    lakeshore.vacuum(str(root))
    assert blob.exists()


def test_a_polars_categorical_column_is_written_as_strings(tmp_path: Path) -> None:
    # polars exports Categorical and Enum as dictionary<string_view>, which Arrow 25 cannot
    # decode: the write failed with "array_take has no kernel".
    import polars as pl

    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("city", pa.string())])
    t = lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id", partition_by="city")
    frame = pl.DataFrame({"id": [1, 2, 3], "city": ["oslo", "lima", "oslo"]})
    t.upsert(frame.with_columns(pl.col("city").cast(pl.Categorical)))
    t.upsert(frame.with_columns(pl.col("city").cast(pl.Enum(["lima", "oslo"]))))
    rows = sorted((r["id"], r["city"]) for r in t.to_arrow(columns=["id", "city"]).to_pylist())
    assert rows == [(1, "oslo"), (2, "lima"), (3, "oslo")]


def test_a_file_uri_is_percent_decoded_and_a_name_is_required(tmp_path: Path) -> None:
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False)])
    folder = tmp_path / "my table"
    t = lakeshore.Table.create(folder.as_uri(), schema, record_key="id")  # file:///.../my%20table
    t.upsert(pa.table({"id": [1]}, schema=schema))
    assert (folder / ".hoodie" / "hoodie.properties").exists()
    assert lakeshore.Table.open(folder.as_uri()).to_arrow().num_rows == 1
    with pytest.raises(lakeshore.InvalidArgumentError, match="needs a name"):
        lakeshore.Table.create(str(tmp_path / "unnamed"), schema, record_key="id", name="")
    lakeshore.Table.create(str(tmp_path / "unnamed"), schema, record_key="id")  # nothing was left behind


@pytest.mark.parametrize(
    "field, value",
    [("day", datetime.datetime(2026, 1, 2, 13, 30)), ("ts", datetime.datetime(2026, 1, 1, 0, 0, 0, 1500)), ("id", 1.5)],
)
@pytest.mark.parametrize("op", ["=", "<", ">="])
def test_a_filter_value_finer_than_its_field_is_refused_not_truncated(
    tmp_path: Path, field: str, value: Any, op: str
) -> None:
    # "day < 2026-01-02 13:30" read the value as the date 2026-01-02 and left that day out.
    schema = pa.schema(
        [pa.field("id", pa.int64(), nullable=False), ("ts", pa.timestamp("ms", tz="UTC")), ("day", pa.date32())]
    )
    t = lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id")
    base = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    t.upsert(
        pa.table(
            {
                "id": [1, 2, 3],
                "ts": [base + datetime.timedelta(milliseconds=k) for k in (1, 2, 3)],
                "day": [datetime.date(2026, 1, k) for k in (1, 2, 3)],
            },
            schema=schema,
        )
    )
    with pytest.raises(lakeshore.InvalidArgumentError, match=f"filter on '{field}'.*cannot be read"):
        t.to_arrow(filter=[(field, op, value)])


@pytest.mark.parametrize(
    "label",
    [
        "relative table",
        "blob through a link",
        "table through a link",
        "file:/",
        "file://localhost",
        "dot-dot",
        "nested",
    ],
)
def test_a_blob_inside_the_table_is_refused_however_it_is_spelled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, label: str
) -> None:
    # The in-table check compared text: a relative table path, a symbolic link, other file: URI
    # spellings, an escaped "..", or a blob inside a list slipped through, and vacuum deleted
    # the referenced file.
    root = tmp_path / "t"
    root.mkdir()
    (tmp_path / "link").symlink_to(root)
    monkeypatch.chdir(tmp_path)
    blob = root / "blobs" / "a.jpg"
    table_path = {"relative table": "t", "table through a link": str(tmp_path / "link")}.get(label, str(root))
    reference = {
        "blob through a link": str(tmp_path / "link" / "blobs" / "a.jpg"),
        "file:/": f"file:{blob}",
        "file://localhost": f"file://localhost{blob}",
        "dot-dot": f"file://{root}/_h/%2E%2E/blobs/a.jpg",
    }.get(label, str(blob))
    photo = lakeshore.out_of_line_blob(reference)
    if label == "nested":
        schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("photos", pa.list_(lakeshore.blob_type()))])
        rows = pa.Table.from_pylist([{"id": 1, "photos": [photo]}], schema=schema)
    else:
        schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("photo", lakeshore.blob_type())])
        rows = pa.Table.from_pylist([{"id": 1, "photo": photo}], schema=schema)
    t = lakeshore.Table.create(table_path, schema, record_key="id")
    blob.parent.mkdir()
    blob.write_bytes(b"jpeg")
    with pytest.raises(lakeshore.SchemaMismatchError, match="inside the table where a vacuum may delete it"):
        t.insert(rows)


@pytest.mark.parametrize(
    "label",
    ["link then dot-dot", "FILE:", "File:/", "file://LOCALHOST", "local://", ".hoodie", "partition/_b", "other table"],
)
def test_a_blob_a_vacuum_or_reader_could_lose_is_refused_however_it_is_spelled(tmp_path: Path, label: str) -> None:
    # Found from outside: each spelling was accepted, then vacuum (or drop_index under .hoodie,
    # or the other table's vacuum) deleted the referenced file; a hidden folder inside a
    # partition made hudi-rs skip the partition's rows.
    root = tmp_path / "t"
    schema = pa.schema(
        [pa.field("id", pa.int64(), nullable=False), ("city", pa.string()), ("photo", lakeshore.blob_type())]
    )
    t = lakeshore.Table.create(str(root), schema, record_key="id", partition_by="city")
    t.insert(pa.Table.from_pylist([{"id": 0, "city": "oslo", "photo": None}], schema=schema))
    (root / "city=oslo" / "sub").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "link").symlink_to(root / "city=oslo" / "sub")
    other = tmp_path / "other"
    lakeshore.Table.create(str(other), schema, record_key="id")
    (other / "day=1").mkdir()
    blob = root / "city=oslo" / "x.jpg"
    reference = {
        "link then dot-dot": str(tmp_path / "out" / "link" / ".." / "x.jpg"),
        "FILE:": f"FILE://{blob}",
        "File:/": f"File:{blob}",
        "file://LOCALHOST": f"file://LOCALHOST{blob}",
        "local://": f"local://{blob}",
        ".hoodie": str(root / ".hoodie" / "x.jpg"),
        "partition/_b": str(root / "city=oslo" / "_b" / "x.jpg"),
        "other table": str(other / "day=1" / "x.jpg"),
    }[label]
    rows = pa.Table.from_pylist(
        [{"id": 1, "city": "oslo", "photo": lakeshore.out_of_line_blob(reference)}], schema=schema
    )
    with pytest.raises(lakeshore.SchemaMismatchError, match="references .*(inside|in) the table"):
        t.insert(rows)
    assert t.to_arrow().num_rows == 1


@pytest.mark.parametrize("reference", ["city=oslo/x.jpg", "x.jpg", "/", "..", "/data/a\x00b.jpg"])
def test_a_blob_reference_naming_no_file_or_relative_to_the_reader_is_refused(tmp_path: Path, reference: str) -> None:
    # A relative reference was judged against the writer's folder and stored as given: readers
    # elsewhere, and the vacuum's view of the table, read another file.
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("photo", lakeshore.blob_type())])
    t = lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id")
    rows = pa.Table.from_pylist([{"id": 1, "photo": lakeshore.out_of_line_blob(reference)}], schema=schema)
    with pytest.raises(lakeshore.SchemaMismatchError, match="NUL byte|names a folder|neither an absolute path"):
        t.insert(rows)


@pytest.mark.parametrize("folder", ["_change_data", "_delta_index", "_p=x"])
def test_a_blob_under_a_folder_vacuum_lists_is_refused(tmp_path: Path, folder: str) -> None:
    # These start with '_' but a vacuum lists them (Delta's rule, and a partition column "_p").
    schema = pa.schema(
        [pa.field("id", pa.int64(), nullable=False), ("_p", pa.string()), ("photo", lakeshore.blob_type())]
    )
    root = tmp_path / "t"
    t = lakeshore.Table.create(str(root), schema, record_key="id", partition_by="_p")
    blob = root / folder / "a.jpg"
    rows = pa.Table.from_pylist([{"id": 1, "_p": "x", "photo": lakeshore.out_of_line_blob(str(blob))}], schema=schema)
    with pytest.raises(lakeshore.SchemaMismatchError, match="inside the table where a vacuum may delete it"):
        t.insert(rows)


def test_a_cast_inside_a_struct_a_list_or_a_dictionary_keeps_values_or_is_refused(tmp_path: Path) -> None:
    # The cast check looked at top-level numbers alone: 1.234 into a struct's decimal(10,2)
    # child became 1.23, and dictionary-encoded keys 1.234 deleted the record keyed 1.23.
    kind = pa.decimal128(10, 2)
    schema = pa.schema([pa.field("id", kind, nullable=False), ("s", pa.struct([("d", kind)])), ("l", pa.list_(kind))])
    t = lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id")
    stored = pa.array([decimal.Decimal("1.23")], kind)
    t.upsert(
        pa.table(
            {
                "id": stored,
                "s": pa.array([{"d": decimal.Decimal("1.5")}], schema.field("s").type),
                "l": pa.array([[decimal.Decimal("2.25")]], schema.field("l").type),
            }
        )
    )
    lossy_struct = pa.array([{"d": 1.234}], pa.struct([("d", pa.float64())]))
    with pytest.raises(lakeshore.SchemaMismatchError, match="column 's'.*loses information"):
        t.upsert(pa.table({"id": stored, "s": lossy_struct, "l": pa.array([[2.25]], pa.list_(pa.float64()))}))
    with pytest.raises(lakeshore.SchemaMismatchError, match="column 'l'.*loses information"):
        t.upsert(
            pa.table(
                {
                    "id": stored,
                    "s": pa.array([{"d": 1.5}], lossy_struct.type),
                    "l": pa.array([[2.251]], pa.list_(pa.float64())),
                }
            )
        )
    keys = pa.array([1.234], pa.float64()).dictionary_encode()
    with pytest.raises(lakeshore.LakeshoreError, match="loses information"):
        t.delete(pa.table({"id": keys}))
    assert t.to_arrow().num_rows == 1


def test_a_filter_value_a_float_column_holds_only_rounded_is_refused(tmp_path: Path) -> None:
    # 0.1 as a float32 is 0.100000001: "f > 0.1" missed the row holding float32(0.1).
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("f", pa.float32())])
    t = lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id")
    t.upsert(pa.table({"id": [1], "f": pa.array([0.1], pa.float32())}, schema=schema))
    with pytest.raises(lakeshore.InvalidArgumentError, match="cannot be read"):
        t.to_arrow(filter=[("f", ">", 0.1)])
    assert t.to_arrow(columns=["id"], filter=[("f", ">", 0.0625)]).column("id").to_pylist() == [1]


def test_a_decimal_of_negative_scale_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("d", pa.decimal128(10, -2))])
    with pytest.raises(lakeshore.UnsupportedFeatureError, match="scale -2"):
        lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id")
    assert not (tmp_path / "t" / ".hoodie").exists()


@pytest.mark.parametrize("kind, text", [(pa.float32(), "1e300"), (pa.float64(), "1e400")])
def test_text_overflowing_a_float_column_is_refused_and_infinity_kept(
    tmp_path: Path, kind: pa.DataType, text: str
) -> None:
    # "1e300" parsed into a float32 column (and "1e400" into a double) was stored as inf.
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("f", kind)])
    t = lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id")
    with pytest.raises(lakeshore.SchemaMismatchError, match="column 'f'.*loses information"):
        t.upsert(pa.table({"id": [1], "f": [text]}))
    t.upsert(pa.table({"id": [1, 2, 3], "f": ["inf", "-Infinity", "0.5"]}))
    assert sorted(t.to_arrow(columns=["f"]).column("f").to_pylist()) == [float("-inf"), 0.5, float("inf")]


def test_a_null_inside_a_non_nullable_nested_field_names_the_column(table_path: str) -> None:
    # The Parquet writer refused it naming only 'element' (or a map's 'value'), after the
    # batch was accepted.
    schema = pa.schema(
        [
            pa.field("id", pa.int64(), nullable=False),
            pa.field("scores", pa.list_(pa.field("item", pa.int32(), nullable=False))),
            pa.field("tags", pa.map_(pa.string(), pa.field("value", pa.int32(), nullable=False))),
            pa.field("who", pa.struct([pa.field("name", pa.string(), nullable=False)])),
        ]
    )
    t = lakeshore.Table.create(table_path, schema, record_key="id")
    good = {"id": 1, "scores": [1], "tags": [("a", 1)], "who": {"name": "x"}}
    bad = [
        ("scores", {"scores": pa.array([[1, None]], pa.list_(pa.int32()))}, "scores.element"),
        ("tags", {"tags": pa.array([[("a", None)]], pa.map_(pa.string(), pa.int32()))}, "tags.value"),
        ("who", {"who": pa.array([{"name": None}], pa.struct([("name", pa.string())]))}, "name"),
    ]
    for column, override, path in bad:
        columns = {k: pa.array([v], schema.field(k).type) for k, v in good.items()}
        columns.update(override)
        with pytest.raises(lakeshore.SchemaMismatchError, match=f"column '{column}'.*'{path}'"):
            t.insert(pa.table(columns))
    # A null under a null parent is no null of the child: a null list, map or struct is fine.
    t.insert(
        pa.table(
            {
                "id": pa.array([2], pa.int64()),
                "scores": pa.array([None], schema.field("scores").type),
                "tags": pa.array([None], schema.field("tags").type),
                "who": pa.array([None], schema.field("who").type),
            }
        )
    )
    assert t.to_arrow(columns=["id"]).num_rows == 1


def test_a_batch_naming_a_column_twice_is_refused_as_such(filled: lakeshore.Table) -> None:
    twice = pa.table([pa.array([9]), pa.array(["oslo"]), pa.array([1]), pa.array([2])], names=["id", "city", "v", "v"])
    with pytest.raises(lakeshore.SchemaMismatchError, match="column 'v' twice"):
        filled.insert(twice)


def test_a_filter_value_beyond_64_bits_is_refused_naming_the_field(filled: lakeshore.Table) -> None:
    with pytest.raises(lakeshore.InvalidArgumentError, match="'v'"):
        filled.to_arrow(filter=[("v", "<", 2**70)])
    with pytest.raises(lakeshore.InvalidArgumentError, match="'v'"):
        filled.to_arrow(filter=[("v", "in", [1, -(2**64)])])


def test_a_failing_arrow_stream_of_keys_to_delete_is_a_lakeshore_error(filled: lakeshore.Table) -> None:
    before = snapshot(filled)

    class Failing:
        def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
            schema = pa.schema([pa.field("id", pa.int64(), nullable=False)])

            def batches() -> Any:
                yield pa.record_batch({"id": pa.array([1], pa.int64())}, schema=schema)
                raise ValueError("source failed")

            return pa.RecordBatchReader.from_batches(schema, batches()).__arrow_c_stream__(requested_schema)

    for op in (filled.delete, filled.upsert):
        with pytest.raises(lakeshore.InvalidArgumentError, match="source failed"):
            op(Failing())
    assert snapshot(filled) == before


def test_a_null_list_entry_over_hidden_null_values_is_accepted(table_path: str) -> None:
    # A null fixed-size list (pyarrow puts nulls in its hidden child slots) and a null list
    # entry whose offsets span null values were refused as nulls in the non-nullable element.
    item = pa.field("item", pa.int64(), nullable=False)
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("x", pa.list_(item))])
    t = lakeshore.Table.create(table_path, schema, record_key="id")
    fixed = pa.array([[1, 2], None], pa.list_(item, 2))
    spanning = pa.ListArray.from_arrays(
        pa.array([0, 2, 4], pa.int32()), pa.array([3, 4, None, None], pa.int64()), mask=pa.array([False, True])
    ).cast(pa.list_(item))
    t.insert(pa.table({"id": pa.array([1, 2], pa.int64()), "x": fixed}))
    t.insert(pa.table({"id": pa.array([3, 4], pa.int64()), "x": spanning}))
    got = {r["id"]: r["x"] for r in t.to_arrow(columns=["id", "x"]).to_pylist()}
    assert got == {1: [1, 2], 2: None, 3: [3, 4], 4: None}
    # A null inside a valid entry is still refused.
    with pytest.raises(lakeshore.SchemaMismatchError, match="'x.element'"):
        t.insert(pa.table({"id": pa.array([5], pa.int64()), "x": pa.array([[1, None]], pa.list_(pa.int64(), 2))}))


def test_filter_integers_beyond_int64_are_exact_or_refused(table_path: str) -> None:
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("f", pa.float64())])
    t = lakeshore.Table.create(table_path, schema, record_key="id")
    t.insert(pa.table({"id": pa.array([1, 2], pa.int64()), "f": pa.array([2.0**64, -(2.0**63)])}))
    with pytest.raises(lakeshore.InvalidArgumentError, match="'id'"):
        t.to_arrow(filter=[("id", "<", 2**63)])  # beyond int64: refused as every value an int64 cannot hold
    assert t.to_arrow(columns=["id"], filter=[("f", "=", 2**64)]).column("id").to_pylist() == [1]
    for value in (2**64 + 1, -(2**63) - 1):
        with pytest.raises(lakeshore.InvalidArgumentError, match="'f'"):
            t.to_arrow(filter=[("f", "=", value)])


@pytest.mark.parametrize(
    ("call", "error", "names"),
    [
        (lambda t: t.to_arrow(read_optimized="no"), TypeError, "read_optimized"),
        (lambda t: t.archive(keep_min_commits="5"), TypeError, "keep_min_commits"),
        (lambda t: t.compact(min_log_bytes=1.5), TypeError, "min_log_bytes"),
        (lambda t: t.cluster(small_file_limit_bytes=2**70), ValueError, "small_file_limit_bytes"),
        (lambda t: t.cluster(schedule_only=1), TypeError, "schedule_only"),
        (lambda t: t.write(data(7), mode=None), TypeError, "mode"),
    ],
    ids=["read_optimized", "keep_min_commits", "min_log_bytes", "small_file_limit_bytes", "schedule_only", "mode"],
)
def test_an_argument_of_the_wrong_type_is_named(filled: lakeshore.Table, call: Any, error: type, names: str) -> None:
    # Found by outside testing: these came back as nanobind's "incompatible function arguments"
    # dump of the binding's signature, naming no parameter.
    with pytest.raises(error, match=names):
        call(filled)


def test_one_partition_to_cluster_is_one_path_not_its_characters(filled: lakeshore.Table) -> None:
    # Found by outside testing: cluster(partitions="city=oslo") was split into characters.
    result = filled.cluster(sort_by="v", small_file_limit_bytes=1 << 30, partitions="city=oslo")
    assert result["completed"] is True
