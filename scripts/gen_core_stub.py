"""Writes python/lakeshore/_core.pyi, the typed face of the native module: nanobind's stubgen,
then two fixes mypy --strict needs. The exception classes the module creates at import (their
__module__ is "lakeshore") become class declarations instead of an import cycle with the package,
and bare `dict` / `list` results get their item types.

    python scripts/gen_core_stub.py [OUTPUT]      # default: python/lakeshore/_core.pyi
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import lakeshore._core as core

DEFAULT = Path(__file__).resolve().parents[1] / "python" / "lakeshore" / "_core.pyi"


def exception_declarations() -> str:
    classes = {
        name: obj
        for name, obj in vars(core).items()
        if isinstance(obj, type) and issubclass(obj, BaseException) and obj.__module__ == "lakeshore"
    }
    lines = []
    done: set[str] = set()

    def declare(name: str) -> None:
        if name in done:
            return
        cls = classes[name]
        bases = []
        for base in cls.__bases__:
            if base.__name__ in classes:
                declare(base.__name__)
                bases.append(base.__name__)
            else:
                bases.append(base.__name__)
        done.add(name)
        lines.append(f"class {name}({', '.join(bases)}): ...")

    for name in sorted(classes):
        declare(name)
    return "\n".join(lines) + "\n"


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "_core.pyi"
        subprocess.run(
            [sys.executable, "-m", "nanobind.stubgen", "-m", "lakeshore._core", "-o", str(raw)],
            check=True,
            capture_output=True,
        )
        text = raw.read_text()
    text = re.sub(r"from lakeshore import \((.*?)\)\n", lambda _: exception_declarations(), text, flags=re.S)
    text = re.sub(r"-> dict:", "-> dict[str, Any]:", text)
    text = re.sub(r"-> list:", "-> list[dict[str, Any]]:", text)
    text = text.replace("from collections.abc import", "from typing import Any\nfrom collections.abc import", 1)
    out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
