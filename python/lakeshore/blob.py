"""The blob column type (RFC-100): a struct holding a blob inline or referencing an external file.

A column of type :func:`blob_type` is a blob column. Each value is::

    {"type": "INLINE" | "OUT_OF_LINE",
     "data": bytes | None,                      # INLINE blobs
     "reference": {"external_path": str,        # OUT_OF_LINE blobs
                   "offset": int | None, "length": int | None,
                   "managed": bool} | None}

``managed`` is RFC-100's flag saying whether a blob cleaner may delete the file once nothing
references it. Lakeshore stores it for Hudi's readers and cleaners but has no blob cleaner yet:
it never deletes a referenced or formerly referenced blob file, managed or not.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from lakeshore import _core
from lakeshore._arrow import field_from_capsule

__all__ = ["blob_type", "inline_blob", "is_blob_type", "out_of_line_blob"]

_BLOB_TYPE: pa.DataType | None = None


def blob_type() -> pa.DataType:
    """Returns the pyarrow struct type of a blob column, exactly as the core defines it."""
    global _BLOB_TYPE
    if _BLOB_TYPE is None:
        _BLOB_TYPE = field_from_capsule(_core.blob_field()).type
    return _BLOB_TYPE


def is_blob_type(type_: pa.DataType) -> bool:
    """True when ``type_`` is exactly the blob struct (field names, order and types)."""
    return bool(_core.is_blob_type(type_.__arrow_c_schema__()))


def inline_blob(data: bytes) -> dict[str, Any]:
    """A blob value stored inside the table (use for small payloads)."""
    return {"type": "INLINE", "data": bytes(data), "reference": None}


def out_of_line_blob(
    external_path: str,
    *,
    offset: int | None = None,
    length: int | None = None,
    managed: bool = False,
) -> dict[str, Any]:
    """A blob value referencing ``external_path`` (a whole file, or ``length`` bytes at
    ``offset``): an absolute path or a URI, outside the table or in a hidden folder directly
    below its root such as ``_blobs/`` (writes refuse other places: ``docs/writes.md``).
    ``managed=True`` marks the file as owned by the table (RFC-100): a blob cleaner may delete it
    once no retained version references it. Lakeshore has no blob cleaner yet and deletes none."""
    return {
        "type": "OUT_OF_LINE",
        "data": None,
        "reference": {
            "external_path": external_path,
            "offset": offset,
            "length": length,
            "managed": managed,
        },
    }
