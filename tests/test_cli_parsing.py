"""The CLI's own parsing: schema strings, input formats, help texts (no table needed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakeshore.cli import build_parser, main, verb_modules
from lakeshore.cli._common import detect_format, human_instant, open_input, parse_schema


def test_schema_string() -> None:
    schema = parse_schema(
        "id:int64!, name:string,ts:timestamp[ms],at:timestamp[us, UTC],amount:decimal(10, 2),"
        "tags:list<string>,ok:bool,d:date32,f:double"
    )
    assert schema == pa.schema(
        [
            pa.field("id", pa.int64(), nullable=False),
            pa.field("name", pa.string()),
            pa.field("ts", pa.timestamp("ms")),
            pa.field("at", pa.timestamp("us", tz="UTC")),
            pa.field("amount", pa.decimal128(10, 2)),
            pa.field("tags", pa.list_(pa.string())),
            pa.field("ok", pa.bool_()),
            pa.field("d", pa.date32()),
            pa.field("f", pa.float64()),
        ]
    )


@pytest.mark.parametrize("bad", ["", "id", "id:", ":int64", "id:nosuchtype", "id:int64,name"])
def test_bad_schema_strings_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_schema(bad)


def test_format_detection() -> None:
    assert detect_format("a/b.parquet", None) == "parquet"
    assert detect_format("b.CSV", None) == "csv"
    assert detect_format("b.jsonl", None) == "json"
    assert detect_format("b.txt", "csv") == "csv"
    with pytest.raises(ValueError, match="--format"):
        detect_format("b.txt", None)


def test_input_missing_a_table_column_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "in.parquet"
    pq.write_table(pa.table({"id": [1, 2]}), path)
    schema = pa.schema([("id", pa.int64()), ("name", pa.string())])
    with pytest.raises(ValueError, match=r"lacks the column\(s\) \['name'\]"):
        open_input([str(path)], None, schema)


def test_csv_input_takes_the_table_types(tmp_path: Path) -> None:
    path = tmp_path / "in.csv"
    path.write_text("name,id,ts\nx,1,2026-01-01 00:00:00\ny,2,2026-01-02 00:00:00\n")
    schema = pa.schema([("id", pa.int64()), ("name", pa.string()), ("ts", pa.timestamp("ms"))])
    data = open_input([str(path)], None, schema).to_table(columns=schema.names)
    assert data.schema == schema
    assert data.column("id").to_pylist() == [1, 2]


def test_human_instant() -> None:
    assert human_instant("20261129110203123") == "2026-11-29 11:02:03.123"
    assert human_instant("not-an-instant") == "not-an-instant"


def test_every_verb_is_registered_with_help_and_json() -> None:
    assert {"create", "write", "show", "timeline", "demo"} <= set(verb_modules())
    parser = build_parser()
    for verb in verb_modules():
        with pytest.raises(SystemExit) as info:
            parser.parse_args([verb, "--help"])
        assert info.value.code == 0


def test_verb_help_has_examples_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    for verb in verb_modules():
        with pytest.raises(SystemExit):
            main([verb, "--help"])
        text = capsys.readouterr().out
        assert "examples:" in text, verb
        assert "--json" in text, verb


def test_console_script_is_installed() -> None:
    script = Path(sys.executable).parent / "lakeshore"
    assert script.exists(), "pip install . should have installed the `lakeshore` console script"
    done = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert "examples:" in done.stdout and "lakeshore demo" in done.stdout


def test_errors_go_to_stderr_and_json_errors_to_stdout(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.parquet")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "lakeshore",
            "create",
            str(tmp_path / "t"),
            "--sample",
            missing,
            "--record-key",
            "id",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "does not exist" in done.stderr
    import json

    doc = json.loads(done.stdout)
    assert doc["error"]["type"] == "FileNotFoundError"


@pytest.mark.parametrize("schema", ["", " ", ",", "id"])
def test_create_with_an_empty_or_bad_schema_is_a_usage_error(tmp_path: Path, schema: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "lakeshore", "create", str(tmp_path / "t"), "--schema", schema, "--record-key", "id"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2, done.stderr
    assert "--schema" in done.stderr and "name:type" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "t").exists()


def test_input_with_a_column_the_table_lacks_is_refused_unless_only_keys_are_read(tmp_path: Path) -> None:
    # The API refuses a batch with a column the table lacks; the CLI dropped it silently (a
    # misspelt column, or one the user meant to add, was lost without a word).
    path = tmp_path / "in.parquet"
    pq.write_table(pa.table({"id": [1], "name": ["a"], "extra": [9]}), path)
    schema = pa.schema([("id", pa.int64()), ("name", pa.string())])
    with pytest.raises(ValueError, match=r"has the column\(s\) \['extra'\], which the table lacks"):
        open_input([str(path)], None, schema)
    # Deletes read only the key fields of whole rows.
    assert open_input([str(path)], None, pa.schema([("id", pa.int64())]), other_columns=True).count_rows() == 1
