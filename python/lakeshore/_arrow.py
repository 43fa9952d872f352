"""Moving Arrow data between Python and the core through the Arrow PyCapsule interface.

Nothing here copies data: a pyarrow Table, a RecordBatchReader or any object with
``__arrow_c_stream__`` (polars, DuckDB, arro3, ...) is handed to the core as an
``ArrowArrayStream`` capsule, and the core's results come back the same way.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa


class CapsuleHolder:
    """Presents a capsule made by the core through the Arrow PyCapsule protocol.

    pyarrow's public constructors (``pa.table``, ``pa.schema``, ``pa.field``) accept any object
    with ``__arrow_c_stream__`` / ``__arrow_c_schema__``; this is such an object. A stream
    capsule can be consumed once.
    """

    __slots__ = ("_capsule",)

    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        """Returns the stream capsule (casting to ``requested_schema`` is not offered)."""
        if requested_schema is not None:
            raise NotImplementedError("Lakeshore streams are exported in their own schema")
        return self._capsule

    def __arrow_c_schema__(self) -> Any:
        """Returns the schema capsule."""
        return self._capsule


def stream_capsule(data: Any) -> Any:
    """Returns an ``arrow_array_stream`` capsule for ``data``, without copying it.

    Accepts anything with ``__arrow_c_stream__`` (pyarrow Table and RecordBatchReader included),
    a pyarrow RecordBatch, or anything with ``__arrow_c_array__`` that describes a struct
    (a record batch of another library). Raises TypeError otherwise.
    """
    if hasattr(data, "__arrow_c_stream__"):
        capsule = data.__arrow_c_stream__()
        if type(capsule).__name__ != "PyCapsule":
            got = type(capsule).__name__
            raise TypeError(f"{type(data).__name__}.__arrow_c_stream__() returned {got}, not an Arrow stream capsule")
        return capsule
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data]).__arrow_c_stream__()
    if hasattr(data, "__arrow_c_array__"):
        return pa.Table.from_batches([pa.record_batch(data)]).__arrow_c_stream__()
    raise TypeError(
        "expected Arrow data: a pyarrow Table, RecordBatch or RecordBatchReader, or an object "
        f"with __arrow_c_stream__ (polars, DuckDB, ...); got {type(data).__name__}"
    )


def check_batch_schema(actual: pa.Schema, declared: pa.Schema, number: int) -> None:
    """Raises SchemaMismatchError unless a stream's batch ``number`` (from 1) has the columns
    and types of the schema the stream declared (nullability and metadata aside)."""
    if actual.names == declared.names and all(a.type == d.type for a, d in zip(actual, declared, strict=True)):
        return
    from lakeshore.errors import SchemaMismatchError

    for i, d in enumerate(declared):
        a = actual.field(i) if i < len(actual) else None
        if a is None or a.name != d.name or a.type != d.type:
            got = "nothing" if a is None else f"'{a.name}' of type {a.type}"
            raise SchemaMismatchError(
                f"batch {number} of the input stream does not match the schema the stream declares: "
                f"column {i} is '{d.name}' of type {d.type} there, {got} in the batch"
            )
    raise SchemaMismatchError(
        f"batch {number} of the input stream has {len(actual)} columns where the stream declares {len(declared)}"
    )


class SourceErrors:
    """The exceptions a pyarrow RecordBatchReader raised while the core read it (a Python
    generator behind ``RecordBatchReader.from_batches``: a slow source the user stops with
    Ctrl-C, or one that fails). pyarrow hands the core only their text, so the caller re-raises
    the exception itself, type and all, once the core has failed for it.
    """

    __slots__ = ("raised",)

    def __init__(self) -> None:
        self.raised: list[BaseException] = []

    def watch(self, data: Any) -> Any:
        """``data``, a RecordBatchReader wrapped to remember what its producer raises; other
        data unchanged. The batches pass through as they are (no copy)."""
        if not isinstance(data, pa.RecordBatchReader):
            return data
        declared = data.schema

        def batches() -> Any:
            number = 0
            while True:
                try:
                    batch = data.read_next_batch()
                    number += 1
                    # pyarrow's from_batches does not check its batches against the schema it
                    # declares, and the C stream carries only the declared one: an int32 column
                    # under int64 was read as garbage, a large_string under string crashed.
                    check_batch_schema(batch.schema, declared, number)
                except StopIteration:
                    return
                except BaseException as e:  # noqa: BLE001 - re-raised by the caller, as itself
                    self.raised.append(e)
                    raise
                yield batch

        return pa.RecordBatchReader.from_batches(data.schema, batches())

    def reraise(self, error: BaseException, note: str) -> None:
        """Raises the producer's exception, with ``note``, from ``error`` (the core's), if the
        producer raised one; else returns."""
        if not self.raised:
            return
        source = self.raised[0]
        source.add_note(note)
        raise source from error


def schema_capsule(schema: Any) -> Any:
    """Returns an ``arrow_schema`` capsule for a pyarrow Schema (or anything with
    ``__arrow_c_schema__`` describing a struct). Raises TypeError otherwise."""
    if hasattr(schema, "__arrow_c_schema__"):
        return schema.__arrow_c_schema__()
    raise TypeError(f"expected a pyarrow Schema, got {type(schema).__name__}")


def table_from_capsule(capsule: Any) -> pa.Table:
    """Builds a pyarrow Table from a stream capsule exported by the core (zero-copy)."""
    return pa.table(CapsuleHolder(capsule))


def schema_from_capsule(capsule: Any) -> pa.Schema:
    """Builds a pyarrow Schema from a schema capsule exported by the core."""
    return pa.schema(CapsuleHolder(capsule))


def field_from_capsule(capsule: Any) -> pa.Field:
    """Builds a pyarrow Field from a field capsule exported by the core."""
    return pa.field(CapsuleHolder(capsule))
