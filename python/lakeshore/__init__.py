"""Lakeshore: a lakehouse table engine with a native C++ core.

Tables of records, with upserts by record key, time travel, incremental reads and blob columns
that reference external files; stored as Parquet on a local folder or S3. See README.md.
"""

from __future__ import annotations

import atexit

# pyarrow first: it loads libarrow and libparquet, which the native core links against.
import pyarrow  # noqa: F401

from lakeshore import _core
from lakeshore.blob import blob_type, inline_blob, is_blob_type, out_of_line_blob
from lakeshore.errors import (
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
from lakeshore.table import Table
from lakeshore.vacuum import vacuum

__version__ = "0.1.0"

# The AWS SDK behind Arrow's S3 file system must be shut down before the process exits.
atexit.register(_core.finalize_s3)

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
    "Table",
    "UnsupportedFeatureError",
    "__version__",
    "blob_type",
    "inline_blob",
    "is_blob_type",
    "out_of_line_blob",
    "vacuum",
]
