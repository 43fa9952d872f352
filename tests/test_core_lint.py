"""The core's "no crash" rules, checked over the C++ sources (the clippy::unwrap_used of this
project): no ValueOrDie (it aborts the process on an error), no std::sto* / strto* / ato*
number parsing (they throw or overflow silently; use common/parse_number.h, built on
std::from_chars), no OpenSSL (see src/common/digest.h)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [
    p
    for folder in ("src", "include", "python/bindings")
    for p in sorted((ROOT / folder).rglob("*"))
    if p.suffix in (".cc", ".h") and "/testing/" not in p.as_posix() and not p.name.endswith("_test.cc")
]

BANNED = {
    r"\bValueOrDie\s*\(": "ValueOrDie aborts the process on an error; return the Status instead",
    r"\bstd::sto(i|l|ll|ul|ull|f|d|ld)\s*\(": "std::sto* throws; use ParseInt64/ParseFiniteDouble",
    r"\b(strto(l|ll|ul|ull|d|f|ld)|atoi|atol|atoll|atof)\s*\(": "unchecked C parsing; use common/parse_number.h",
    r"#include\s*<openssl/": "OpenSSL must not be linked into the core (clashes with pyarrow's copy)",
}


def _code_lines(path: Path) -> list[tuple[int, str]]:
    """Lines with // comments removed (the rules talk about code, not prose)."""
    out = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        out.append((n, line.split("//", 1)[0]))
    return out


def test_sources_are_found() -> None:
    assert len(SOURCES) > 50


def test_no_banned_calls_in_the_core() -> None:
    problems = []
    for path in SOURCES:
        for n, code in _code_lines(path):
            for pattern, why in BANNED.items():
                if re.search(pattern, code):
                    problems.append(f"{path.relative_to(ROOT)}:{n}: {code.strip()}  -- {why}")
    assert not problems, "\n".join(problems)


def test_the_rule_catches_a_violation(tmp_path: Path) -> None:
    bad = tmp_path / "bad.cc"
    bad.write_text("int f() { return std::stoll(s) + arrow::Result<int>().ValueOrDie(); }\n")
    hits = [p for _, code in _code_lines(bad) for p in BANNED if re.search(p, code)]
    assert len(hits) == 2
