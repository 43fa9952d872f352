"""Table paths as the native core takes them."""

from __future__ import annotations

import os
import urllib.parse

from lakeshore import _core


def table_path(path: str | os.PathLike[str]) -> str:
    """``path`` (a ``str``, a ``pathlib.Path`` or any ``os.PathLike``, or a URI) as the UTF-8
    text the core takes. A local name that is not UTF-8 (Python spells its bytes with surrogate
    escapes) raises InvalidArgumentError naming it: the core and Hudi's metadata hold paths as
    UTF-8 text. A ``file:`` URI (``file:///x``, ``file://localhost/x`` or ``file:/x``) is
    percent-decoded, as RFC 8089 (and ``Path.as_uri()``, which writes a space as ``%20``) has it."""
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if text.startswith("file:") and "%" in text:
        text = "file:" + urllib.parse.unquote(text[len("file:") :], errors="strict")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        _core.raise_error("Invalid", f"table path {text!r} is not valid UTF-8 ({e.reason} at position {e.start})")
    return text
