"""lakeshore.vacuum: delete the files of a Delta Lake (or Lakeshore) table that no version inside
the retention window needs. See docs/vacuum.md for the modes and the safety argument."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from lakeshore import _core
from lakeshore._paths import table_path

__all__ = ["vacuum"]

#: ``progress(phase, done, total, unit)``: phase "listing" (unit folders) or "deleting" (files).
VacuumProgressFn = Callable[[str, int, int, str], None]


def vacuum(
    path: str | os.PathLike[str],
    retain_hours: float | None = None,
    enforce_retention: bool = True,
    dry_run: bool = False,
    mode: str = "full",
    optimistic: bool = False,
    inventory: str | os.PathLike[str] | None = None,
    format: str = "auto",
    *,
    force_full_after_hours: float | None = None,
    progress: VacuumProgressFn | None = None,
) -> dict[str, Any]:
    """Vacuums the table at ``path`` (a folder, ``file://``, ``mem://`` or ``s3://`` URI).

    Args:
        retain_hours: retention; default the table's ``delta.deletedFileRetentionDuration``
            (Delta) or ``vacuum.retain_hours`` (Lakeshore), 7 days unless set. A shorter one
            raises RetentionViolationError unless ``enforce_retention`` is False.
        dry_run: only find the candidates (returned with their sizes); delete and write nothing.
        mode: "full" lists the table (or reads ``inventory``); "lite" reads only the log.
        optimistic: decide from the log alone whether anything can have become deletable since
            the last vacuum; if not, return at once with ``skipped=True`` and the reason.
        inventory: a Parquet or CSV file (path, length, isDir, modificationTime) used instead
            of listing the table.
        format: "auto" (detect), "delta" or "hudi".
        force_full_after_hours: with ``optimistic``, run anyway when the last full run is older.
        progress: optional callback, see :data:`VacuumProgressFn`.

    Returns:
        A dict with ``format, mode, dry_run, skipped, skip_reason, files_listed, files_deleted,
        bytes_deleted, dirs_deleted, files_refused`` (candidates left in place because they
        are symbolic links or lie behind one: a vacuum never deletes through a link),
        ``candidates`` (list of ``{"path", "size"}``), ``time_to_identify_ms, time_to_delete_ms``.

    Raises:
        CorruptMetadataError, UnsupportedFeatureError, RetentionViolationError and the other
        LakeshoreErrors; nothing is deleted when the log cannot be fully read and understood.
    """
    if mode not in ("full", "lite"):
        raise ValueError(f"mode must be 'full' or 'lite', got {mode!r}")
    if format not in ("auto", "delta", "hudi"):
        raise ValueError(f"format must be 'auto', 'delta' or 'hudi', got {format!r}")
    return dict(
        _core.vacuum(
            table_path(path),
            None if retain_hours is None else float(retain_hours),
            bool(enforce_retention),
            bool(dry_run),
            mode,
            bool(optimistic),
            None if inventory is None else os.fspath(inventory),
            format,
            None if force_full_after_hours is None else float(force_full_after_hours),
            progress,
        )
    )
