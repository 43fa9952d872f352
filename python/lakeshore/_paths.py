"""Table paths as the native core takes them."""

from __future__ import annotations

import os
import urllib.parse

from lakeshore import _core


def table_path(path: str | os.PathLike[str]) -> str:
    """``path`` (a ``str``, a ``pathlib.Path`` or any ``os.PathLike``, or a URI) as the UTF-8
    text the core takes. A local name that is not UTF-8 (Python spells its bytes with surrogate
    escapes) raises InvalidArgumentError naming it: the core and Hudi's metadata hold paths as
    UTF-8 text. A local ``file:`` URI (``file:///x``, ``file://localhost/x`` or ``file:/x``) is
    the path it names, percent-decoded as RFC 8089 (and ``Path.as_uri()``, which writes a space as
    ``%20``) has it: the plain path, so that a table's ``uri`` reopens that table (kept as a URI,
    the decoded text was decoded again: ``u%2541`` opened ``uA``)."""
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if text.startswith("file:"):
        text = _local_path_of_file_uri(text)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        _core.raise_error("Invalid", f"table path {text!r} is not valid UTF-8 ({e.reason} at position {e.start})")
    return text


def _local_path_of_file_uri(text: str) -> str:
    """The decoded local path a ``file:`` URI names; other text (a file URI of another host,
    one without an absolute path) as it is, for the core to refuse by name."""
    rest = text[len("file:") :]
    if rest.startswith("//"):
        host, slash, path = rest[2:].partition("/")
        if host not in ("", "localhost"):
            return text
        rest = slash + path
    if not rest.startswith("/"):
        return text
    return urllib.parse.unquote(rest, errors="strict") if "%" in rest else rest
