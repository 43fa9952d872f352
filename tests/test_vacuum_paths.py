"""Vacuum never deletes a file in use because of how its path is spelled or reached, and never
deletes through a symbolic link (outside testing found both).

- Live files whose Delta log path is spelled unusually (``//``, ``/./``, ``%2E``, absolute
  ``file://`` paths through a symlinked table path, ``//`` or ``/./`` in the root part) are kept,
  as delta-rs keeps them.
- A partition folder that is a symbolic link is kept with everything behind it, in full and lite
  mode and from an inventory, on Delta and on Lakeshore tables; nothing outside the table is
  deleted through a link.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

deltalake = pytest.importorskip("deltalake")
from deltalake import DeltaTable, write_deltalake  # noqa: E402

import lakeshore  # noqa: E402

OLD = time.time() - 30 * 86400


def age(root: Path) -> None:
    """Makes every file under root 30 days old (so any retention lets vacuum consider it)."""
    for p in root.rglob("*"):
        if not p.is_symlink():
            os.utime(p, (OLD, OLD))


def tree(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and not p.is_symlink()}


def vacuum(path: Path | str, **kwargs: Any) -> dict[str, Any]:
    return lakeshore.vacuum(str(path), retain_hours=0, enforce_retention=False, **kwargs)


def parquet_file(path: Path, n: int = 3) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"id": list(range(n))}), path)
    return path.stat().st_size


def hand_written_table(root: Path, adds: list[str], files: list[str]) -> None:
    """A Delta table partitioned by p whose commit 1 adds `adds` (log spellings, already
    URL-encoded as a writer would write them) for the physical `files`."""
    write_deltalake(str(root), pa.table({"id": [0], "p": ["0"]}), partition_by=["p"])
    lines = []
    for add, file in zip(adds, files, strict=True):
        size = parquet_file(root / file)
        lines.append(
            json.dumps(
                {
                    "add": {
                        "path": add,
                        "partitionValues": {"p": "1"},
                        "size": size,
                        "modificationTime": int(OLD * 1000),
                        "dataChange": True,
                    }
                }
            )
        )
    (root / "_delta_log" / "00000000000000000001.json").write_text("\n".join(lines) + "\n")


SPELLINGS = {
    "double slash": ("p=1//a.parquet", "p=1/a.parquet"),
    "dot segment": ("p=1/./b.parquet", "p=1/b.parquet"),
    "encoded dot": ("p=1/%2E/c.parquet", "p=1/c.parquet"),
}


@pytest.mark.parametrize("mode", ["full", "lite"])
def test_unusually_spelled_relative_paths_are_live(tmp_path: Path, mode: str) -> None:
    root = tmp_path / "t"
    hand_written_table(root, [a for a, _ in SPELLINGS.values()], [f for _, f in SPELLINGS.values()])
    (root / "p=1" / "stray.parquet").write_bytes(b"x")
    age(root)
    report = vacuum(root, mode=mode)
    kept = tree(root)
    for _, file in SPELLINGS.values():
        assert file in kept, f"{file} (live) was deleted: {report}"
    if mode == "full":
        assert "p=1/stray.parquet" not in kept  # the real stray still goes


def test_dot_dot_inside_the_table_is_resolved_as_hadoop_resolves_it(tmp_path: Path) -> None:
    """Hadoop's Path normalizes "p=1/x/../d.parquet" to "p=1/d.parquet" (delta-rs cannot read
    such a path at all); the file it names is live, and a ".." above the root is outside."""
    root = tmp_path / "t"
    hand_written_table(root, ["p=1/x/../d.parquet", "../t/p=1/e.parquet"], ["p=1/d.parquet", "p=1/e.parquet"])
    age(root)
    vacuum(root)
    assert {"p=1/d.parquet", "p=1/e.parquet"} <= tree(root)


def test_delta_rs_agrees_on_the_spellings(tmp_path: Path) -> None:
    root = tmp_path / "t"
    hand_written_table(root, [a for a, _ in SPELLINGS.values()], [f for _, f in SPELLINGS.values()])
    age(root)
    theirs = DeltaTable(str(root)).vacuum(retention_hours=0, dry_run=True, enforce_retention_duration=False)
    ours = [c["path"] for c in vacuum(root, dry_run=True)["candidates"]]
    assert sorted(ours) == sorted(theirs)


def test_absolute_paths_with_odd_root_spellings_are_live(tmp_path: Path) -> None:
    root = tmp_path / "t"
    odd_root = str(root).replace("/t", "//./t", 1)
    adds = [f"file://{odd_root}/p=1/e.parquet", f"file://{root}/./p=1//f.parquet", f"{root}/p=1/g.parquet"]
    files = ["p=1/e.parquet", "p=1/f.parquet", "p=1/g.parquet"]
    hand_written_table(root, adds, files)
    age(root)
    vacuum(root)
    assert set(files) <= tree(root)


def test_absolute_paths_through_a_symlinked_table_path_are_live(tmp_path: Path) -> None:
    real = tmp_path / "real" / "t"
    real.parent.mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    files = ["p=1/h.parquet", "p=1/i.parquet"]
    # The log names files through the real path; the table is vacuumed through the link,
    # and the other way round.
    hand_written_table(real, [f"file://{real}/p=1/h.parquet", f"file://{tmp_path}/link/t/p=1/i.parquet"], files)
    age(real)
    vacuum(tmp_path / "link" / "t")
    assert set(files) <= tree(real)
    vacuum(real)
    assert set(files) <= tree(real)


def test_a_path_that_cannot_be_related_stops_the_vacuum(tmp_path: Path) -> None:
    root = tmp_path / "t"
    hand_written_table(root, ["file://otherhost/data/p=1/j.parquet"], ["p=1/j.parquet"])
    (root / "stray.parquet").write_bytes(b"x")
    age(root)
    before = tree(root)
    with pytest.raises(lakeshore.UnsupportedFeatureError, match="cannot tell whether"):
        vacuum(root)
    assert tree(root) == before


# ---- symbolic links --------------------------------------------------------------------------


def link_out(root: Path, folder: str, victim: str) -> Path:
    """Moves the partition folder `folder` out of the table, links it back in its place, and
    puts an old file that is not the table's beside its files; returns where it went."""
    outside = root.parent / "elsewhere" / folder
    outside.parent.mkdir()
    (root / folder).rename(outside)
    (root / folder).symlink_to(outside)
    (outside / victim).write_bytes(b"not the table's")
    age(root)
    age(outside)
    return outside


def delta_with_linked_partition(tmp_path: Path) -> tuple[Path, Path]:
    """A delta-rs table whose partition folder p=k0 is a symlink to a folder outside it."""
    root = tmp_path / "t"
    write_deltalake(str(root), pa.table({"id": [1, 2, 3], "p": ["k0", "k1", "k0"]}), partition_by=["p"])
    return root, link_out(root, "p=k0", "victim.parquet")


@pytest.mark.parametrize("mode", ["full", "lite"])
def test_symlinked_partition_folder_is_kept(tmp_path: Path, mode: str) -> None:
    root, outside = delta_with_linked_partition(tmp_path)
    before_outside = tree(outside)
    report = vacuum(root, mode=mode)
    assert (root / "p=k0").is_symlink()
    assert tree(outside) == before_outside, report
    assert DeltaTable(str(root)).to_pyarrow_table().num_rows == 3


def test_lite_never_deletes_through_a_link(tmp_path: Path) -> None:
    """A tombstone whose path goes through a link to outside the table is left alone."""
    root, outside = delta_with_linked_partition(tmp_path)
    remove = {"remove": {"path": "p=k0/victim.parquet", "deletionTimestamp": int(OLD * 1000), "dataChange": True}}
    (root / "_delta_log" / "00000000000000000001.json").write_text(json.dumps(remove) + "\n")
    age(root)
    report = vacuum(root, mode="lite")
    assert (outside / "victim.parquet").exists()
    assert report["files_refused"] == ["p=k0/victim.parquet"]


def test_inventory_never_deletes_through_a_link(tmp_path: Path) -> None:
    root, outside = delta_with_linked_partition(tmp_path)
    inventory = tmp_path / "inventory.csv"
    rows = ["path,length,isDir,modificationTime"]
    for name in ("p=k0/victim.parquet", "p=k0"):
        rows.append(f"{root}/{name},15,false,{int(OLD * 1000)}")
    inventory.write_text("\n".join(rows) + "\n")
    report = vacuum(root, inventory=str(inventory))
    assert (outside / "victim.parquet").exists() and (root / "p=k0").is_symlink()
    assert sorted(report["files_refused"]) == ["p=k0", "p=k0/victim.parquet"]


def test_lakeshore_table_with_a_symlinked_partition_folder(tmp_path: Path) -> None:
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("city", pa.string())])
    root = tmp_path / "t"
    t = lakeshore.Table.create(str(root), schema, record_key="id", partition_by="city")
    t.insert(pa.table({"id": [1, 2], "city": ["oslo", "lima"]}, schema=schema))
    outside = link_out(root, "city=oslo", "victim.txt")
    before = tree(outside)
    vacuum(root)
    assert (root / "city=oslo").is_symlink() and tree(outside) == before
    assert sorted(t.to_arrow(columns=["id"]).column("id").to_pylist()) == [1, 2]


def test_unusual_spellings_on_s3(s3_server: Any) -> None:
    """The same spellings on S3 (moto on loopback): relative ones, and absolute s3:// and s3a://
    URIs with // and /./ in the root part, all name live files that must stay."""
    from pyarrow import fs as pafs

    bucket = s3_server.make_bucket()
    s3 = s3_server.filesystem()
    files = ["p=1/a.parquet", "p=1/b.parquet", "p=1/c.parquet", "p=1/d.parquet", "p=1/e.parquet"]
    adds = [
        "p=1//a.parquet",
        "p=1/./b.parquet",
        "p=1/%2E/c.parquet",
        f"s3://{bucket}//t/./p=1/d.parquet",
        f"s3a://{bucket}/t//p=1/e.parquet",
    ]
    lines = [
        json.dumps({"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}}),
        json.dumps(
            {
                "metaData": {
                    "id": "t",
                    "format": {"provider": "parquet", "options": {}},
                    "schemaString": '{"type":"struct","fields":[]}',
                    "partitionColumns": ["p"],
                    "configuration": {},
                }
            }
        ),
    ]
    for add in adds:
        lines.append(
            json.dumps(
                {
                    "add": {
                        "path": add,
                        "partitionValues": {"p": "1"},
                        "size": 3,
                        "modificationTime": 1,
                        "dataChange": True,
                    }
                }
            )
        )
    with s3.open_output_stream(f"{bucket}/t/_delta_log/00000000000000000000.json") as out:
        out.write(("\n".join(lines) + "\n").encode())
    for f in [*files, "p=1/stray.parquet"]:
        with s3.open_output_stream(f"{bucket}/t/{f}") as out:
            out.write(b"abc")
    time.sleep(1.1)  # S3 dates a file to the second: one of this second may be younger than now
    report = lakeshore.vacuum(s3_server.uri(bucket, "t"), retain_hours=0, enforce_retention=False)
    assert [c["path"] for c in report["candidates"]] == ["p=1/stray.parquet"]
    left = {i.path.split("/t/", 1)[1] for i in s3.get_file_info(pafs.FileSelector(f"{bucket}/t", recursive=True))}
    assert set(files) <= left and "p=1/stray.parquet" not in left


@pytest.mark.parametrize("outer_format", ["hudi", "delta"])
@pytest.mark.parametrize("mode", ["full", "inventory"])
def test_a_table_nested_in_the_table_is_never_vacuumed(tmp_path: Path, outer_format: str, mode: str) -> None:
    # A table created in a folder of another table (beside its partitions, or inside one) is
    # not the outer table's stray: its files were deleted by the outer table's vacuum.
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("p", pa.string())])
    root = tmp_path / "outer"
    if outer_format == "hudi":
        lakeshore.Table.create(str(root), schema, record_key="id", partition_by="p").upsert(
            pa.table({"id": pa.array([1], pa.int64()), "p": ["k0"]}, schema=schema)
        )
    else:
        write_deltalake(str(root), pa.table({"id": [1], "p": ["k0"]}), partition_by=["p"])
    nested = {}
    for where in ("inner", "p=k0/inner"):
        t = lakeshore.Table.create(str(root / where), schema, record_key="id")
        t.upsert(pa.table({"id": pa.array([7], pa.int64()), "p": ["x"]}, schema=schema))
        nested[where] = t
    delta_nested = root / "p=k0" / "deltainner"
    write_deltalake(str(delta_nested), pa.table({"id": [8]}))
    parquet_file(root / "p=k0" / "stray.parquet")
    age(root)
    kept = {f for f in tree(root) if "inner/" in f}
    if mode == "inventory":
        inventory = tmp_path / "inventory.csv"
        rows = ["path,length,isDir,modificationTime"]
        rows += [f"{root}/{f},1,false,{int(OLD * 1000)}" for f in sorted(tree(root))]
        inventory.write_text("\n".join(rows) + "\n")
        report = vacuum(root, inventory=str(inventory))
    else:
        report = vacuum(root)
    assert [c["path"] for c in report["candidates"]] == ["p=k0/stray.parquet"]
    assert kept <= tree(root)
    for where in nested:
        assert lakeshore.Table.open(str(root / where)).to_arrow(columns=["id"]).column("id").to_pylist() == [7], where
    assert DeltaTable(str(delta_nested)).to_pyarrow_table().column("id").to_pylist() == [8]


@pytest.mark.parametrize("marker", ["hoodie.properties.backup", "linked .hoodie", "linked _delta_log"])
def test_a_nested_table_told_by_a_backup_or_a_link_is_never_vacuumed(tmp_path: Path, marker: str) -> None:
    # A nested table whose only properties file is the backup Hudi leaves while it rewrites them,
    # or whose `.hoodie` or `_delta_log` is a link (which a listing does not follow), was taken
    # for strays and its data files deleted.
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("p", pa.string())])
    root = tmp_path / "outer"
    lakeshore.Table.create(str(root), schema, record_key="id", partition_by="p").upsert(
        pa.table({"id": pa.array([1], pa.int64()), "p": ["k0"]}, schema=schema)
    )
    inner = root / "p=k0" / "inner"
    if marker == "linked _delta_log":
        elsewhere = tmp_path / "elsewhere"
        write_deltalake(str(elsewhere), pa.table({"id": [8]}))
        inner.mkdir(parents=True)
        for f in elsewhere.glob("*.parquet"):
            f.rename(inner / f.name)
        (inner / "_delta_log").symlink_to(elsewhere / "_delta_log")
    else:
        t = lakeshore.Table.create(str(inner), schema, record_key="id")
        t.upsert(pa.table({"id": pa.array([7], pa.int64()), "p": ["x"]}, schema=schema))
        meta = inner / ".hoodie"
        if marker == "linked .hoodie":
            moved = tmp_path / "meta"
            meta.rename(moved)
            meta.symlink_to(moved)
        else:
            (meta / "hoodie.properties").rename(meta / "hoodie.properties.backup")
    parquet_file(root / "p=k0" / "stray.parquet")
    age(root)
    kept = {f for f in tree(root) if "/inner/" in f and f.endswith(".parquet")}
    assert kept
    report = vacuum(root)
    assert [c["path"] for c in report["candidates"]] == ["p=k0/stray.parquet"]
    assert kept <= tree(root)


@pytest.mark.parametrize("linked", [False, True])
def test_a_nested_tables_files_are_never_counted_as_listed(tmp_path: Path, linked: bool) -> None:
    # A nested Delta table whose _delta_log is a link to a folder had its files counted in
    # files_listed (the count was taken before such tables were found), and so, since the
    # listing counts files in use without returning them, did one whose files the outer log
    # names. Candidates were right both times.
    root = tmp_path / "t"
    hand_written_table(root, ["p=1/a.parquet"], ["p=1/a.parquet"])
    parquet_file(root / "p=1" / "stray.parquet")
    age(root)
    without_nested = vacuum(root, dry_run=True)["files_listed"]
    nested_log = root / "p=1" / "sub" / "_delta_log"
    outside = tmp_path / "outside_log"
    outside.mkdir()
    (outside / "00000000000000000000.json").write_text("{}\n")
    nested_log.parent.mkdir(parents=True)
    if linked:
        nested_log.symlink_to(outside, target_is_directory=True)
    else:
        nested_log.mkdir()
        (nested_log / "00000000000000000000.json").write_text("{}\n")
    for i in range(4):
        parquet_file(root / "p=1" / "sub" / f"n{i}.parquet")
    age(root)
    report = vacuum(root, dry_run=True)
    assert sorted(c["path"] for c in report["candidates"]) == ["p=1/stray.parquet"]
    assert report["files_listed"] == without_nested, (report["files_listed"], without_nested)
    if linked:
        # Files in use inside a table whose marker is a link stay counted: only the folders
        # that hold candidates are asked for such markers (docs/vacuum.md).
        return
    # The outer log naming the nested table's files (in use, so listed without details) changes
    # nothing either.
    outer = [f"p=1/sub/n{i}.parquet" for i in range(4)]
    commit = root / "_delta_log" / "00000000000000000002.json"
    commit.write_text(
        "".join(
            json.dumps({"add": {"path": a, "partitionValues": {"p": "1"}, "size": 1, "modificationTime": 0}}) + "\n"
            for a in outer
        )
    )
    again = vacuum(root, dry_run=True)
    assert sorted(c["path"] for c in again["candidates"]) == ["p=1/stray.parquet"]
    assert again["files_listed"] == without_nested, (again["files_listed"], without_nested)


def test_a_stray_deeper_than_path_max_is_vacuumed(tmp_path: Path) -> None:
    # Asking the deep stray's folder for a nested table's marker was a stat of its absolute path:
    # ENAMETOOLONG stopped every full vacuum of the table, dry or real.
    root = tmp_path / "t"
    hand_written_table(root, ["p=1/a.parquet"], ["p=1/a.parquet"])
    parquet_file(root / "p=1" / "short_stray.parquet")
    age(root)  # before the deep folders, which no whole path reaches
    deep = ["p=1"] + ["d" * 250 + str(i) for i in range(17)]  # more than 4,096 bytes from /

    def open_deep(make: bool) -> int:
        fd = os.open(root, os.O_RDONLY)
        for i, name in enumerate(deep):
            if make and i > 0:
                os.mkdir(name, dir_fd=fd)
            sub = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = sub
        return fd

    fd = open_deep(make=True)
    for name in ("live.parquet", "stray.parquet"):
        w = os.open(name, os.O_WRONLY | os.O_CREAT, dir_fd=fd)
        os.write(w, b"x")
        os.close(w)
        os.utime(name, (OLD, OLD), dir_fd=fd)
    os.close(fd)
    deep_folder = "/".join(deep)
    assert len(str(root / deep_folder)) > 4096
    live = {"add": {"path": deep_folder + "/live.parquet", "partitionValues": {"p": "1"}, "size": 1}}
    (root / "_delta_log" / "00000000000000000002.json").write_text(json.dumps(live) + "\n")
    expected = ["p=1/short_stray.parquet", deep_folder + "/stray.parquet"]
    assert sorted(c["path"] for c in vacuum(root, dry_run=True)["candidates"]) == sorted(expected)
    assert vacuum(root)["files_deleted"] == 2
    fd = open_deep(make=False)
    assert sorted(os.listdir(fd)) == ["live.parquet"]
    os.close(fd)
