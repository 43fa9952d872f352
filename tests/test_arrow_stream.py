"""Arrow data crosses into the core and back through the C stream interface, zero-copy."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest

import lakeshore
from lakeshore import _core
from lakeshore._arrow import schema_capsule, schema_from_capsule, stream_capsule, table_from_capsule


def _roundtrip(data: object) -> pa.Table:
    return table_from_capsule(_core.stream_roundtrip(stream_capsule(data)))


def _sample() -> pa.Table:
    return pa.table(
        {
            "id": pa.array([1, 2, 3], pa.int64()),
            "name": pa.array(["a", None, "c"]),
            "ts": pa.array([0, 1, 2], pa.timestamp("ms")),
            "tags": pa.array([["x"], [], None], pa.list_(pa.string())),
        }
    )


def test_table_roundtrip_is_equal_and_zero_copy() -> None:
    t = _sample()
    out = _roundtrip(t)
    assert out.equals(t)
    assert out.schema == t.schema
    src = t.column("id").chunk(0).buffers()[1]
    dst = out.column("id").chunk(0).buffers()[1]
    assert dst.address == src.address  # the core read the producer's memory, not a copy


def test_record_batch_and_reader_inputs() -> None:
    t = _sample()
    assert _roundtrip(t.to_batches()[0]).equals(t)
    reader = pa.RecordBatchReader.from_batches(t.schema, t.to_batches(max_chunksize=1))
    assert _roundtrip(reader).equals(t)


def test_python_generator_stream_runs_with_the_gil_released() -> None:
    # The core releases the GIL while it pulls batches; pyarrow's reader takes it back to run
    # this generator. A deadlock or crash here means the GIL handling is wrong.
    schema = pa.schema([("n", pa.int64())])

    def batches() -> Iterator[pa.RecordBatch]:
        for i in range(50):
            yield pa.record_batch([pa.array(range(i * 10, i * 10 + 10), pa.int64())], schema=schema)

    out = _roundtrip(pa.RecordBatchReader.from_batches(schema, batches()))
    assert out.num_rows == 500
    assert out.column("n").to_pylist() == list(range(500))


def test_error_inside_the_producer_surfaces_with_its_message() -> None:
    schema = pa.schema([("n", pa.int64())])

    def batches() -> Iterator[pa.RecordBatch]:
        yield pa.record_batch([pa.array([1], pa.int64())], schema=schema)
        raise RuntimeError("producer broke at batch 2")

    with pytest.raises(lakeshore.LakeshoreError, match="producer broke at batch 2"):
        _roundtrip(pa.RecordBatchReader.from_batches(schema, batches()))


def test_foreign_producer_with_only_the_protocol() -> None:
    t = _sample()

    class Foreign:
        def __arrow_c_stream__(self, requested_schema: object = None) -> object:
            return t.__arrow_c_stream__(requested_schema)

    assert _roundtrip(Foreign()).equals(t)


def test_capsule_is_consumed_once() -> None:
    capsule = stream_capsule(_sample())
    _core.stream_roundtrip(capsule)
    with pytest.raises(ValueError, match="already consumed"):
        _core.stream_roundtrip(capsule)


def test_non_arrow_input_is_refused() -> None:
    with pytest.raises(TypeError, match="expected Arrow data"):
        stream_capsule({"id": [1, 2]})
    with pytest.raises(TypeError, match="arrow_array_stream"):
        _core.stream_roundtrip(object())


def test_schema_roundtrip_keeps_metadata_and_nesting() -> None:
    schema = pa.schema(
        [pa.field("id", pa.int64(), nullable=False), pa.field("s", pa.struct([("a", pa.binary())]))],
        metadata={b"k": b"v"},
    )
    assert schema_from_capsule(_core.schema_roundtrip(schema_capsule(schema))).equals(schema, check_metadata=True)


@pytest.mark.parametrize("how", ["raise", "ctrl-c"])
def test_an_exception_in_a_writes_data_source_reaches_the_caller_as_itself(tmp_path: object, how: str) -> None:
    # Ctrl-C while the core pulled rows from a Python generator came out as InvalidArgumentError
    # (a ValueError) carrying the text of the KeyboardInterrupt: `except ValueError` swallowed
    # the user's Ctrl-C and `except KeyboardInterrupt` never fired. The source's own exception
    # is raised now, noting that nothing was written.
    import os
    import signal
    import threading
    import time

    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("v", pa.int64())])
    t = lakeshore.Table.create(f"{tmp_path}/t", schema, record_key="id")

    def batches() -> Iterator[pa.RecordBatch]:
        for i in range(400):
            if how == "raise" and i == 3:
                raise OSError("the source's network went away")
            time.sleep(0.01)
            yield pa.record_batch({"id": pa.array([i], pa.int64()), "v": pa.array([1], pa.int64())}, schema=schema)

    expected: type[BaseException] = OSError if how == "raise" else KeyboardInterrupt
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)) if how == "ctrl-c" else None
    if timer:
        timer.start()
    with pytest.raises(expected) as raised:
        t.upsert(pa.RecordBatchReader.from_batches(schema, batches()))
    assert any("nothing of it is visible" in n for n in raised.value.__notes__)
    assert isinstance(raised.value.__cause__, lakeshore.LakeshoreError)
    assert t.to_arrow().num_rows == 0
    assert not [i for i in t.timeline() if i["state"] == "completed"]


@pytest.mark.parametrize(
    "kind", [pa.int32(), pa.large_string()], ids=["int32_under_int64", "large_string_under_string"]
)
def test_a_batch_that_differs_from_its_streams_schema_is_refused(tmp_path: Path, kind: pa.DataType) -> None:
    # Found by outside testing: pyarrow's RecordBatchReader.from_batches does not check its
    # batches against the schema it declares, and the C stream carries only the declared one:
    # an int32 batch under int64 was stored as garbage keys, a large_string one crashed.
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
    table = lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id")
    table.upsert(pa.table({"id": [1], "v": ["kept"]}, schema=schema))
    if kind == pa.int32():
        batch = pa.record_batch({"id": pa.array([501, 502], pa.int32()), "v": ["a", "b"]})
    else:
        batch = pa.record_batch({"id": pa.array([501, 502], pa.int64()), "v": pa.array(["a", "b"], pa.large_string())})
    good = pa.record_batch({"id": pa.array([7], pa.int64()), "v": ["g"]})
    with pytest.raises(lakeshore.SchemaMismatchError, match="batch 2 of the input stream"):
        table.upsert(pa.RecordBatchReader.from_batches(schema, iter([good, batch])))
    assert table.to_arrow(columns=["id", "v"]).to_pydict() == {"id": [1], "v": ["kept"]}


def test_a_stream_that_fails_midway_is_the_inputs_error_not_storages(tmp_path: Path) -> None:
    # Found by outside testing: a DuckDB query failing while read came back from upsert as a
    # StorageError (the table's storage, it said) and from delete as a bare OSError.
    duckdb = pytest.importorskip("duckdb")
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
    table = lakeshore.Table.create(str(tmp_path / "t"), schema, record_key="id")
    query = (
        "select i::BIGINT as id{} from range(300000) t(i) where case when i = 290000 then error('boom') else true end"
    )
    con = duckdb.connect()
    with pytest.raises(lakeshore.InvalidArgumentError, match="Arrow stream failed.*boom"):
        table.upsert(con.sql(query.format(", 'v' as v")))
    with pytest.raises(lakeshore.InvalidArgumentError, match="Arrow stream failed.*boom"):
        table.delete(con.sql(query.format("")))
    assert table.to_arrow().num_rows == 0
