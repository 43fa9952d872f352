"""The installed package: the native module runs against pyarrow's Arrow and finds it by rpath."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

import lakeshore
from lakeshore import _core


def test_core_runs_against_pyarrows_arrow() -> None:
    assert _core.arrow_version() == pa.__version__


def test_core_rpath_points_at_the_pyarrow_package() -> None:
    readelf = shutil.which("readelf")
    if readelf is None:
        pytest.skip("readelf (binutils) is not installed")
    out = subprocess.run([readelf, "-d", _core.__file__], capture_output=True, text=True, check=True).stdout
    assert "$ORIGIN/../pyarrow" in out
    assert Path(_core.__file__).parent.parent.joinpath("pyarrow").is_dir()


def test_package_imports_in_a_fresh_interpreter_and_exits_cleanly() -> None:
    # importing runs arrow::compute::Initialize(); exiting runs the S3 finalizer via atexit
    code = "import lakeshore; print(lakeshore.__version__, len(lakeshore.__all__))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == lakeshore.__version__
