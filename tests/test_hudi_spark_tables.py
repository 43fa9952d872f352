"""Lakeshore reads the Hudi tables Apache Spark wrote exactly as hudi-rs (PyPI `hudi`) reads them.

The tables are in `../shared/hudi-tables/` (see its README): zipped tables of table versions 6, 8
and 9, copy-on-write and merge-on-read. For each one, Lakeshore's snapshot, its time travel to
every completed instant and its incremental reads between consecutive instants must give the
rows hudi-rs gives, meta columns included.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
import zipfile
from datetime import date
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import lakeshore

hudi = pytest.importorskip("hudi")

# ../shared/hudi-tables beside the checkout, or LAKESHORE_HUDI_TABLES.
SHARED = Path(os.environ.get("LAKESHORE_HUDI_TABLES", Path(__file__).resolve().parents[2] / "shared" / "hudi-tables"))
if not SHARED.is_dir():
    pytest.skip(f"no Spark-written Hudi tables at {SHARED} (set LAKESHORE_HUDI_TABLES)", allow_module_level=True)
ZIPS = sorted(SHARED.glob("sample_table/**/*.zip")) + sorted(SHARED.glob("quickstart_trips_table/**/*.zip"))


def _label(z: Path) -> str:
    return str(z.relative_to(SHARED).with_suffix(""))


@pytest.fixture(scope="module")
def unzipped(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every shared table unzipped once; label → table root (the folder holding .hoodie)."""
    roots: dict[str, Path] = {}
    base = tmp_path_factory.mktemp("spark_tables")
    for z in ZIPS:
        target = base / _label(z).replace("/", "_")
        with zipfile.ZipFile(z) as archive:
            archive.extractall(target)
        found = [p.parent for p in target.rglob(".hoodie") if "__MACOSX" not in p.parts and p.parent.name != ".hoodie"]
        found = [p for p in found if (p / ".hoodie" / "hoodie.properties").exists() and "metadata" not in p.parts]
        assert len(found) == 1, (z, found)
        roots[_label(z)] = found[0]
    return roots


def _rows(table: pa.Table) -> list[dict[str, Any]]:
    """Rows in a canonical order (record key, then file name: a key may be in two groups)."""
    rows = table.to_pylist()
    return sorted(rows, key=lambda r: (str(r.get("_hoodie_record_key")), str(r.get("_hoodie_file_name")), repr(r)))


def _hudi_read(root: Path, **options: str) -> pa.Table:
    t = hudi.HudiTable(str(root))
    read = hudi.HudiReadOptions()
    if options.get("read_optimized"):
        read = read.with_hudi_option("hoodie.read.use.read_optimized.mode", "true")
    if "as_of" in options:
        read = read.with_as_of_timestamp(options["as_of"])
    if "start" in options or "end" in options:
        read = read.with_query_type(hudi.HudiQueryType.Incremental)
        if options.get("start"):
            read = read.with_start_timestamp(options["start"])
        if options.get("end"):
            read = read.with_end_timestamp(options["end"])
    batches = t.read(read)
    schema = t.get_schema_with_meta_fields()
    return pa.Table.from_batches(batches, schema=batches[0].schema if batches else schema)


def _copy(table: Path, tmp_path: Path) -> Path:
    """A copy of a shared table to change (the unzipped originals are shared by the tests)."""
    root = tmp_path / "copy"
    shutil.copytree(table, root)
    return root


def _hudi_views(root: Path, times: list[str]) -> dict[str, list[dict[str, Any]]]:
    """What hudi-rs reads: the snapshot, the read-optimized view and every `as_of` in `times`."""
    return {
        "snapshot": _rows(_hudi_read(root)),
        "read_optimized": _rows(_hudi_read(root, read_optimized="true")),
        **{f"as_of {w}": _rows(_hudi_read(root, as_of=w)) for w in times},
    }


def _completed_times(t: lakeshore.Table) -> list[str]:
    """The bound each completed write is read at: its completion time (layout 2) or instant time."""
    return [
        i["completion_time"]
        for i in t.timeline()
        if i["state"] == "completed" and i["action"] in ("commit", "deltacommit", "replacecommit")
    ]


@pytest.mark.parametrize("label", [_label(z) for z in ZIPS])
def test_snapshot_time_travel_and_incremental_match_hudi_rs(unzipped: dict[str, Path], label: str) -> None:
    root = unzipped[label]
    t = lakeshore.Table.open(str(root))
    assert _rows(t.to_arrow()) == _rows(_hudi_read(root)), "snapshot"
    assert _rows(t.to_arrow(read_optimized=True)) == _rows(_hudi_read(root, read_optimized="true")), "read-optimized"
    times = _completed_times(t)
    for when in times:
        assert _rows(t.to_arrow(as_of=when)) == _rows(_hudi_read(root, as_of=when)), f"as_of {when}"
    starts = ["19700101000000000", *times[:-1]]
    for start, end in zip(starts[: len(times)], times, strict=True):
        ours = t.read_incremental(start, end)
        assert _rows(ours) == _rows(_hudi_read(root, start=start, end=end)), f"incremental ({start}, {end}]"


def test_row_counts_are_what_spark_wrote(unzipped: dict[str, Path]) -> None:
    # The counts the tables' .sql scripts leave (hudi-rs agrees, above): a check that does not
    # depend on either reader.
    expected = {
        "sample_table/cow/v6_complexkeygen_hivestyle": 4,
        "sample_table/cow/v6_nonpartitioned": 4,
        "sample_table/cow/v8_complexkeygen_hivestyle": 4,
        "sample_table/cow/v8_empty": 0,
        "sample_table/cow/v8_simplekeygen_nonhivestyle": 4,
        "sample_table/cow/v9_txns_nonpart_nometa": 14,
        "sample_table/cow/v9_txns_simple_meta": 12,
        "sample_table/cow/v9_txns_simple_overwrite": 3,
    }
    for label, rows in expected.items():
        assert lakeshore.Table.open(str(unzipped[label])).to_arrow().num_rows == rows, label


def test_replaced_file_groups_vanish_at_their_replacecommit(unzipped: dict[str, Path]) -> None:
    # v9_txns_simple_overwrite: two commits, then INSERT_OVERWRITE_TABLE.
    t = lakeshore.Table.open(str(unzipped["sample_table/cow/v9_txns_simple_overwrite"]))
    writes = [i for i in t.timeline() if i["state"] == "completed" and i["action"] != "indexing"]
    assert [i["action"] for i in writes] == ["commit", "commit", "replacecommit"]
    assert t.to_arrow(as_of=writes[1]["completion_time"]).num_rows == 8
    assert t.to_arrow().num_rows == 3


WRITABLE = [
    "sample_table/cow/v8_complexkeygen_hivestyle",
    "sample_table/cow/v8_simplekeygen_nonhivestyle",
    "sample_table/cow/v9_txns_nonpart_nometa",
    "sample_table/mor/avro/v9_txns_nonpart_nometa",
]


@pytest.mark.parametrize("label", WRITABLE)
def test_upserts_and_deletes_into_a_spark_table_read_back_in_hudi_rs(
    unzipped: dict[str, Path], tmp_path: Path, label: str
) -> None:
    root = _copy(unzipped[label], tmp_path)
    t = lakeshore.Table.open(str(root))
    before = t.to_arrow()
    keys = t.record_key
    user = [f for f in before.column_names if not f.startswith("_hoodie_")]
    rows = before.select(user).to_pylist()
    # Update the first row (its ordering value raised so it wins), delete the second.
    changed = dict(rows[0])
    ordering = t.config["ordering_field"]
    if ordering:
        changed[ordering] = changed[ordering] + 1000
    fixed = set(keys) | set(t.partition_by) | {ordering}
    column = next(
        f
        for f in user
        if f not in fixed
        and (pa.types.is_string(before.schema.field(f).type) or pa.types.is_integer(before.schema.field(f).type))
    )
    new_value = "changed by lakeshore" if pa.types.is_string(before.schema.field(column).type) else 424242
    changed[column] = new_value
    t.upsert(pa.Table.from_pylist([changed], schema=before.select(user).schema))
    t.delete(pa.Table.from_pylist([{k: rows[1][k] for k in keys + t.partition_by}]))
    after = t.to_arrow()
    theirs = _hudi_read(root)
    assert _rows(after) == _rows(theirs)
    assert after.num_rows == before.num_rows - 1
    mine = {tuple(r[k] for k in keys): r for r in after.to_pylist()}
    assert mine[tuple(changed[k] for k in keys)][column] == new_value
    assert tuple(rows[1][k] for k in keys) not in mine
    # hudi-rs time travel to Spark's last commit still gives Spark's rows.
    spark_last = _completed_times(lakeshore.Table.open(str(unzipped[label])))[-1]
    assert _rows(_hudi_read(root, as_of=spark_last)) == _rows(before)
    # A partition filter selects what the partition column says, hive-style or plain paths.
    for field in t.partition_by:
        value = after.column(field)[0].as_py()
        expected = [r for r in after.to_pylist() if r[field] == value]
        assert _rows(t.to_arrow(filter=[(field, "=", value)])) == _rows(pa.Table.from_pylist(expected, after.schema))


def test_tables_this_build_cannot_write_say_why(unzipped: dict[str, Path], tmp_path: Path) -> None:
    # A metadata partition another writer is building (Hudi's async indexer lists it in flight)
    # would miss this build's changes: such a table is not written.
    building = _copy(unzipped["sample_table/cow/v9_txns_simple_meta"], tmp_path)
    props = building / ".hoodie" / "hoodie.properties"
    text = props.read_text(encoding="latin-1").replace(
        "hoodie.table.metadata.partitions.inflight=", "hoodie.table.metadata.partitions.inflight=expr_index_x"
    )
    props.write_text(text, encoding="latin-1")
    cases = {
        building: "being built by another writer",
        unzipped["sample_table/cow/v6_nonpartitioned"]: "table version 6",
    }
    for root, why in cases.items():
        t = lakeshore.Table.open(str(root))
        with pytest.raises(lakeshore.UnsupportedFeatureError, match=why):
            t.upsert(t.to_arrow().select([f for f in t.schema.names]).slice(0, 1))


@pytest.mark.parametrize("label", [_label(z) for z in ZIPS])
def test_vacuum_deletes_nothing_spark_or_hudi_rs_still_needs(
    unzipped: dict[str, Path], tmp_path: Path, label: str
) -> None:
    root = _copy(unzipped[label], tmp_path)
    t = lakeshore.Table.open(str(root))
    times = _completed_times(t)
    before = _hudi_views(root, times)
    meta_before = _files_under(root / ".hoodie")
    stray = root / "stray-by-a-crashed-tool.parquet"
    stray.write_bytes(b"junk")
    an_hour_ago = time.time() - 3600
    os.utime(stray, (an_hour_ago, an_hour_ago))
    report = lakeshore.vacuum(str(root), retain_hours=0, enforce_retention=False)
    assert report["format"] == "hudi"
    assert report["files_deleted"] == 1, report["candidates"]  # the stray, and nothing else
    assert not stray.exists()
    after = _hudi_views(root, times)
    assert after == before
    # No file under .hoodie/ (timeline, metadata table, everything) is deleted or changed; the
    # only new ones are Lakeshore's own vacuum watermark.
    meta_after = _files_under(root / ".hoodie")
    assert {k: v for k, v in meta_after.items() if "lakeshore" not in Path(k).parts} == meta_before


def _files_under(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_version_6_table_with_archived_instants_reads_as_hudi_rs_reads_it_and_vacuums_safely(
    unzipped: dict[str, Path], tmp_path: Path
) -> None:
    # Layout 1's archived timeline (log files of Avro records) is not read: archive the oldest
    # completed instant as Hudi's archiver would (its timeline files leave the active timeline,
    # `archived/` holds something); the view then comes from a listing, as hudi-rs builds it.
    root = _copy(unzipped["sample_table/cow/v6_nonpartitioned"], tmp_path)
    timeline_dir = root / ".hoodie"
    archive_dir = root / ".hoodie" / "archived"
    oldest = lakeshore.Table.open(str(root)).timeline()[0]["time"]
    archive_dir.mkdir(parents=True, exist_ok=True)
    for f in timeline_dir.iterdir():
        if f.is_file() and f.name.startswith(oldest):
            f.rename(archive_dir / f.name)
    t = lakeshore.Table.open(str(root))
    assert _rows(t.to_arrow()) == _rows(_hudi_read(root))
    for when in _completed_times(t):
        assert _rows(t.to_arrow(as_of=when)) == _rows(_hudi_read(root, as_of=when)), when
    with pytest.raises(lakeshore.UnsupportedFeatureError, match="before the active timeline"):
        t.to_arrow(as_of=oldest)
    with pytest.raises(lakeshore.UnsupportedFeatureError, match="before the active timeline"):
        t.read_incremental("000")  # from the beginning: the archived instant's writes too
    with pytest.raises(lakeshore.UnsupportedFeatureError, match="archived instants|table version 6"):
        t.upsert(t.to_arrow().select(t.schema.names).slice(0, 1))
    # Vacuum: the archive is not read, so every data file older than the active timeline is kept
    # (Hudi's readers count it as committed: its commit may be archived); files of newer
    # instants are judged by the active timeline. Strays: one that is no data file, one named
    # as a data file of an instant newer than the timeline's start that no instant names
    # (both deleted), and one named as a data file of an instant before it (kept).
    data_before = {p for p in root.rglob("*") if p.is_file() and ".hoodie" not in p.parts}
    views_before = _hudi_views(root, _completed_times(t))
    stray = root / "notes-of-a-crashed-tool.txt"
    newer = root / "0a1b2c3d-0000-0000-0000-000000000000-0_1-0-1_99991231235959999.parquet"
    older = root / "0a1b2c3d-0000-0000-0000-000000000000-0_1-0-1_20000101000000000.parquet"
    an_hour_ago = time.time() - 3600
    for f in (stray, newer, older):
        f.write_bytes(b"junk")
        os.utime(f, (an_hour_ago, an_hour_ago))
    report = lakeshore.vacuum(str(root), retain_hours=0, enforce_retention=False)
    assert sorted(c["path"] for c in report["candidates"]) == sorted([newer.name, stray.name])
    assert report["files_deleted"] == 2
    assert not stray.exists() and not newer.exists() and older.exists()
    assert {p for p in root.rglob("*") if p.is_file() and ".hoodie" not in p.parts} == data_before | {older}
    # hudi-rs takes `older` for a committed base file (it is before the timeline's start): the
    # reason vacuum keeps it. Without it, hudi-rs reads what it read before.
    older.unlink()
    assert _hudi_views(root, _completed_times(t)) == views_before
    # Everything archived: no active instant bounds the archived ones, so every data file is kept.
    for f in timeline_dir.iterdir():
        if f.is_file() and f.name[:1].isdigit():
            f.rename(archive_dir / f.name)
    for f in (stray, newer):
        f.write_bytes(b"junk")
        os.utime(f, (an_hour_ago, an_hour_ago))
    report = lakeshore.vacuum(str(root), retain_hours=0, enforce_retention=False)
    assert [c["path"] for c in report["candidates"]] == [stray.name]
    assert newer.exists() and not stray.exists()
    assert {p for p in root.rglob("*") if p.is_file() and ".hoodie" not in p.parts} == data_before | {newer}


# Hudi's HoodieLSMTimelineInstant, as parquet-avro writes it (the footer's parquet.avro.schema).
_LSM_AVRO_SCHEMA = (
    '{"type":"record","name":"HoodieLSMTimelineInstant","namespace":"org.apache.hudi.avro.model","fields":['
    '{"name":"instantTime","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},'
    '{"name":"completionTime","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},'
    '{"name":"action","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},'
    '{"name":"metadata","type":["null","bytes"],"default":null},'
    '{"name":"plan","type":["null","bytes"],"default":null},'
    '{"name":"version","type":"int","default":1}]}'
)


def _archive_as_hudi_1x(root: Path, count: int) -> list[str]:
    """Archives the `count` oldest completed instants as Hudi 1.x's TimelineArchiverV2 and
    LSMTimelineWriter do (read in apache/hudi; no Spark fixture has an archive): one level-0
    Parquet file `<min>_<max>_0.parquet` under `.hoodie/timeline/history/` with a row per
    action (instant time, completion time, completed action, the completed file's bytes as
    `metadata`), `manifest_1` naming it (Jackson's pretty JSON), `_version_` holding `1`; then
    every timeline file of those instants is deleted, pending ones first. Returns their times."""
    import json

    import pyarrow.parquet as pq

    timeline = root / ".hoodie" / "timeline"
    history = timeline / "history"
    completed = sorted(
        (f for f in timeline.iterdir() if f.is_file() and "_" in f.name.split(".")[0]),
        key=lambda f: f.name,
    )[:count]
    rows: dict[str, list[Any]] = {
        k: [] for k in ("instantTime", "completionTime", "action", "metadata", "plan", "version")
    }
    times = []
    for f in completed:
        stem, action = f.name.split(".", 1)
        instant, completion = stem.split("_")
        times.append(instant)
        rows["instantTime"].append(instant)
        rows["completionTime"].append(completion)
        rows["action"].append(action)
        rows["metadata"].append(f.read_bytes() or None)
        rows["plan"].append(None)
        rows["version"].append(1)
    schema = pa.schema(
        [
            pa.field("instantTime", pa.string()),
            pa.field("completionTime", pa.string()),
            pa.field("action", pa.string()),
            pa.field("metadata", pa.binary()),
            pa.field("plan", pa.binary()),
            pa.field("version", pa.int32(), nullable=False),
        ],
        metadata={"parquet.avro.schema": _LSM_AVRO_SCHEMA, "writer.model.name": "avro"},
    )
    name = f"{times[0]}_{times[-1]}_0.parquet"
    history.mkdir(exist_ok=True)
    pq.write_table(pa.table(rows, schema=schema), history / name, compression="gzip", store_schema=False)
    manifest = {"files": [{"fileName": name, "fileLen": (history / name).stat().st_size}]}
    (history / "manifest_1").write_text(json.dumps(manifest, indent=2, separators=(",", " : ")))
    (history / "_version_").write_text("1")
    files = [f for f in timeline.iterdir() if f.is_file() and f.name[:17] in times]
    for f in sorted(files, key=lambda f: (f in completed, f.name)):  # pending first
        f.unlink()
    return times


@pytest.mark.parametrize(
    "label",
    [
        "sample_table/cow/v9_txns_nonpart_nometa",
        "sample_table/cow/v8_complexkeygen_hivestyle",
        "sample_table/mor/avro/v9_txns_simple_meta",
    ],
)
def test_archived_instants_are_read_from_hudis_lsm_timeline(
    unzipped: dict[str, Path], tmp_path: Path, label: str
) -> None:
    # The oracle: hudi-rs reading the table before archival (hudi-rs does not read the archive).
    original = unzipped[label]
    before = lakeshore.Table.open(str(original))
    times = _completed_times(before)
    assert len(times) >= 2, "the table needs a history to archive"
    root = _copy(original, tmp_path)
    archived = _archive_as_hudi_1x(root, min(2, len(times) - 1))
    t = lakeshore.Table.open(str(root))
    assert all(i["time"] not in archived for i in t.timeline())
    assert _rows(t.to_arrow()) == _rows(_hudi_read(original)), "snapshot"
    for when in times:  # time travel into the archive and past it
        assert _rows(t.to_arrow(as_of=when)) == _rows(_hudi_read(original, as_of=when)), f"as_of {when}"
    for instant in archived:  # an archived instant's time resolves through the archive
        assert _rows(t.to_arrow(as_of=instant)) == _rows(before.to_arrow(as_of=instant)), instant
    starts = ["19700101000000000", *times[:-1]]
    for start, end in zip(starts, times, strict=True):
        assert _rows(t.read_incremental(start, end)) == _rows(_hudi_read(original, start=start, end=end)), (start, end)
    if (root / ".hoodie" / "metadata").exists():
        return  # a table with a metadata table is read-only in this build
    # The table stays writable; hudi-rs (which lists the data files) reads what Lakeshore wrote,
    # and a vacuum keeps every file the archived commits name.
    t.upsert(t.to_arrow().select(t.schema.names).slice(0, 1))
    stray = next(p for p in root.rglob("*.parquet") if ".hoodie" not in p.parts).parent / "stray.parquet"
    stray.write_bytes(b"junk")
    old = time.time() - 30 * 24 * 3600
    os.utime(stray, (old, old))
    report = lakeshore.vacuum(str(root), retain_hours=0, enforce_retention=False)
    assert report["files_deleted"] == 1 and not stray.exists(), report["candidates"]
    assert _rows(t.to_arrow()) == _rows(_hudi_read(root))
    for when in times:
        assert _rows(t.to_arrow(as_of=when)) == _rows(_hudi_read(original, as_of=when)), f"as_of {when} after vacuum"


@pytest.mark.parametrize(
    "label", ["sample_table/mor/avro/v9_txns_simple_meta", "sample_table/cow/v9_txns_nonpart_nometa"]
)
def test_pending_table_services_do_not_change_what_is_read(
    unzipped: dict[str, Path], tmp_path: Path, label: str
) -> None:
    # A compaction and a clustering scheduled by Spark but not run yet (requested only): no
    # reader sees anything of them, and no Lakeshore writer rolls them back.
    root = _copy(unzipped[label], tmp_path)
    timeline = root / ".hoodie" / "timeline"
    last = max(f.name[:17] for f in timeline.iterdir() if f.is_file() and f.name[:17].isdigit())
    compaction = timeline / f"{int(last) + 1}.compaction.requested"
    clustering = timeline / f"{int(last) + 2}.clustering.requested"
    compaction.write_bytes(b"")
    clustering.write_bytes(b"")
    t = lakeshore.Table.open(str(root))
    assert _rows(t.to_arrow()) == _rows(_hudi_read(root))
    assert _rows(t.to_arrow()) == _rows(_hudi_read(unzipped[label]))
    if "cow" in label:
        t.upsert(t.to_arrow().select(t.schema.names).slice(0, 1))
        assert compaction.exists() and clustering.exists()
        assert _rows(t.to_arrow()) == _rows(_hudi_read(root))


SPARK_MOR = [label for label in (_label(z) for z in ZIPS) if "/mor/" in label and ("/v8_" in label or "/v9_" in label)]


def _disable_metadata_table(root: Path) -> None:
    """What Hudi does when a writer turns hoodie.metadata.enable off: the metadata table goes and
    hoodie.properties no longer lists its partitions (this build does not keep one current)."""
    shutil.rmtree(root / ".hoodie" / "metadata", ignore_errors=True)
    props = root / ".hoodie" / "hoodie.properties"
    lines = props.read_text(encoding="latin-1").splitlines()
    kept = [line for line in lines if not line.startswith("hoodie.table.metadata.partitions")]
    props.write_text("\n".join(kept) + "\n", encoding="latin-1")


@pytest.mark.parametrize("label", SPARK_MOR)
def test_compacting_a_spark_mor_table_keeps_what_hudi_rs_reads(
    unzipped: dict[str, Path], tmp_path: Path, label: str
) -> None:
    root = _copy(unzipped[label], tmp_path)
    _disable_metadata_table(root)
    t = lakeshore.Table.open(str(root))
    # Spark's table has no log files of its own to compact here: an upsert and a delete add
    # them (a deltacommit on Spark's slices), then every slice with logs is compacted.
    rows = t.to_arrow().select(t.schema.names)
    t.upsert(rows.slice(0, 2))
    keys = rows.select(t.config["record_key"] + t.config["partition_by"]).slice(2, 1)
    t.delete(keys)
    times = _completed_times(t)
    log_files = [p for p in root.rglob(".*.log.*")]
    assert log_files, "the upsert should have written log files"

    def user_rows(table: pa.Table) -> list[dict[str, Any]]:
        # A compaction moves records into new base files: all but _hoodie_file_name stays.
        return _rows(table.drop_columns(["_hoodie_file_name"]))

    before = user_rows(_hudi_read(root))
    assert user_rows(t.to_arrow()) == before
    result = t.compact()
    assert result["completed"] and result["file_groups"] >= 1, result
    assert user_rows(_hudi_read(root)) == before, "hudi-rs after the compaction"
    assert user_rows(t.to_arrow()) == before
    # The read-optimized view now holds the compacted rows: hudi-rs agrees.
    assert user_rows(_hudi_read(root, read_optimized="true")) == user_rows(t.to_arrow(read_optimized=True))
    for when in times:  # history is unchanged
        assert user_rows(t.to_arrow(as_of=when)) == user_rows(_hudi_read(root, as_of=when)), when


def _metadata_partitions(root: Path) -> list[str]:
    props = (root / ".hoodie" / "hoodie.properties").read_text(encoding="latin-1")
    for line in props.splitlines():
        if line.startswith("hoodie.table.metadata.partitions="):
            return [p for p in line.split("=", 1)[1].split(",") if p]
    return []


def _expect_lookup_matches_snapshot(t: lakeshore.Table, root: Path) -> None:
    """Every stored key is located where the snapshot holds it, by the record index where the
    table has one and by a scan elsewhere."""
    rows = t.to_arrow(columns=[*t.config["record_key"], "_hoodie_partition_path", "_hoodie_file_name"])
    if rows.num_rows == 0:
        return
    keys = rows.select(t.config["record_key"])
    found = t.lookup(keys.to_pylist() if len(t.config["record_key"]) > 1 else keys.column(0).to_pylist())
    indexed = "record_index" in _metadata_partitions(root)
    assert found.schema.metadata[b"lookup.method"] == (b"record_index" if indexed else b"scan")
    # A key that INSERT wrote twice (Spark's v9_nonpartitioned_rollback) is held in two file
    # groups: the lookup names one of them.
    held: dict[Any, set[tuple[str, str]]] = {}
    for row in rows.to_pylist():
        key = tuple(row[k] for k in t.config["record_key"])
        name = row["_hoodie_file_name"]
        file_id = name.split("_")[0] if name.endswith(".parquet") else name
        held.setdefault(key, set()).add((row["_hoodie_partition_path"], file_id))
    for row, hit in zip(rows.to_pylist(), found.to_pylist(), strict=True):
        key = tuple(row[k] for k in t.config["record_key"])
        assert (hit["partition"], hit["file_id"]) in held[key], (row, hit)


@pytest.mark.parametrize("label", [_label(z) for z in ZIPS if "/v6_" not in str(z)])
def test_lookup_locates_every_record_as_the_snapshot_holds_it(unzipped: dict[str, Path], label: str) -> None:
    _expect_lookup_matches_snapshot(lakeshore.Table.open(str(unzipped[label])), unzipped[label])


SPARK_WITH_METADATA = [
    "sample_table/cow/v9_txns_simple_meta",
    "sample_table/mor/avro/v9_txns_simple_meta",
    "quickstart_trips_table/mor/avro/v8_trips_8i3u1d",
]


@pytest.mark.parametrize("label", SPARK_WITH_METADATA)
def test_writes_keep_a_spark_metadata_table_current_and_drop_what_they_cannot(
    unzipped: dict[str, Path], tmp_path: Path, label: str
) -> None:
    # Lakeshore keeps Spark's files partition, record index, column and partition stats and
    # secondary indexes current with its writes, drops the partitions it does not maintain
    # (column stats of Hudi 1.0's layout, and the partition stats computed from them) at its
    # first write, before they could go stale; hudi-rs then lists the table through the files
    # partition Lakeshore extended, and reads the same rows, and every secondary index answers as
    # those rows. An upsert moving a string value past every bound Spark recorded is found by a
    # filtered read: the statistics it prunes by were updated with the write.
    root = _copy(unzipped[label], tmp_path)
    had = _metadata_partitions(root)
    assert "files" in had
    t = lakeshore.Table.open(str(root))
    rows = t.to_arrow().select(t.schema.names)
    keys = set(t.config["record_key"]) | set(t.config["partition_by"]) | {t.config.get("ordering_field") or ""}
    moved = next(f.name for f in t.schema if pa.types.is_string(f.type) and f.name not in keys)
    first = rows.slice(0, 2)
    first = first.set_column(
        first.schema.get_field_index(moved), moved, pa.array(["zzzz-moved", first.column(moved)[1].as_py()])
    )
    t.upsert(first)
    t.delete(rows.select(t.config["record_key"] + t.config["partition_by"]).slice(2, 1))
    # Kept: the partitions Lakeshore maintains (a column_stats or bloom_filters partition only
    # when its values have the layout Lakeshore writes: Hudi 1.1's, not 1.0's).
    kept = _metadata_partitions(root)
    secondary = {p for p in had if p.startswith("secondary_index_")}
    assert (
        {"files"}
        <= set(kept)
        <= {"files", "record_index", "column_stats", "partition_stats", "bloom_filters"} | secondary
    )
    assert ("partition_stats" in kept) == ("partition_stats" in had and "column_stats" in kept), kept
    assert secondary <= set(kept)
    assert ("record_index" in kept) == ("record_index" in had)
    assert ("column_stats" in kept) == ("column_stats" in had and "/v9_" in label), kept
    for dropped in set(had) - set(kept):
        assert not (root / ".hoodie" / "metadata" / dropped).exists(), dropped
    assert _rows(t.to_arrow()) == _rows(_hudi_read(root))
    assert t.to_arrow().num_rows == rows.num_rows - 1
    found = t.to_arrow(columns=[moved], filter=[(moved, "=", "zzzz-moved")])
    assert found.column(moved).to_pylist() == ["zzzz-moved"], found.schema.metadata
    _expect_lookup_matches_snapshot(t, root)
    hudi_rows = _hudi_read(root).to_pylist()
    for index, column in (
        ("secondary_index_merchant_idx", "merchant_name"),
        ("secondary_index_txn_date_idx", "txn_date"),
    ):
        if index not in secondary:
            continue
        expected: dict[Any, list[str]] = {}
        for r in hudi_rows:
            expected.setdefault(r[column], []).append(r["_hoodie_record_key"])
        found = t.lookup_secondary(index, list(expected))
        got: dict[Any, list[str]] = {}
        for r in found.to_pylist():
            got.setdefault(r["secondary_key"], []).append(r["record_key"])
        epoch = date(1970, 1, 1)
        text = {
            None if v is None else (str((v - epoch).days) if column == "txn_date" else v): sorted(k)
            for v, k in expected.items()
        }
        assert got == text, index


def test_the_index_verb_shows_and_looks_up(unzipped: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    from lakeshore.cli import main

    root = str(unzipped["sample_table/cow/v9_txns_simple_meta"])
    assert main(["index", "show", root, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["metadata_table"] and "record_index" in shown["partitions"] and "files" in shown["partitions"]
    assert main(["index", "lookup", root, "TXN-001,TXN-404", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["method"] == "record_index"
    assert [r["record_key"] for r in found["locations"]] == ["TXN-001", "TXN-404"]
    assert found["locations"][0]["file_id"] and found["locations"][1]["file_id"] is None
    assert main(["index", "lookup", root, "TXN-001", "TXN-404", "--json"]) == 0  # space-separated too
    assert json.loads(capsys.readouterr().out) == found
    assert main(["index", "show", str(unzipped["sample_table/cow/v9_txns_nonpart_nometa"])]) == 0
    assert "no" in capsys.readouterr().out


@pytest.mark.parametrize("label", ["sample_table/cow/v9_txns_simple_meta", "sample_table/mor/avro/v9_txns_simple_meta"])
def test_spark_secondary_indexes_answer_as_hudi_rs_rows_do(unzipped: dict[str, Path], label: str) -> None:
    # The oracle: hudi-rs's rows, grouped by the indexed column. Spark built
    # secondary_index_merchant_idx (a string column) and secondary_index_txn_date_idx (a date).
    root = unzipped[label]
    t = lakeshore.Table.open(str(root))
    rows = _hudi_read(root).to_pylist()
    assert {"secondary_index_merchant_idx", "secondary_index_txn_date_idx"} <= set(t.indexes()["partitions"])
    for index, column in (
        ("secondary_index_merchant_idx", "merchant_name"),
        ("secondary_index_txn_date_idx", "txn_date"),
    ):
        by_value: dict[Any, list[str]] = {}
        for r in rows:
            by_value.setdefault(r[column], []).append(r["_hoodie_record_key"])
        values = list(by_value)
        found = t.lookup_secondary(
            index, values + ([date(1999, 1, 1)] if column == "txn_date" else ["no such merchant"])
        )
        assert found.schema.metadata[b"lookup.index"] == index.encode()
        got: dict[Any, list[str]] = {}
        for r in found.to_pylist():
            got.setdefault(r["secondary_key"], []).append(r["record_key"])
        if column == "txn_date":  # Hudi stores a date as its days since the epoch
            epoch = date(1970, 1, 1)
            expected = {None if v is None else str((v - epoch).days): sorted(keys) for v, keys in by_value.items()}
        else:
            expected = {v: sorted(keys) for v, keys in by_value.items()}
        assert got == expected, index
    # A date given as text is cast to the column's type.
    some_date = next(r["txn_date"] for r in rows if r["txn_date"] is not None)
    as_text = t.lookup_secondary("secondary_index_txn_date_idx", [some_date.isoformat()])
    assert sorted(as_text.column("record_key").to_pylist()) == sorted(
        r["_hoodie_record_key"] for r in rows if r["txn_date"] == some_date
    )
    with pytest.raises(lakeshore.InvalidArgumentError, match="secondary_index_merchant_idx"):
        t.lookup_secondary("secondary_index_nope", ["x"])


def test_the_index_verb_looks_up_by_a_secondary_index(
    unzipped: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    from lakeshore.cli import main

    root = str(unzipped["sample_table/cow/v9_txns_simple_meta"])
    assert main(["index", "lookup", root, "Amazon,Nowhere", "--index", "secondary_index_merchant_idx", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["index"] == "secondary_index_merchant_idx"
    assert found["matches"] and {m["secondary_key"] for m in found["matches"]} == {"Amazon"}
    amazon = sorted(
        r["_hoodie_record_key"] for r in _hudi_read(Path(root)).to_pylist() if r["merchant_name"] == "Amazon"
    )
    assert sorted(m["record_key"] for m in found["matches"]) == amazon


def _with_column_stats(label: str, unzipped: dict[str, Path]) -> bool:
    properties = (unzipped[label] / ".hoodie" / "hoodie.properties").read_text()
    prefix = "hoodie.table.metadata.partitions="
    return any(line.startswith(prefix) and "column_stats" in line for line in properties.splitlines())


def _filtered_reads_equal_the_oracle(t: lakeshore.Table, label: str) -> dict[str, int]:
    """Filters `<`, `=` and `>=` on every primitive column, with values of three rows, for the
    snapshot, read-optimized and one time-travel read: the rows equal the unfiltered read
    filtered row by row, and time travel never uses partition_stats. Returns what was pruned:
    file groups, those by a decimal filter, and partitions."""
    ops = {"<": pc.less, "=": pc.equal, ">=": pc.greater_equal}
    partition_fields = set(t.partition_by)
    counts = {"groups": 0, "decimal_groups": 0, "partitions": 0}
    times = _completed_times(t)
    for read in ({}, {"read_optimized": True}, *({"as_of": w} for w in times[-2:-1])):
        full = t.to_arrow(**read)
        if full.num_rows == 0:
            continue
        for name in full.schema.names:
            if name.startswith("_hoodie") or name in partition_fields:
                continue
            column = full.column(name)
            kind = column.type
            if not (pa.types.is_primitive(kind) or pa.types.is_string(kind) or pa.types.is_decimal(kind)):
                continue
            for row in (0, full.num_rows // 2, full.num_rows - 1):
                value = column[row].as_py()
                if value is None:
                    continue
                for op, compare in ops.items():
                    got = t.to_arrow(filter=[(name, op, value)], **read)
                    expected = full.filter(pc.fill_null(compare(column, pa.scalar(value, column.type)), False))
                    assert _rows(got) == _rows(expected), (label, read, name, op, value)
                    meta = got.schema.metadata or {}
                    skipped = int(meta.get(b"read.file_groups_pruned", b"0"))
                    counts["groups"] += skipped
                    counts["decimal_groups"] += skipped if pa.types.is_decimal(kind) else 0
                    counts["partitions"] += int(meta.get(b"read.partitions_pruned", b"0"))
                    if "as_of" in read:
                        assert b"partition_stats" not in meta.get(b"read.pruned_by", b""), (label, read)
    return counts


def test_filtered_reads_skip_by_sparks_column_stats_and_keep_every_matching_row(unzipped: dict[str, Path]) -> None:
    """Spark's column_stats entries (every value type it writes: strings, longs, timestamps,
    dates, booleans, decimals at their own scale) prune file groups, and so do its
    partition_stats for reads of the latest snapshot; the rows equal a row oracle."""
    labels = [label for label in unzipped if _with_column_stats(label, unzipped)]
    assert labels, "no shared table with a column_stats partition"
    decimal_pruned = partitions_pruned = 0
    for label in labels:
        counts = _filtered_reads_equal_the_oracle(lakeshore.Table.open(str(unzipped[label])), label)
        assert counts["groups"] > 0, f"{label}: Spark's column_stats pruned nothing"
        decimal_pruned += counts["decimal_groups"]
        partitions_pruned += counts["partitions"]
    assert decimal_pruned > 0, "no decimal bound pruned anything"
    assert partitions_pruned > 0, "Spark's partition_stats pruned no partition"


def test_column_and_partition_stats_rebuilt_on_sparks_tables_prune_as_safely(
    unzipped: dict[str, Path], tmp_path: Path
) -> None:
    """Dropped and built again here over Spark's tables (their base files' footers, their log
    files' Avro or Parquet data blocks), column_stats and partition_stats keep every filtered
    read equal to the row oracle, and prune."""
    labels = [label for label in unzipped if _with_column_stats(label, unzipped)]
    for label in labels:
        root = _copy(unzipped[label], tmp_path / label.replace("/", "_"))
        t = lakeshore.Table.open(str(root))
        if t.config.get("table_version", 9) not in (8, 9):
            continue
        t.drop_index("column_stats")
        assert {"column_stats", "partition_stats"} <= set(t.create_index("partition_stats")["partitions"])
        counts = _filtered_reads_equal_the_oracle(t, label)
        assert counts["groups"] > 0, (label, counts)
        if len({Path(f).parent for f in t.files()}) > 1:  # several partitions: some skipped whole
            assert counts["partitions"] > 0, (label, counts)


EMPTIED = [_label(z) for z in ZIPS if "v9_txns_simple_overwrite" in str(z) or "v6_nonpartitioned.zip" in str(z)]


@pytest.mark.parametrize("label", EMPTIED)
def test_an_emptied_completed_commit_is_damage_not_a_commit_of_nothing(
    unzipped: dict[str, Path], tmp_path: Path, label: str
) -> None:
    # Found from outside: an emptied (torn) completed commit or replacecommit was read as a commit
    # of nothing: its files left the view (rows vanished; a replace's replaced rows came back),
    # where hudi-rs fails, and a vacuum would have deleted them as named by no commit.
    root = _copy(unzipped[label], tmp_path)
    folder = root / ".hoodie" / "timeline" if (root / ".hoodie" / "timeline").is_dir() else root / ".hoodie"
    completed = sorted(
        f for f in folder.iterdir() if f.name.endswith(("commit", "replacecommit")) and f.name.count(".") == 1
    )
    victim = completed[-1]
    victim.write_bytes(b"")
    data_before = {p: p.read_bytes() for p in root.rglob("*.parquet") if ".hoodie" not in p.parts}
    with pytest.raises(lakeshore.CorruptMetadataError, match=re.escape(victim.name) + ".*empty"):
        lakeshore.Table.open(str(root)).to_arrow()
    with pytest.raises(lakeshore.CorruptMetadataError, match="empty"):
        lakeshore.vacuum(str(root), retain_hours=0, enforce_retention=False)
    assert {p: p.read_bytes() for p in root.rglob("*.parquet") if ".hoodie" not in p.parts} == data_before


def test_a_flipped_byte_in_a_checksummed_page_is_damage_naming_the_file(
    unzipped: dict[str, Path], tmp_path: Path
) -> None:
    # Found from outside: Spark's Parquet pages carry CRCs, unchecked, so a flipped byte read as
    # other values (hudi-rs failed). The byte is one only the page's CRC tells apart.
    import pyarrow.parquet as pq

    root = _copy(unzipped["sample_table/cow/v9_txns_simple_meta"], tmp_path)
    t = lakeshore.Table.open(str(root))
    base = next(root / f for f in t.files() if f.endswith(".parquet"))
    good = base.read_bytes()
    chunk = pq.ParquetFile(base).metadata.row_group(0).column(pq.ParquetFile(base).metadata.num_columns - 1)
    probe = tmp_path / "probe.parquet"
    for offset in range(chunk.data_page_offset + 20, chunk.data_page_offset + chunk.total_compressed_size - 1):
        bad = bytearray(good)
        bad[offset] ^= 0x5A
        probe.write_bytes(bytes(bad))
        try:
            pq.read_table(probe)
        except (pa.ArrowException, OSError):
            continue  # caught without the CRC
        try:
            pq.read_table(probe, page_checksum_verification=True)
        except (pa.ArrowException, OSError):
            base.write_bytes(bytes(bad))
            break
    else:
        pytest.fail("no byte of the column chunk reads as other values yet fails its page CRC")
    with pytest.raises(lakeshore.CorruptMetadataError, match=re.escape(base.name) + ".*CRC"):
        lakeshore.Table.open(str(root)).to_arrow()
