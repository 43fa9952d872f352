"""
Lakeshore's native core (C++). Use the `lakeshore` package, not this module.
"""

from typing import Any
from collections.abc import Mapping, Sequence

from typing_extensions import CapsuleType

class LakeshoreError(Exception): ...
class AlreadyExistsError(LakeshoreError, FileExistsError): ...
class CommitConflictError(LakeshoreError): ...
class CorruptMetadataError(LakeshoreError): ...
class StorageError(LakeshoreError, OSError): ...
class CrashInjectedError(StorageError): ...
class InvalidArgumentError(LakeshoreError, ValueError): ...
class LockTimeoutError(LakeshoreError, TimeoutError): ...
class PathOutsideTableError(InvalidArgumentError): ...
class RetentionViolationError(InvalidArgumentError): ...
class SchemaMismatchError(InvalidArgumentError): ...
class TransientStorageError(StorageError): ...
class UnsupportedFeatureError(LakeshoreError, NotImplementedError): ...


def error_kinds() -> dict[str, Any]:
    """
    Maps every ErrorKind name ("commit_conflict", ...) to its exception class.
    """

def raise_error(name: str, message: str) -> None:
    """
    Raises the exception the core raises for an error of kind `name` (an ErrorKind name) or of arrow status code `name` ("Invalid", "IOError", ...), with `message`. For tests and tools that check the error mapping.
    """

def finalize_s3() -> None:
    """
    Shuts Arrow's S3 client down if this process initialized it. Registered with atexit by the lakeshore package: the AWS SDK must be finalized before the process exits.
    """

def arrow_version() -> str:
    """
    The version of the Arrow C++ library the core runs against (must be pyarrow's).
    """

def stream_roundtrip(stream: object) -> CapsuleType:
    """
    Imports an Arrow C stream capsule into the core, collects it into a C++ table and exports it back as a new stream capsule. Zero-copy: the returned batches share the input's buffers. Used to check the data path between Python and the core.
    """

def schema_roundtrip(schema: object) -> CapsuleType:
    """Imports an Arrow C schema capsule into the core and exports it back."""

def blob_field() -> CapsuleType:
    """
    An `arrow_schema` capsule of a field named 'blob' whose type is the RFC-100 blob struct.
    """

def is_blob_type(type: object) -> bool:
    """
    True when the type in the `arrow_schema` capsule is exactly the blob struct (field names, order and types).
    """

class Table:
    """
    The C++ table. Use lakeshore.Table, which wraps this with argument handling.
    """

    @staticmethod
    def create(uri: str, schema: object, record_key: Sequence[str], partition_by: Sequence[str], ordering_field: str, table_type: str, name: str, properties: Mapping[str, str], storage_options: Mapping[str, str]) -> Table:
        """
        Creates a table at `uri` (schema: an `arrow_schema` capsule); refused if one is already there.
        """

    @staticmethod
    def open(uri: str, storage_options: Mapping[str, str], properties: Mapping[str, str]) -> Table:
        """
        Opens the Hudi table at `uri` with writer options `properties` over its stored ones; CorruptMetadataError if its hoodie.properties is bad.
        """

    @property
    def uri(self) -> str:
        """The table root as a URI."""

    def config(self) -> dict[str, Any]:
        """
        The table's config as a dict (name, record_key, partition_by, ordering_field, table_type, blob_columns, properties, format_version).
        """

    def schema(self) -> CapsuleType:
        """The user schema (no meta columns) as an `arrow_schema` capsule."""

    def full_schema(self) -> CapsuleType:
        """The schema with the meta columns first, as an `arrow_schema` capsule."""

    def write(self, operation: str, data: object, progress: object | None) -> dict[str, Any]:
        """
        Writes the `arrow_array_stream` capsule `data` with `operation` (insert, upsert, delete, bulk_insert) as one instant; returns the WriteResult as a dict. Releases the GIL.
        """

    def read(self, columns: Sequence[str], filter: Sequence[tuple[str, str, object]], as_of: str | None, read_optimized: bool = False) -> CapsuleType:
        """
        Snapshot read; returns an `arrow_array_stream` capsule. Releases the GIL.
        """

    def metadata_partitions(self) -> dict[str, Any]:
        """The metadata table's partitions built and being built, as a dict."""

    def create_index(self, name: str, column: str = '') -> None:
        """
        Builds the metadata table's partition `name` (files, record_index, bloom_filters, column_stats, or secondary_index_<name> on `column`). Releases the GIL.
        """

    def drop_index(self, name: str) -> None:
        """Drops the metadata table's partition `name`. Releases the GIL."""

    def lookup(self, keys: object) -> CapsuleType:
        """
        Where the records with these keys live: an `arrow_array_stream` capsule of (record_key, partition, file_id). Releases the GIL.
        """

    def lookup_secondary(self, index: str, values: object) -> CapsuleType:
        """
        The records whose indexed column holds one of the values (the stream's first column), from a secondary index: an `arrow_array_stream` capsule of (secondary_key, record_key). Releases the GIL.
        """

    def read_incremental(self, start: str, end: str | None, columns: Sequence[str], filter: Sequence[tuple[str, str, object]]) -> CapsuleType:
        """
        Records written by completed instants in (start, end]; an `arrow_array_stream` capsule. Releases the GIL.
        """

    def timeline(self) -> list[dict[str, Any]]:
        """
        Every instant of the active timeline, oldest first, as dicts (time, action, state, completion_time).
        """

    def files(self, as_of: str | None) -> list[str]:
        """
        The data files of the latest slices as of `as_of`, as other tools open them.
        """

    def create_savepoint(self, instant: str, user: str, comment: str) -> dict[str, Any]:
        """Savepoints a completed write instant."""

    def delete_savepoint(self, instant: str) -> None:
        """Removes the savepoint of an instant."""

    def savepoints(self) -> list[dict[str, Any]]:
        """The table's savepoints, oldest first, as dicts."""

    def archive(self, keep_min_commits: int | None, keep_max_commits: int | None) -> dict[str, Any]:
        """
        Moves old completed instants into the archived timeline; returns a dict (archived_instants, metadata_archived_instants, data_files_written, manifest_version, duration_ms).
        """

    def compact(self, min_delta_commits: int, min_log_bytes: int, schedule_only: bool, progress: object | None) -> dict[str, Any]:
        """
        Compacts a merge-on-read table (finishing a pending compaction first); returns a dict (instant_time, scheduled, completed, reason, file_groups, log_files, records_written, bytes_written, rolled_back_instants, duration_ms).
        """

    def cluster(self, sort_columns: Sequence[str], small_file_limit_bytes: int, target_file_bytes: int, partitions: Sequence[str], schedule_only: bool, progress: object | None) -> dict[str, Any]:
        """
        Clusters the table (finishing a pending clustering first); returns a dict (instant_time, scheduled, completed, reason, file_groups_replaced, file_groups_written, records_written, bytes_written, rolled_back_instants, duration_ms).
        """

    def rollback(self, instant: str) -> str:
        """
        Rolls back the latest completed write; returns the rollback instant's time.
        """

    def evolve_schema(self, schema: object) -> None:
        """Changes the table's schema (add nullable columns, widen, reorder)."""

    def restore(self, savepoint: str) -> str:
        """Restores the table to a savepoint; returns the restore instant's time."""

    def rollback_failed_writes(self) -> list[str]:
        """
        Rolls back every failed write (pending, heartbeat expired); returns their instant times.
        """

def vacuum(uri: str, retain_hours: float | None, enforce_retention: bool, dry_run: bool, mode: str, optimistic: bool, inventory: str | None, format: str, force_full_after_hours: float | None, progress: object | None) -> dict[str, Any]:
    """
    Vacuums the table at `uri`; returns the report as a dict. See lakeshore.vacuum.
    """
