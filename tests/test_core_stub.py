"""python/lakeshore/_core.pyi is the typed face of the native module (mypy checks the package
against it): it must say what the built module has. Regenerate with `make stubs`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_stub_matches_the_built_module(tmp_path: Path) -> None:
    pytest.importorskip("nanobind")
    out = tmp_path / "_core.pyi"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_core_stub.py"), str(out)], check=True)
    committed = (ROOT / "python" / "lakeshore" / "_core.pyi").read_text()
    assert out.read_text() == committed, "python/lakeshore/_core.pyi is stale: run `make stubs`"
