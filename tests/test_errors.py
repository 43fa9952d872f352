"""The core's errors arrive as Python exceptions of the right class with the C++ message."""

from __future__ import annotations

import pickle

import pytest

import lakeshore
from lakeshore import _core
from lakeshore.errors import error_class_for_kind

# ErrorKind name -> (class name, a builtin the class must also be, if any)
EXPECTED = {
    "commit_conflict": ("CommitConflictError", None),
    "corrupt_metadata": ("CorruptMetadataError", None),
    "retention_violation": ("RetentionViolationError", ValueError),
    "unsupported_feature": ("UnsupportedFeatureError", NotImplementedError),
    "path_outside_table": ("PathOutsideTableError", ValueError),
    "schema_mismatch": ("SchemaMismatchError", ValueError),
    "lock_timeout": ("LockTimeoutError", TimeoutError),
    "crash_injected": ("CrashInjectedError", OSError),
    "transient_storage": ("TransientStorageError", OSError),
}


def test_one_class_per_error_kind() -> None:
    assert set(_core.error_kinds()) == set(EXPECTED)
    for kind, (name, _) in EXPECTED.items():
        cls = getattr(lakeshore, name)
        assert error_class_for_kind(kind) is cls
        assert issubclass(cls, lakeshore.LakeshoreError)
        assert cls.__module__ == "lakeshore"
        assert cls.__doc__


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_kind_raises_its_class_with_the_message(kind: str) -> None:
    name, builtin = EXPECTED[kind]
    message = f"the {kind} message: ünïcode and a path /t/x.parquet"
    with pytest.raises(getattr(lakeshore, name)) as info:
        _core.raise_error(kind, message)
    assert str(info.value) == message
    assert info.value.kind == kind
    if builtin is not None:
        assert isinstance(info.value, builtin)


@pytest.mark.parametrize(
    ("code", "cls", "builtin"),
    [
        ("Invalid", lakeshore.InvalidArgumentError, ValueError),
        ("TypeError", lakeshore.InvalidArgumentError, ValueError),
        ("KeyError", lakeshore.InvalidArgumentError, ValueError),
        ("IOError", lakeshore.StorageError, OSError),
        ("AlreadyExists", lakeshore.AlreadyExistsError, FileExistsError),
        ("NotImplemented", lakeshore.LakeshoreError, None),
        ("UnknownError", lakeshore.LakeshoreError, None),
    ],
)
def test_plain_status_codes_map_to_general_classes(code: str, cls: type, builtin: type | None) -> None:
    with pytest.raises(cls) as info:
        _core.raise_error(code, "plain failure")
    assert type(info.value) is cls
    assert info.value.kind is None
    assert info.value.code == code
    assert str(info.value) == "plain failure"
    if builtin is not None:
        assert isinstance(info.value, builtin)


def test_kind_classes_are_not_confused() -> None:
    with pytest.raises(lakeshore.CommitConflictError):
        _core.raise_error("commit_conflict", "x")
    try:
        _core.raise_error("corrupt_metadata", "x")
    except lakeshore.CommitConflictError:  # pragma: no cover - the failure being tested for
        pytest.fail("corrupt metadata raised as a commit conflict")
    except lakeshore.CorruptMetadataError:
        pass


def test_unknown_name_is_itself_a_clear_error() -> None:
    with pytest.raises(lakeshore.InvalidArgumentError, match="unknown error kind"):
        _core.raise_error("no_such_kind", "x")


def test_errors_pickle_across_processes() -> None:
    with pytest.raises(lakeshore.CommitConflictError) as info:
        _core.raise_error("commit_conflict", "lost the race")
    again = pickle.loads(pickle.dumps(info.value))
    assert type(again) is lakeshore.CommitConflictError
    assert str(again) == "lost the race"
