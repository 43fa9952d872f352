"""What users hand the Python front and the CLI, as a new user would: each case was found by
trying the documented calls with the inputs people have at hand (whole rows, a pandas or polars
Series, Python numbers and bools as settings, an empty list, a misspelt partition) and was seen
failing before its fix."""

from __future__ import annotations

import base64
import datetime as dt
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import hudi
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import lakeshore
from lakeshore.cli import main

SCHEMA = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        pa.field("name", pa.string()),
        pa.field("city", pa.string()),
        pa.field("ts", pa.timestamp("ms")),
    ]
)


def rows(*ids: int, city: str = "oslo") -> pa.Table:
    return pa.Table.from_pylist(
        [{"id": i, "name": f"n{i}", "city": city, "ts": dt.datetime(2026, 1, 1)} for i in ids], schema=SCHEMA
    )


@pytest.fixture()
def table(table_path: str) -> lakeshore.Table:
    t = lakeshore.Table.create(table_path, SCHEMA, record_key="id", partition_by="city", ordering_field="ts")
    t.bulk_insert(rows(1, 2, 3))
    t.bulk_insert(rows(4, city="lima"))
    return t


def ids(t: lakeshore.Table) -> list[int]:
    return sorted(t.to_arrow(columns=["id"]).column("id").to_pylist())


class Series:
    """What a pandas or polars Series hands over: a stream of one column's values."""

    def __init__(self, values: list[Any]) -> None:
        self._column = pa.chunked_array([pa.array(values, pa.int64())])

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self._column.__arrow_c_stream__(requested_schema)


def test_delete_takes_whole_rows_and_counts_the_keys_given(table: lakeshore.Table) -> None:
    # Whole rows failed ("column 'name' is not in the table schema"); records_in counted the keys
    # found (1 of 3), not those given.
    r = table.delete(rows(1).select(["id", "name", "city", "ts"]))
    assert r["records_deleted"] == 1 and r["records_in"] == 1
    r = table.delete([2, 99, 98])
    assert r["records_deleted"] == 1 and r["records_in"] == 3
    with pytest.raises(lakeshore.SchemaMismatchError, match="'nope'"):
        table.delete(pa.table({"id": [3], "nope": [1]}))
    assert ids(table) == [3, 4]


def test_keys_come_as_a_series_or_an_empty_list(table: lakeshore.Table) -> None:
    # A one-column stream (pandas/polars Series) failed with "ArrowSchema describes non-struct
    # type"; an empty list of text keys with "Must pass at least one array".
    assert table.lookup(Series([4])).column("partition").to_pylist() == ["city=lima"]
    assert table.delete(Series([4]))["records_deleted"] == 1
    s = pa.schema([pa.field("k", pa.string(), nullable=False)])
    text = lakeshore.Table.create(str(Path(table.uri.removeprefix("file://")).parent / "text"), s, record_key="k")
    text.insert(pa.table({"k": ["a"]}, schema=s))
    assert text.lookup([]).num_rows == 0


def test_wrongly_typed_arguments_say_what_is_wrong(table_path: str) -> None:
    with pytest.raises(TypeError, match="record_key must be a field name"):
        lakeshore.Table.create(table_path, SCHEMA, record_key=1)  # type: ignore[arg-type]
    composite = lakeshore.Table.create(table_path + "2", SCHEMA, record_key=["id", "name"])
    with pytest.raises(TypeError, match="lacks 'name'"):
        composite.delete([{"id": 1}])
    for twice in ({"record_key": ["id", "id"]}, {"record_key": "id", "partition_by": ["city", "city"]}):
        with pytest.raises(lakeshore.InvalidArgumentError, match="named twice"):
            lakeshore.Table.create(table_path + "3", SCHEMA, **twice)


def test_settings_take_python_values_and_store_only_what_hudi_readers_read(table_path: str) -> None:
    # An int or a bool value failed with nanobind's "incompatible function arguments"; "0" was
    # taken as false and stored, and hudi-rs could not open the table.
    t = lakeshore.Table.create(
        table_path,
        SCHEMA,
        record_key="id",
        properties={"write.max_file_size_bytes": 1 << 20, "hoodie.metadata.enable": True},
    )
    t.insert(rows(1))
    assert t.config["properties"]["hoodie.metadata.enable"] == "true"
    assert len(pa.Table.from_batches(hudi.HudiTable(table_path).read())) == 1
    for spelling in ("0", "1", "TRUE", "yes"):
        with pytest.raises(lakeshore.InvalidArgumentError, match="true or false"):
            lakeshore.Table.open(table_path, properties={"hoodie.archive.automatic": spelling})
    with pytest.raises(TypeError, match="'hoodie.archive.automatic'"):
        lakeshore.Table.open(table_path, properties={"hoodie.archive.automatic": [True]})  # type: ignore[dict-item]
    # Open checks its settings with the stored ones, as create does: else each write committed
    # and then failed its archival, and a retry stored the rows twice.
    with pytest.raises(lakeshore.InvalidArgumentError, match="keep.min.commits"):
        lakeshore.Table.open(table_path, properties={"hoodie.keep.min.commits": "40"})


def test_a_partition_never_written_is_named_not_skipped(table: lakeshore.Table) -> None:
    # delete_partitions of a misspelt value committed an empty replacecommit; cluster of a
    # partition named by its value where it takes the path said no partition had small files.
    before = len(table.timeline())
    with pytest.raises(lakeshore.InvalidArgumentError, match="partition 'city=osloo' was never written"):
        table.delete_partitions(["osloo"])
    with pytest.raises(lakeshore.InvalidArgumentError, match="partition 'oslo' was never written.*'city=oslo'"):
        table.cluster(partitions=["oslo"])  # cluster takes paths: this one is city=oslo
    assert len(table.timeline()) == before and ids(table) == [1, 2, 3, 4]
    assert table.delete_partitions(["oslo"])["file_groups_replaced"] == 1
    assert ids(table) == [4]
    assert table.delete_partitions(["oslo"])["file_groups_replaced"] == 0  # dropped before: as Hudi, again


def test_zone_less_text_finds_a_timestamp_in_an_index(table_path: str) -> None:
    s = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("ts", pa.timestamp("ms"))])
    t = lakeshore.Table.create(table_path, s, record_key="id")
    t.bulk_insert(pa.table({"id": [1], "ts": [dt.datetime(2025, 12, 1, 10)]}, schema=s))
    t.create_index("secondary_index_ts", column="ts")
    found = t.lookup_secondary("secondary_index_ts", ["2025-12-01 10:00:00"])
    assert found.column("record_key").to_pylist() == ["1"]


def test_files_read_by_duckdb_after_a_column_was_added(table_path: str) -> None:
    s = pa.schema([pa.field("id", pa.int64(), nullable=False)])
    t = lakeshore.Table.create(table_path, s, record_key="id")
    t.insert(pa.table({"id": [1]}, schema=s))
    t.evolve_schema(s.append(pa.field("n", pa.int64())))
    t = lakeshore.Table.open(table_path)
    t.insert(pa.table({"id": [2], "n": [7]}, schema=t.schema))
    # As Table.files() documents it.
    got = duckdb.read_parquet(t.files(), union_by_name=True).select("id, n").order("id").fetchall()
    assert got == [(1, None), (2, 7)]


def test_vacuum_of_the_other_format_says_so(table: lakeshore.Table, tmp_path: Path) -> None:
    import deltalake

    path = table.uri.removeprefix("file://")
    with pytest.raises(lakeshore.InvalidArgumentError, match="holds a hudi table, not a delta one"):
        lakeshore.vacuum(path, format="delta", dry_run=True)
    deltalake.write_deltalake(str(tmp_path / "delta"), pa.table({"id": [1]}))
    with pytest.raises(lakeshore.InvalidArgumentError, match="holds a delta table, not a hudi one"):
        lakeshore.vacuum(str(tmp_path / "delta"), format="hudi", dry_run=True)


def test_optimistic_vacuum_skips_after_an_index_build_or_a_savepoint(table: lakeshore.Table) -> None:
    # Neither leaves a file to delete; both made every optimistic run list the table.
    first = table.timeline()[0]["time"]
    table.create_index("record_index")
    table.savepoint(first)
    path = table.uri.removeprefix("file://")
    lakeshore.vacuum(path)
    again = lakeshore.vacuum(path, optimistic=True)
    assert again["skipped"], again["skip_reason"]


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any]:
    code = main([*argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_cli_csv_keeps_nan_and_leaves_a_blob_null(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # NaN was stored as null; a CSV could not be written to a table with a blob column (the
    # README's tour).
    t = str(tmp_path / "t")
    run_cli(capsys, "create", t, "--schema", "id:int64!,fare:double,photo:blob", "--record-key", "id")
    (tmp_path / "in.csv").write_text("id,fare,photo\n1,NaN,\n2,,\n")
    code, doc = run_cli(capsys, "write", t, str(tmp_path / "in.csv"), "--mode", "bulk_insert")
    assert code == 0, doc
    got = {r["id"]: r for r in lakeshore.Table.open(t).to_arrow().to_pylist()}
    assert got[1]["fare"] != got[1]["fare"] and got[2]["fare"] is None  # NaN, then an empty cell
    assert got[1]["photo"] is None
    (tmp_path / "bad.csv").write_text("id,fare,photo\n3,1,somewhere\n")
    code, doc = run_cli(capsys, "write", t, str(tmp_path / "bad.csv"))
    assert code != 0 and "column 'photo'" in doc["error"]["message"]


def test_cli_lookup_reads_key_text_as_the_key_type(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = str(tmp_path / "t")
    run_cli(capsys, "create", t, "--schema", "ts:timestamp[ms]!,v:string", "--record-key", "ts")
    (tmp_path / "in.json").write_text('{"ts": "2026-01-01 12:00:00", "v": "a"}\n')
    assert run_cli(capsys, "write", t, str(tmp_path / "in.json"))[0] == 0
    code, doc = run_cli(capsys, "index", "lookup", t, "2026-01-01 12:00:00")
    assert code == 0, doc
    assert [r["file_id"] is not None for r in doc["locations"]] == [True]


def test_cli_names_the_column_an_input_file_cannot_give(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Arrow's scan said only "Unsupported cast from list<element: int64> to utf8".
    import pyarrow.parquet as pq

    t = str(tmp_path / "t")
    run_cli(capsys, "create", t, "--schema", "id:int64!,v:string", "--record-key", "id")
    pq.write_table(pa.table({"id": [1], "v": [[1, 2]]}), tmp_path / "in.parquet")
    code, doc = run_cli(capsys, "write", t, str(tmp_path / "in.parquet"))
    assert code == 1 and "column 'v' is list<element: int64>" in doc["error"]["message"], doc


def test_a_column_stats_list_names_columns_the_table_has(table_path: str) -> None:
    key = "hoodie.metadata.index.column.stats.column.list"
    with pytest.raises(lakeshore.InvalidArgumentError, match="names column 'vv'"):
        lakeshore.Table.create(table_path, SCHEMA, record_key="id", properties={key: "name, vv"})
    lakeshore.Table.create(table_path, SCHEMA, record_key="id", properties={key: "name, _hoodie_record_key"})
    with pytest.raises(lakeshore.InvalidArgumentError, match="names column 'ts2'"):
        lakeshore.Table.open(table_path, properties={key: "ts2"})


def test_text_finds_a_utc_timestamp_key_at_any_precision(table_path: str) -> None:
    # A list of text keys failed in Python ("cannot be converted to int"); text with more
    # fractional digits than the column's unit, all zero, was refused as lacking a zone.
    s = pa.schema([pa.field("ts", pa.timestamp("ms", "UTC"), nullable=False), pa.field("v", pa.string())])
    t = lakeshore.Table.create(table_path, s, record_key="ts")
    t.insert(pa.table({"ts": ["2026-01-01T10:00:00.123000"], "v": ["a"]}))
    stored = t.to_arrow().column("ts").to_pylist()
    assert stored == [dt.datetime(2026, 1, 1, 10, 0, 0, 123000, tzinfo=dt.timezone.utc)]
    assert t.lookup(["2026-01-01 10:00:00.123"]).column("file_id").null_count == 0
    with pytest.raises(lakeshore.SchemaMismatchError):
        t.insert(pa.table({"ts": ["2026-01-01T10:00:00.123400"], "v": ["b"]}))  # a digit would be lost
    assert t.delete(["2026-01-01 10:00:00.123"])["records_deleted"] == 1


def test_cli_delete_refuses_a_column_the_table_lacks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = str(tmp_path / "t")
    run_cli(capsys, "create", t, "--schema", "id:int64!,v:string", "--record-key", "id")
    (tmp_path / "in.csv").write_text("id,v\n1,a\n")
    assert run_cli(capsys, "write", t, str(tmp_path / "in.csv"))[0] == 0
    (tmp_path / "gone.csv").write_text("id,v,zzz\n1,a,x\n")
    code, doc = run_cli(capsys, "write", t, str(tmp_path / "gone.csv"), "--mode", "delete")
    assert code == 1 and "['zzz']" in doc["error"]["message"], doc
    (tmp_path / "rows.csv").write_text("id,v\n1,a\n")  # whole rows: the table's other columns are ignored
    assert run_cli(capsys, "write", t, str(tmp_path / "rows.csv"), "--mode", "delete")[1]["records_deleted"] == 1


def test_a_delete_given_dicts_with_the_partition_reads_no_other_partition(tmp_path: Path) -> None:
    # Found from outside: the dicts' partition field was dropped on the way to the core, which
    # then read the key columns of every data file to locate the key (cost grew with the table,
    # whatever the docstring promised). A damaged file in another partition shows it is not read.
    schema = pa.schema([pa.field("id", pa.string(), nullable=False), ("p", pa.string()), ("v", pa.int64())])
    root = tmp_path / "t"
    t = lakeshore.Table.create(str(root), schema, record_key="id", partition_by="p")
    t.insert(pa.table({"id": ["a", "b"], "p": ["x", "y"], "v": [1, 2]}, schema=schema))
    other = next(f for f in (root / "p=y").iterdir() if f.suffix == ".parquet")
    other.write_bytes(b"damaged")
    result = t.delete([{"id": "a", "p": "x"}])
    assert result["records_deleted"] == 1
    with pytest.raises(lakeshore.CorruptMetadataError):
        t.delete([{"id": "b"}])  # without the partition the key is located by reading the files


def test_a_read_lookup_or_delete_by_key_opens_only_the_files_whose_key_range_may_hold_it(tmp_path: Path) -> None:
    # Found from outside: a delete of one key without its partition, and a lookup by scan, read
    # every data file of the table. Base files' key ranges now rule files out; a damaged file
    # whose range cannot hold the key shows it is not opened.
    schema = pa.schema([pa.field("id", pa.string(), nullable=False), ("p", pa.string()), ("v", pa.int64())])
    root = tmp_path / "t"
    t = lakeshore.Table.create(
        str(root), schema, record_key="id", partition_by="p", properties={"write.small_file_limit_bytes": "0"}
    )
    for batch in range(4):  # four file groups per partition, key ranges apart
        keys = [f"k{batch}-{i:03d}" for i in range(50)]
        t.insert(
            pa.table({"id": keys, "p": ["x" if i % 2 else "y" for i in range(50)], "v": [batch] * 50}, schema=schema)
        )
    read = t.to_arrow(columns=["id"], filter=[("_hoodie_record_key", "in", ["k2-007"])])
    assert read.column("id").to_pylist() == ["k2-007"]
    assert read.schema.metadata[b"read.pruned_by"] == b"key_range"
    # Batch 2's groups in both partitions span k2-000..k2-049: the six others are ruled out.
    assert read.schema.metadata[b"read.file_groups_pruned"] == b"6"
    located = t.lookup(["k2-007"]).to_pylist()[0]
    batch_two = {r["file_id"] for r in t.lookup(["k2-007", "k2-008"]).to_pylist()}
    others = [f for f in root.rglob("*.parquet") if not any(g in f.name for g in batch_two)]
    assert len(batch_two) == 2 and len(others) == 6
    for f in others:
        f.write_bytes(b"damaged")
    assert t.lookup(["k2-007"]).to_pylist()[0]["file_id"] == located["file_id"]
    assert t.delete(["k2-007"])["records_deleted"] == 1


@pytest.mark.parametrize(
    "name, text", [("in.json", '{"id": 1, "small": 3000000000}\n'), ("in.csv", "id,small\n1,-2147483649\n")]
)
def test_cli_a_value_an_integer_column_cannot_hold_is_refused_naming_the_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str
) -> None:
    # Arrow's parser refused it naming no column ("Failed to convert JSON to int32").
    t = str(tmp_path / "t")
    run_cli(capsys, "create", t, "--schema", "id:int64!,small:int32", "--record-key", "id")
    (tmp_path / name).write_text(text)
    code, doc = run_cli(capsys, "write", t, str(tmp_path / name))
    assert code != 0 and "'small'" in doc["error"]["message"], doc
    (tmp_path / "ok.json").write_text('{"id": 2, "small": -7}\n')
    code, doc = run_cli(capsys, "write", t, str(tmp_path / "ok.json"))
    assert code == 0, doc
    assert lakeshore.Table.open(t).to_arrow(columns=["small"]).column("small").to_pylist() == [-7]


def test_a_delete_naming_another_partition_under_a_global_index_says_how_to_delete(tmp_path: Path) -> None:
    # Its advice was "delete it there first", for a delete.
    schema = pa.schema([pa.field("id", pa.string(), nullable=False), ("p", pa.string()), ("v", pa.int64())])
    t = lakeshore.Table.create(
        str(tmp_path / "t"),
        schema,
        record_key="id",
        partition_by="p",
        properties={"hoodie.index.type": "GLOBAL_SIMPLE"},
    )
    t.insert(pa.table({"id": ["a"], "p": ["x"], "v": [1]}, schema=schema))
    with pytest.raises(lakeshore.InvalidArgumentError, match="to delete it, name that partition or give the key alone"):
        t.delete([{"id": "a", "p": "y"}])
    assert t.delete([{"id": "a", "p": "x"}])["records_deleted"] == 1


def test_cli_counts_beyond_64_bits_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `show --rows 99999999999999999999` ended in pyarrow's OverflowError traceback; compact,
    # cluster and archive got nanobind's "incompatible function arguments".
    t = str(tmp_path / "t")
    assert run_cli(capsys, "create", t, "--schema", "id:int64!,v:string", "--record-key", "id")[0] == 0
    huge = str(2**63)
    for argv in (
        ["show", t, "--rows", huge],
        ["compact", t, "--min-delta-commits", huge],
        ["cluster", t, "--target-file-bytes", huge],
        ["archive", t, "--keep-min", huge],
    ):
        with pytest.raises(SystemExit) as exit_info:
            main([*argv, "--json"])
        assert exit_info.value.code == 2, argv
        assert "must be at most 9,223,372,036,854,775,807" in capsys.readouterr().err, argv
    code, doc = run_cli(capsys, "show", t, "--rows", str(2**63 - 1))
    assert code == 0 and doc["rows"] == [], doc


def test_cli_a_schema_nested_too_deep_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 1,200 nested lists ended in a RecursionError traceback.
    deep = "id:int64!,x:" + "list<" * 1200 + "int64" + ">" * 1200
    done = subprocess.run(
        [sys.executable, "-m", "lakeshore", "create", str(tmp_path / "t"), "--schema", deep, "--record-key", "id"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2, done.stderr
    assert "nest deeper than 62" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "t").exists()
    # The deepest a schema string may nest is what the core takes.
    deepest = "id:int64!,x:" + "list<" * 62 + "int64" + ">" * 62
    assert run_cli(capsys, "create", str(tmp_path / "d"), "--schema", deepest, "--record-key", "id")[0] == 0


def test_cli_json_gives_binary_values_as_base64(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Bytes came out as Python's repr ("b'\\x89PNG'"), which no JSON reader turns back into bytes.
    t = str(tmp_path / "t")
    assert run_cli(capsys, "create", t, "--schema", "id:int64!,data:binary", "--record-key", "id")[0] == 0
    pq.write_table(pa.table({"id": [1], "data": [b"\x89PNG\x00\xff"]}), tmp_path / "in.parquet")
    assert run_cli(capsys, "write", t, str(tmp_path / "in.parquet"))[0] == 0
    code, doc = run_cli(capsys, "show", t)
    assert code == 0, doc
    assert base64.b64decode(doc["rows"][0]["data"]) == b"\x89PNG\x00\xff"


def test_a_restore_to_a_time_that_is_no_savepoint_says_so_even_with_later_savepoints(tmp_path: Path) -> None:
    # restore("") and restore of a mistyped time both answered "savepoint X is later; delete it first".
    t = lakeshore.Table.create(
        str(tmp_path / "t"), pa.schema([pa.field("id", pa.int64(), nullable=False)]), record_key="id"
    )
    first = t.insert(pa.table({"id": [1]}))["instant_time"]
    t.insert(pa.table({"id": [2]}))
    t.savepoint(first)
    for wrong in ("1", first[:-1]):
        with pytest.raises(lakeshore.InvalidArgumentError, match="it is not a savepoint"):
            t.restore(wrong)
    with pytest.raises(ValueError, match="savepoint is empty"):
        t.restore("")
    assert t.to_arrow().num_rows == 2  # nothing was restored


def test_an_empty_time_bound_is_refused_not_read_as_the_latest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # as_of="" (an unset variable passed on) read the latest state without a word; so did the
    # CLI's --as-of "". `savepoint list T extra` ignored its extra argument.
    path = str(tmp_path / "t")
    t = lakeshore.Table.create(path, pa.schema([pa.field("id", pa.int64(), nullable=False)]), record_key="id")
    t.insert(pa.table({"id": [1]}))
    with pytest.raises(ValueError, match="as_of is empty"):
        t.to_arrow(as_of="")
    with pytest.raises(ValueError, match="as_of is empty"):
        t.files(as_of="")
    with pytest.raises(ValueError, match="end is empty"):
        t.read_incremental(start="000", end=" ")
    code, doc = run_cli(capsys, "show", path, "--as-of", "")
    assert code != 0 and "as_of is empty" in doc["error"]["message"], doc
    code, doc = run_cli(capsys, "savepoint", "list", path, "20260101000000000")
    assert code != 0 and "takes no INSTANT" in doc["error"]["message"], doc


def test_cli_json_dates_come_as_text_or_as_day_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A JSON date "2026-01-01" was refused with Arrow's "changed from number to string" (CSV took
    # it); reading JSON dates as text then refused the day counts Arrow's reader had taken
    # (20000), and a date inside a struct in either form.
    t = str(tmp_path / "t")
    assert run_cli(capsys, "create", t, "--schema", "id:int64!,dt:date32", "--record-key", "id")[0] == 0
    (tmp_path / "a.csv").write_text("id,dt\n1,2026-01-01\n")
    (tmp_path / "text.json").write_text('{"id": 2, "dt": "2026-03-04"}\n{"id": 3, "dt": null}\n')
    (tmp_path / "days.json").write_text('{"id": 4, "dt": 20000}\n{"id": 5, "dt": null}\n')
    for name in ("a.csv", "text.json", "days.json"):
        code, doc = run_cli(capsys, "write", t, str(tmp_path / name))
        assert code == 0, doc
    rows = {r["id"]: r["dt"] for r in lakeshore.Table.open(t).to_arrow().to_pylist()}
    assert rows == {1: dt.date(2026, 1, 1), 2: dt.date(2026, 3, 4), 3: None, 4: dt.date(2024, 10, 4), 5: None}
    (tmp_path / "bad.json").write_text('{"id": 6, "dt": "the fourth"}\n')
    code, doc = run_cli(capsys, "write", t, str(tmp_path / "bad.json"))
    assert code != 0 and "column 'dt' holds text that is not a date" in doc["error"]["message"], doc
    code, doc = run_cli(capsys, "write", t, str(tmp_path / "days.json"), str(tmp_path / "text.json"))
    assert code != 0 and "as text in" in doc["error"]["message"] and "day count" in doc["error"]["message"], doc
    nested = pa.table(
        {"id": [4], "s": [{"d": dt.date(2024, 10, 4)}]},
        schema=pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("s", pa.struct([("d", pa.date32())]))]),
    )
    n = lakeshore.Table.create(str(tmp_path / "n"), nested.schema, record_key="id")
    (tmp_path / "nested.json").write_text('{"id": 4, "s": {"d": 20000}}\n')
    code, doc = run_cli(capsys, "write", str(tmp_path / "n"), str(tmp_path / "nested.json"))
    assert code == 0, doc
    assert n.to_arrow(columns=["id", "s"]).to_pylist() == nested.to_pylist()
