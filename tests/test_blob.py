"""The blob column type seen from Python."""

from __future__ import annotations

import pyarrow as pa

import lakeshore
from lakeshore.cli._common import parse_schema, parse_type


def test_blob_type_is_the_rfc100_struct() -> None:
    t = lakeshore.blob_type()
    assert pa.types.is_struct(t)
    assert [(f.name, f.type) for f in t][:2] == [("type", pa.string()), ("data", pa.binary())]
    ref = t.field("reference").type
    assert [(f.name, f.type) for f in ref] == [
        ("external_path", pa.string()),
        ("offset", pa.int64()),
        ("length", pa.int64()),
        ("managed", pa.bool_()),
    ]
    assert [f.name for f in t] == ["type", "data", "reference"]
    assert lakeshore.blob_type() is t  # built once


def test_is_blob_type() -> None:
    assert lakeshore.is_blob_type(lakeshore.blob_type())
    assert not lakeshore.is_blob_type(pa.struct([("type", pa.string())]))
    assert not lakeshore.is_blob_type(pa.string())
    reordered = pa.struct([lakeshore.blob_type().field(i) for i in (1, 0, 2)])
    assert not lakeshore.is_blob_type(reordered)


def test_blob_values_build_a_blob_column() -> None:
    values = [
        lakeshore.inline_blob(b"abc"),
        lakeshore.out_of_line_blob("/blobs/a.jpg", offset=10, length=5, managed=True),
        None,
    ]
    arr = pa.array(values, type=lakeshore.blob_type())
    assert arr.to_pylist()[0] == {"type": "INLINE", "data": b"abc", "reference": None}
    assert arr.to_pylist()[1]["reference"] == {
        "external_path": "/blobs/a.jpg",
        "offset": 10,
        "length": 5,
        "managed": True,
    }
    assert arr.null_count == 1


def test_schema_string_blob() -> None:
    assert lakeshore.is_blob_type(parse_type("blob"))
    assert parse_schema("id:int64,photo:blob").field("photo").type == lakeshore.blob_type()
