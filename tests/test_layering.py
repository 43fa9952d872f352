"""The core's layers (docs/architecture.md) depend only downward: every #include of a core file
names a file of its own layer or of a layer below. CMake builds one library per layer
(CMakeLists.txt, LAKESHORE_LAYERS), linked in the same order; this test fails the build's test run
on any upward include, which the libraries alone would let compile."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Lowest first. A file belongs to the first layer whose prefix its path starts with.
LAYERS: list[tuple[str, list[str]]] = [
    (
        "common",
        ["src/common/", "include/lakeshore/status.h", "include/lakeshore/clock.h", "include/lakeshore/config.h"],
    ),
    ("storage", ["src/storage/", "include/lakeshore/storage/"]),
    ("engine", ["src/engine/", "include/lakeshore/engine/"]),
    ("format", ["src/format/"]),
    (
        "table",
        [
            "src/timeline/",
            "src/table/",
            "include/lakeshore/table/table_config.h",
            "include/lakeshore/table/table_options.h",
            "include/lakeshore/table/blob.h",
            "include/lakeshore/table/tagging_metrics.h",
        ],
    ),
    ("io", ["src/io/"]),
    ("index", ["src/index/"]),
    (
        "services",
        [
            "src/actions/",
            "src/write/",
            "src/read/",
            "src/delta/",
            "src/services/",
            "include/lakeshore/table/table.h",
            "include/lakeshore/vacuum.h",
            "include/lakeshore/delta/",
        ],
    ),
    ("api", ["src/api/"]),
]
RANK = {name: i for i, (name, _) in enumerate(LAYERS)}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(relative: str) -> str | None:
    for name, prefixes in LAYERS:
        if any(relative.startswith(p) for p in prefixes):
            return name
    return None


def resolve(include: str) -> str:
    """The repository path of an include ("lakeshore/x.h" is public, the rest under src/)."""
    return f"include/{include}" if include.startswith("lakeshore/") else f"src/{include}"


def core_files() -> list[Path]:
    files = [*ROOT.glob("src/**/*.h"), *ROOT.glob("src/**/*.cc"), *ROOT.glob("include/lakeshore/**/*.h")]
    return [f for f in files if not f.name.endswith("_test.cc") and "/testing/" not in f.as_posix()]


def test_every_core_file_has_a_layer() -> None:
    missing = [str(f.relative_to(ROOT)) for f in core_files() if layer_of(f.relative_to(ROOT).as_posix()) is None]
    assert not missing, f"files outside every layer (add them to LAYERS and CMakeLists.txt): {missing}"


def test_no_upward_includes() -> None:
    upward = []
    for f in core_files():
        relative = f.relative_to(ROOT).as_posix()
        own = layer_of(relative)
        assert own is not None
        for include in INCLUDE.findall(f.read_text()):
            target = layer_of(resolve(include))
            if target is not None and RANK[target] > RANK[own]:
                upward.append(f"{relative} ({own}) includes {include} ({target})")
    assert not upward, "upward includes:\n" + "\n".join(upward)


def test_the_checker_finds_an_upward_include(tmp_path: Path) -> None:
    # The rule itself: a format file including a table header is upward.
    assert RANK[layer_of("src/format/x.cc") or ""] < RANK[layer_of(resolve("table/layout.h")) or ""]
    assert layer_of(resolve("lakeshore/storage/storage.h")) == "storage"
