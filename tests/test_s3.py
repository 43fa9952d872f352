"""The Python API against s3:// paths on a moto server on 127.0.0.1 (skipped, visibly, if moto
cannot start)."""

from __future__ import annotations

import time

import pyarrow as pa

import lakeshore
from conftest import S3Server

SCHEMA = pa.schema(
    [pa.field("id", pa.int64(), nullable=False), pa.field("city", pa.string()), pa.field("v", pa.int64())]
)


def test_s3_table_end_to_end(s3_uri: str) -> None:
    t = lakeshore.Table.create(s3_uri, SCHEMA, record_key="id", partition_by="city", ordering_field="v")
    t.insert(
        pa.table(
            {
                "id": pa.array([1, 2, 3], pa.int64()),
                "city": ["oslo", "lima", "oslo"],
                "v": pa.array([1, 1, 1], pa.int64()),
            }
        )
    )
    t.upsert(pa.table({"id": pa.array([2], pa.int64()), "city": ["lima"], "v": pa.array([2], pa.int64())}))
    t.delete([3])
    again = lakeshore.Table.open(s3_uri)
    assert sorted(again.to_arrow(columns=["id", "v"]).to_pylist(), key=lambda r: r["id"]) == [
        {"id": 1, "v": 1},
        {"id": 2, "v": 2},
    ]
    assert [i["state"] for i in again.timeline()] == ["completed"] * 3
    assert all(f.endswith(".parquet") for f in again.files())


def test_s3_explicit_credentials(s3_server: S3Server) -> None:
    uri = s3_server.uri(s3_server.make_bucket(), "t2")
    opts = {"access_key": s3_server.access_key, "secret_key": s3_server.secret_key, "region": s3_server.region}
    t = lakeshore.Table.create(uri, SCHEMA, record_key="id", storage_options=opts)
    t.insert(pa.table({"id": pa.array([1], pa.int64()), "city": ["x"], "v": pa.array([1], pa.int64())}))
    assert lakeshore.Table.open(uri, storage_options=opts).to_arrow().num_rows == 1


def test_s3_lakeshore_vacuum_deletes_only_the_stray(s3_server: S3Server) -> None:
    """A Lakeshore table on S3: vacuum (retention off) deletes an untracked object with a
    multi-object delete, keeps every file the timeline names, records its instant under the
    table lock (a lock object made by conditional PUT), and an optimistic rerun skips."""
    from pyarrow import fs as pafs

    bucket = s3_server.make_bucket()
    uri = s3_server.uri(bucket, "tables/v")
    t = lakeshore.Table.create(uri, SCHEMA, record_key="id", partition_by="city", ordering_field="v")
    t.insert(
        pa.table({"id": pa.array([1, 2], pa.int64()), "city": ["oslo", "lima"], "v": pa.array([1, 1], pa.int64())})
    )
    t.upsert(pa.table({"id": pa.array([1], pa.int64()), "city": ["oslo"], "v": pa.array([2], pa.int64())}))
    s3 = s3_server.filesystem()
    with s3.open_output_stream(f"{bucket}/tables/v/city=oslo/stray.parquet") as out:
        out.write(b"junk")
    before = sorted(t.to_arrow(columns=["id", "v"]).to_pylist(), key=lambda r: r["id"])
    # S3 dates a file to the second: one written in this second may be younger than a cutoff of
    # now, and is kept until the second is over.
    time.sleep(1.1)

    dry = lakeshore.vacuum(uri, retain_hours=0, enforce_retention=False, dry_run=True)
    assert [c["path"] for c in dry["candidates"]] == ["city=oslo/stray.parquet"]
    real = lakeshore.vacuum(uri, retain_hours=0, enforce_retention=False)
    assert real["files_deleted"] == 1
    assert s3.get_file_info(f"{bucket}/tables/v/city=oslo/stray.parquet").type == pafs.FileType.NotFound
    again = lakeshore.Table.open(uri)
    assert sorted(again.to_arrow(columns=["id", "v"]).to_pylist(), key=lambda r: r["id"]) == before
    # The vacuum's watermark is on its own timeline, beside Hudi's (which has no vacuum action).
    assert s3.get_file_info(pafs.FileSelector(f"{bucket}/tables/v/.hoodie/.aux/lakeshore/vacuum", recursive=True))
    assert lakeshore.vacuum(uri, retain_hours=0, enforce_retention=False, optimistic=True)["skipped"]
    # Time travel to the first write still works: vacuum kept the replaced slice.
    first = again.timeline()[0]["time"]
    assert again.to_arrow(as_of=first).num_rows == 2
