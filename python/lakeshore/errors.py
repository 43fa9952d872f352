"""The exceptions Lakeshore raises.

Every error of the C++ core arrives as a :class:`LakeshoreError` carrying the core's message;
errors of a known kind arrive as the subclass for that kind, so callers can branch on them::

    try:
        table.upsert(batch)
    except lakeshore.CommitConflictError:
        ...  # another writer committed to the same file groups first; retry

Each exception has ``kind`` (the core's error kind name, such as ``"commit_conflict"``, or
``None``) and ``code`` (the Arrow status code, such as ``"Invalid"``). The classes are created
by the native module next to the C++ error kinds they mirror; this module names them.
"""

from __future__ import annotations

from lakeshore._core import (
    AlreadyExistsError,
    CommitConflictError,
    CorruptMetadataError,
    CrashInjectedError,
    InvalidArgumentError,
    LakeshoreError,
    LockTimeoutError,
    PathOutsideTableError,
    RetentionViolationError,
    SchemaMismatchError,
    StorageError,
    TransientStorageError,
    UnsupportedFeatureError,
)
from lakeshore._core import error_kinds as _error_kinds

__all__ = [
    "AlreadyExistsError",
    "CommitConflictError",
    "CorruptMetadataError",
    "CrashInjectedError",
    "TransientStorageError",
    "InvalidArgumentError",
    "LakeshoreError",
    "LockTimeoutError",
    "PathOutsideTableError",
    "RetentionViolationError",
    "SchemaMismatchError",
    "StorageError",
    "UnsupportedFeatureError",
    "error_class_for_kind",
]


def invalid_argument(message: str) -> InvalidArgumentError:
    """An InvalidArgumentError raised by the Python front, shaped as the core's (``kind`` None,
    ``code`` "Invalid")."""
    error = InvalidArgumentError(message)
    vars(error).update(kind=None, code="Invalid")
    return error


def error_class_for_kind(kind: str) -> type[LakeshoreError]:
    """Returns the exception class of the core error kind ``kind`` (e.g. ``"commit_conflict"``).

    Raises KeyError for a name that is not a Lakeshore error kind.
    """
    classes: dict[str, type[LakeshoreError]] = _error_kinds()
    return classes[kind]
