"""The `lakeshore` command line end to end: create, write (Parquet, CSV, JSON; every mode), show,
timeline, demo; --json output is one JSON document and nothing else."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import lakeshore
from lakeshore.cli import main


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)  # fails if anything but one JSON document was printed


def test_create_write_show_timeline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = str(tmp_path / "t")
    doc = run_json(
        capsys,
        "create",
        t,
        "--schema",
        "id:int64!,city:string,ts:timestamp[ms],n:double",
        "--record-key",
        "id",
        "--partition-by",
        "city",
        "--ordering-field",
        "ts",
    )
    assert doc["config"]["record_key"] == ["id"] and doc["config"]["partition_by"] == ["city"]

    pq.write_table(
        pa.table(
            {
                "id": pa.array([1, 2, 3], pa.int64()),
                "city": ["oslo", "lima", "oslo"],
                "ts": pa.array([1, 1, 1], pa.timestamp("ms")),
                "n": [1.0, 2.0, 3.0],
            }
        ),
        tmp_path / "a.parquet",
    )
    (tmp_path / "b.csv").write_text("n,id,city,ts\n20.5,2,lima,2026-01-01 00:00:01\n4,4,quito,2026-01-01 00:00:01\n")
    (tmp_path / "c.json").write_text('{"id": 5, "city": "oslo", "ts": "2026-01-01 00:00:02", "n": 5}\n')
    (tmp_path / "gone.csv").write_text("id\n1\n")

    r = run_json(capsys, "write", t, str(tmp_path / "a.parquet"), "--mode", "bulk_insert")
    assert r["records_inserted"] == 3 and r["input_files"] == 1
    r = run_json(capsys, "write", t, str(tmp_path / "b.csv"))
    assert (r["operation"], r["records_updated"], r["records_inserted"]) == ("upsert", 1, 1)
    run_json(capsys, "write", t, str(tmp_path / "c.json"), "--mode", "insert")
    r = run_json(capsys, "write", t, str(tmp_path / "gone.csv"), "--mode", "delete")
    assert r["records_deleted"] == 1

    show = run_json(capsys, "show", t, "--rows", "2")
    assert show["row_count"] == 4 and len(show["rows"]) == 2
    assert show["files"] == lakeshore.Table.open(t).files()
    rows = {r["id"]: r["n"] for r in lakeshore.Table.open(t).to_arrow(columns=["id", "n"]).to_pylist()}
    assert rows == {2: 20.5, 3: 3.0, 4: 4.0, 5: 5.0}

    timeline = run_json(capsys, "timeline", t)
    assert [i["state"] for i in timeline] == ["completed"] * 4

    first = timeline[0]["time"]
    assert run_json(capsys, "show", t, "--as-of", first)["row_count"] == 3


def test_create_from_a_sample_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sample = tmp_path / "s.parquet"
    pq.write_table(pa.table({"k": ["a"], "v": pa.array([1], pa.int32())}), sample)
    doc = run_json(
        capsys,
        "create",
        str(tmp_path / "t"),
        "--sample",
        str(sample),
        "--record-key",
        "k",
        "--property",
        "write.parquet.compression=zstd",
    )
    assert [(f["name"], f["type"]) for f in doc["schema"]] == [("k", "string"), ("v", "int32")]
    assert doc["config"]["properties"]["write.parquet.compression"] == "zstd"
    assert main(["create", str(tmp_path / "t2"), "--sample", str(sample), "--record-key", "k", "--property", "x"]) == 1
    assert "KEY=VALUE" in capsys.readouterr().err


def test_human_output_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = str(tmp_path / "t")
    assert main(["create", t, "--schema", "id:int64", "--record-key", "id"]) == 0
    assert "created" in capsys.readouterr().out
    assert main(["create", t, "--schema", "id:int64", "--record-key", "id"]) == 1
    err = capsys.readouterr().err
    assert "error" in err and "already" in err
    bad = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"other": [1]}), bad)
    assert main(["write", t, str(bad)]) == 1
    assert "lacks the column" in capsys.readouterr().err
    (tmp_path / "x.parquet").write_bytes(b"not parquet")
    assert main(["write", t, str(tmp_path / "x.parquet"), "--json"]) == 1
    assert "error" in json.loads(capsys.readouterr().out)
    # A key that cannot be the record key's type is a usage error naming the key and the type.
    assert main(["index", "lookup", t, "7", "abc"]) == 1
    err = capsys.readouterr().err
    assert "'abc'" in err and "int64" in err and "record key field 'id'" in err


def test_demo_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = run_json(capsys, "demo", str(tmp_path / "demo"))
    assert report["ok"], report["checks"]
    assert len(report["steps"]) == 3
    assert report["referenced_blobs"] > 0
    assert all(Path(report["root"], "table", f).is_file() for f in report["files"])
    assert main(["demo", str(tmp_path / "demo")]) == 1  # never overwrites a folder with content


def test_demo_console_script(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "lakeshore"
    done = subprocess.run([str(script), "demo", str(tmp_path / "d")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "demo ok" in done.stdout and "timeline" in done.stdout


def test_a_merge_on_read_table_is_compacted_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    t = str(tmp_path / "t")
    run_json(capsys, "create", t, "--schema", "id:int64!,v:string", "--record-key", "id", "--table-type", "mor")
    (tmp_path / "a.csv").write_text("id,v\n1,a\n2,b\n")
    (tmp_path / "b.csv").write_text("id,v\n1,A\n")
    run_json(capsys, "write", t, str(tmp_path / "a.csv"), "--mode", "insert")
    run_json(capsys, "write", t, str(tmp_path / "b.csv"))
    assert [i["action"] for i in run_json(capsys, "timeline", t)] == ["deltacommit", "deltacommit"]
    skipped = run_json(capsys, "compact", t, "--min-delta-commits", "3")
    assert skipped["instant_time"] is None and "trigger" in skipped["reason"]
    scheduled = run_json(capsys, "compact", t, "--schedule-only")
    assert scheduled["scheduled"] and not scheduled["completed"]
    done = run_json(capsys, "compact", t)
    assert done["instant_time"] == scheduled["instant_time"] and done["completed"]
    assert (done["file_groups"], done["log_files"], done["records_written"]) == (1, 1, 2)
    rows = lakeshore.Table.open(t).to_arrow(columns=["id", "v"], read_optimized=True).to_pylist()
    assert sorted(rows, key=lambda r: r["id"]) == [{"id": 1, "v": "A"}, {"id": 2, "v": "b"}]
    # Human output: a summary table, and a clear error on a copy-on-write table.
    assert main(["compact", t]) == 0
    assert "nothing to do" in capsys.readouterr().out
    cow = str(tmp_path / "cow")
    run_json(capsys, "create", cow, "--schema", "id:int64!", "--record-key", "id")
    assert main(["compact", cow]) != 0
    assert "copy-on-write" in capsys.readouterr().err


def test_clustering_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = str(tmp_path / "t")
    run_json(
        capsys,
        "create",
        t,
        "--schema",
        "id:int64!,city:string,n:int64",
        "--record-key",
        "id",
        "--partition-by",
        "city",
        "--property",
        "write.small_file_limit_bytes=0",
    )
    for i, body in enumerate(["id,city,n\n1,oslo,5\n2,lima,1\n", "id,city,n\n3,oslo,2\n4,lima,9\n"]):
        (tmp_path / f"{i}.csv").write_text(body)
        run_json(capsys, "write", t, str(tmp_path / f"{i}.csv"), "--mode", "insert")
    assert main(["cluster", t, "--sort-by", "nope"]) != 0
    assert "nope" in capsys.readouterr().err
    done = run_json(capsys, "cluster", t, "--sort-by", "n", "--partition", "city=oslo")
    assert done["completed"] and (done["file_groups_replaced"], done["file_groups_written"]) == (2, 1)
    assert [i["action"] for i in run_json(capsys, "timeline", t)][-1] == "replacecommit"
    oslo = lakeshore.Table.open(t).to_arrow(columns=["n"], filter=[("city", "=", "oslo")])
    assert oslo.column("n").to_pylist() == [2, 5]
    assert run_json(capsys, "cluster", t, "--partition", "city=oslo")["instant_time"] is None


def test_ctrl_c_in_a_write_without_a_terminal_stops_it_or_says_it_completed(tmp_path: Path) -> None:
    # Without a terminal (a script, cron, --json) the CLI passes no progress bar: Ctrl-C reached
    # it after the commit, and it said only "interrupted" (exit 130) of a write that had
    # completed; a script retrying on 130 wrote everything again.
    import os
    import signal
    import time

    n = 1_000_000
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("p", pa.string()), ("v", pa.string())])
    ids = pa.array(range(n), pa.int64())
    parts = pa.array([f"p{i % 4}" for i in range(n)])
    root = tmp_path / "t"
    lakeshore.Table.create(str(root), schema, record_key="id", partition_by="p").bulk_insert(
        pa.table([ids, parts, pa.array(["old"] * n)], schema=schema)
    )
    pq.write_table(pa.table([ids, parts, pa.array(["new"] * n)], schema=schema), tmp_path / "in.parquet")
    timeline = root / ".hoodie" / "timeline"
    before = set(os.listdir(timeline))
    cli = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "lakeshore",
            "write",
            str(root),
            str(tmp_path / "in.parquet"),
            "--mode",
            "upsert",
            "--json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and cli.poll() is None and not set(os.listdir(timeline)) - before:
        time.sleep(0.001)
    cli.send_signal(signal.SIGINT)
    out, err = cli.communicate(timeout=300)
    updated = lakeshore.Table.open(str(root)).to_arrow(filter=[("v", "=", "new")]).num_rows
    assert cli.returncode == 130, err
    # --json: one JSON document saying the same (stdout was empty).
    assert json.loads(out)["error"]["message"].startswith("interrupted"), out
    if "nothing of it is visible" in err:
        assert updated == 0
    else:
        assert "it completed" in err, err
        assert updated == n


def test_usage_errors_of_savepoint_and_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `savepoint create PATH --json` without an instant printed no JSON document (it exited
    # through SystemExit); `show --rows -1` showed no rows without a word.
    t = str(tmp_path / "t")
    assert main(["create", t, "--schema", "id:int64!,v:string", "--record-key", "id"]) == 0
    capsys.readouterr()
    for action in ("create", "delete"):
        assert main(["savepoint", action, t, "--json"]) == 1
        doc = json.loads(capsys.readouterr().out)
        assert "needs an INSTANT" in doc["error"]["message"]
    for argv in (["show", t, "--rows", "-1"], ["vacuum", t, "--show", "-3"], ["compact", t, "--min-log-bytes", "-1"]):
        with pytest.raises(SystemExit) as usage:
            main(argv)
        assert usage.value.code == 2
        assert "must be 0 or more" in capsys.readouterr().err


def test_user_text_is_shown_verbatim_never_as_markup(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Keys, comments and file names went to rich as markup: "[/]" stopped savepoint create (after
    # it had committed) and vacuum (after it had deleted) with a MarkupError; "[red]zz" showed as
    # "zz".
    import os
    import time

    t = str(tmp_path / "t")
    assert main(["create", t, "--schema", "k:string!,v:int64", "--record-key", "k"]) == 0
    src = tmp_path / "in.parquet"
    pq.write_table(pa.table({"k": ["a[/]", "[red]zz"], "v": pa.array([1, 2], pa.int64())}), src)
    capsys.readouterr()
    instant = run_json(capsys, "write", t, str(src), "--json")["instant_time"]
    assert main(["savepoint", "create", t, instant, "--comment", "before [/] backfill"]) == 0
    assert main(["savepoint", "list", t]) == 0
    assert "before [/] backfill" in capsys.readouterr().out
    assert main(["index", "lookup", t, "[red]zz"]) == 0
    assert "[red]zz" in capsys.readouterr().out
    stray = Path(t) / "dir[" / "x]y.parquet"  # listed as dir[/x]y.parquet
    stray.parent.mkdir()
    stray.write_bytes(b"x")
    os.utime(stray, (time.time() - 30 * 86400,) * 2)
    assert main(["vacuum", t, "--dry-run"]) == 0
    assert "dir[/x]y.parquet" in capsys.readouterr().out.replace("\n", "")
    assert main(["vacuum", t]) == 0
    assert not stray.exists()


def test_json_output_is_strict_json_for_nan_and_infinity(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = str(tmp_path / "t")
    assert main(["create", t, "--schema", "id:int64!,x:double", "--record-key", "id"]) == 0
    src = tmp_path / "in.parquet"
    pq.write_table(
        pa.table({"id": pa.array([1, 2, 3], pa.int64()), "x": [float("nan"), float("inf"), -float("inf")]}), src
    )
    assert main(["write", t, str(src)]) == 0
    capsys.readouterr()
    assert main(["show", t, "--json"]) == 0

    def refuse(constant: str) -> None:
        raise ValueError(f"non-JSON constant {constant}")

    doc = json.loads(capsys.readouterr().out, parse_constant=refuse)
    assert sorted(str(r["x"]) for r in doc["rows"]) == ["-Infinity", "Infinity", "NaN"]


def test_csv_timestamps_with_and_without_a_zone_offset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # CSV refused "...Z" and "+02:00" (JSON took them); a value without an offset is UTC.
    t = str(tmp_path / "t")
    assert main(["create", t, "--schema", "id:int64!,ts:timestamp[us, UTC]", "--record-key", "id"]) == 0
    src = tmp_path / "in.csv"
    src.write_text("id,ts\n1,2024-01-01T10:00:00Z\n2,2024-01-01T10:00:00+02:00\n3,2024-01-01 10:00:00\n")
    assert main(["write", t, str(src)]) == 0
    rows = sorted(lakeshore.Table.open(t).to_arrow(columns=["id", "ts"]).to_pylist(), key=lambda r: r["id"])
    assert [r["ts"].isoformat() for r in rows] == [
        "2024-01-01T10:00:00+00:00",
        "2024-01-01T08:00:00+00:00",
        "2024-01-01T10:00:00+00:00",
    ]


def test_csv_empty_timestamp_cell_is_a_null_and_bad_text_names_its_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An empty cell loaded as null in an int column but failed a timestamp column with a bare
    # "Failed to parse string: ''".
    t = str(tmp_path / "t")
    assert main(["create", t, "--schema", "k:string!,n:int32,ts:timestamp[us]", "--record-key", "k"]) == 0
    src = tmp_path / "in.csv"
    src.write_text("k,n,ts\na,,2020-01-01 00:00:00\nb,1,\n")
    assert main(["write", t, str(src)]) == 0
    rows = {r["k"]: r for r in lakeshore.Table.open(t).to_arrow(columns=["k", "n", "ts"]).to_pylist()}
    assert rows["a"]["n"] is None and rows["b"]["ts"] is None and rows["a"]["ts"].year == 2020
    src.write_text("k,n,ts\nc,1,not a time\n")
    capsys.readouterr()
    assert main(["write", t, str(src), "--json"]) == 1
    assert "column 'ts'" in json.loads(capsys.readouterr().out)["error"]["message"]


def test_json_lines_take_a_null_and_an_inline_blob(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The JSON reader, given the blob struct's required fields, refused a null blob and an
    # INLINE one (no reference) that Parquet input takes.
    t = str(tmp_path / "t")
    assert main(["create", t, "--schema", "id:int64!,v:string,photo:blob", "--record-key", "id"]) == 0
    src = tmp_path / "in.json"
    src.write_text(
        '{"id": 1, "v": "x", "photo": null}\n'
        '{"id": 2, "v": "y", "photo": {"type": "INLINE", "data": "hello", "reference": null}}\n'
    )
    assert main(["write", t, str(src)]) == 0
    rows = sorted(lakeshore.Table.open(t).to_arrow(columns=["id", "photo"]).to_pylist(), key=lambda r: r["id"])
    assert rows[0]["photo"] is None
    assert rows[1]["photo"]["type"] == "INLINE" and rows[1]["photo"]["reference"] is None


def test_csv_edge_values_are_read_or_refused_cleanly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A date-only timestamp ("-01" is its day, not an offset) was refused; a value overflowing
    # a float column was stored as inf; a CSV into a list column ended in a traceback.
    t = str(tmp_path / "t")
    assert main(["create", t, "--schema", "id:int64!,ts:timestamp[us, UTC],f:float", "--record-key", "id"]) == 0
    src = tmp_path / "in.csv"
    src.write_text("id,ts,f\n1,2020-01-01,0.5\n")
    assert main(["write", t, str(src)]) == 0
    row = lakeshore.Table.open(t).to_arrow(columns=["ts", "f"]).to_pylist()[0]
    assert (row["ts"].isoformat(), row["f"]) == ("2020-01-01T00:00:00+00:00", 0.5)
    src.write_text("id,ts,f\n2,2020-01-01,1e300\n")
    capsys.readouterr()
    assert main(["write", t, str(src), "--json"]) == 1
    assert "loses information" in json.loads(capsys.readouterr().out)["error"]["message"]
    lists = str(tmp_path / "l")
    assert main(["create", lists, "--schema", "id:int64!,xs:list<int64>", "--record-key", "id"]) == 0
    (tmp_path / "l.csv").write_text("id,xs\n1,[1]\n")
    capsys.readouterr()
    assert main(["write", lists, str(tmp_path / "l.csv"), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["error"]["type"].startswith("Arrow")


def test_emoji_codes_in_user_text_are_shown_as_typed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = str(tmp_path / "e:thumbs_up:x")
    assert main(["create", t, "--schema", "id:int64!", "--record-key", "id"]) == 0
    assert ":thumbs_up:" in capsys.readouterr().out


def test_show_counts_and_shows_rows_without_reading_the_table_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # show read every row and column to print a count and a few rows; it now counts the record
    # key column and reads the rows it shows by their keys (a merge-on-read table: merged).
    t = str(tmp_path / "t")
    schema = "id:int64!,city:string,v:int64"
    assert (
        main(["create", t, "--schema", schema, "--record-key", "id", "--partition-by", "city", "--table-type", "mor"])
        == 0
    )
    table = lakeshore.Table.open(t)
    data = pa.table({"id": pa.array(range(6), pa.int64()), "city": ["a", "b"] * 3, "v": pa.array(range(6), pa.int64())})
    table.insert(data)
    table.upsert(
        pa.table({"id": pa.array([0, 1], pa.int64()), "city": ["a", "b"], "v": pa.array([10, 11], pa.int64())})
    )
    capsys.readouterr()
    doc = run_json(capsys, "show", t, "--rows", "3")
    assert doc["row_count"] == 6
    stored = {r["id"]: r for r in table.to_arrow(columns=["id", "city", "v"]).to_pylist()}
    assert len(doc["rows"]) == 3
    for row in doc["rows"]:
        assert row == stored[row["id"]]


def test_input_piped_to_standard_input_is_written(tmp_path: Path) -> None:
    # Found by outside testing: `... | lakeshore write T /dev/stdin --format json` said the input
    # file did not exist (a pipe is not a regular file, and a dataset reads its files twice).
    script = Path(sys.executable).parent / "lakeshore"
    table = tmp_path / "t"
    created = subprocess.run(
        [str(script), "create", str(table), "--schema", "id:int64!,v:string", "--record-key", "id"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    for source, fmt, text in (("-", "csv", "id,v\n1,a\n2,b\n"), ("/dev/stdin", "json", '{"id": 3, "v": "c"}\n')):
        done = subprocess.run(
            [str(script), "write", str(table), source, "--format", fmt, "--json"],
            input=text, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    rows = lakeshore.Table.open(str(table)).to_arrow(columns=["id", "v"]).sort_by("id").to_pylist()
    assert rows == [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}, {"id": 3, "v": "c"}]
    # A delete reads its input twice (its columns, then its rows): the pipe is read once.
    deleted = subprocess.run(
        [str(script), "write", str(table), "-", "--mode", "delete", "--format", "csv"],
        input="id\n2\n", capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert deleted.returncode == 0, deleted.stderr
    rows = lakeshore.Table.open(str(table)).to_arrow(columns=["id"]).sort_by("id").to_pylist()
    assert rows == [{"id": 1}, {"id": 3}]
    lacking = subprocess.run(
        [str(script), "write", str(table), "-", "--format", "csv"],
        input="id,w\n9,z\n", capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert lacking.returncode == 1 and "'standard input' lacks" in lacking.stderr, lacking.stderr
    twice = subprocess.run(
        [str(script), "write", str(table), "-", "/dev/stdin", "--format", "csv"],
        input="id,v\n8,y\n", capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert twice.returncode == 1 and "more than once" in twice.stderr, twice.stderr
    unknown = subprocess.run(
        [str(script), "write", str(table), "-"], input="x", capture_output=True, text=True, timeout=120
    )
    assert unknown.returncode != 0 and "pass --format" in unknown.stderr
