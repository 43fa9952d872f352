"""`import lakeshore` beside every library a user's script may load, in every order.

Linking the system OpenSSL into the core once made `import lakeshore; import hashlib` segfault
(the system libcrypto bound to the OpenSSL copy inside pyarrow's libparquet). Each case runs
in its own interpreter, uses both libraries for real, and must exit cleanly.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from conftest import S3Server

# What each peer does once imported: enough to touch its crypto and native code.
PEERS = {
    "hashlib": "import hashlib; assert hashlib.md5(b'x').hexdigest().startswith('9dd4');"
    " hashlib.sha256(b'x').hexdigest(); hashlib.algorithms_available",
    "ssl": "import ssl; ssl.create_default_context()",
    "deltalake": "import deltalake, pyarrow as pa, tempfile;"
    " deltalake.write_deltalake(tempfile.mkdtemp() + '/d', pa.table({'a': [1]}))",
    "duckdb": "import duckdb; assert duckdb.sql('select 42').fetchall() == [(42,)]",
    "polars": "import polars as pl; assert pl.DataFrame({'a': [1, 2]})['a'].sum() == 3",
    "hudi": "import hudi; hudi.HudiTableBuilder",
}

# Lakeshore used for real: a write and a read of an in-memory table.
LAKESHORE = textwrap.dedent(
    """
    import lakeshore, pyarrow as pa
    _s = pa.schema([pa.field('id', pa.int64(), nullable=False), pa.field('v', pa.string())])
    _t = lakeshore.Table.create('mem://import-order', _s, record_key='id')
    _t.upsert(pa.table({'id': [1], 'v': ['x']}, schema=_s))
    assert _t.to_arrow().num_rows == 1
    """
)


def _run(code: str) -> None:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"exit {proc.returncode} running:\n{code}\nstderr:\n{proc.stderr[-2000:]}"


@pytest.mark.parametrize("peer", sorted(PEERS))
@pytest.mark.parametrize("lakeshore_first", [True, False], ids=["lakeshore-first", "peer-first"])
def test_import_order(peer: str, lakeshore_first: bool) -> None:
    parts = [LAKESHORE, PEERS[peer]] if lakeshore_first else [PEERS[peer], LAKESHORE]
    _run("\n".join(parts))


def test_lakeshore_deltalake_then_duckdb() -> None:
    """The reported chain: lakeshore and deltalake first, then DuckDB."""
    _run("\n".join([LAKESHORE, "import deltalake", PEERS["duckdb"], PEERS["hashlib"], PEERS["ssl"]]))


def test_all_peers_after_lakeshore() -> None:
    _run("\n".join([LAKESHORE, *PEERS.values()]))


def test_s3_requests_then_hashlib_and_ssl(s3_server: S3Server) -> None:
    """libcurl (and with it the system OpenSSL) loads on the first S3 request; the peers that
    load OpenSSL afterwards must still work, and so must S3 after them."""
    bucket = s3_server.make_bucket()
    uri = s3_server.uri(bucket, "t")
    code = textwrap.dedent(
        f"""
        import os
        os.environ.update(AWS_ACCESS_KEY_ID={s3_server.access_key!r},
                          AWS_SECRET_ACCESS_KEY={s3_server.secret_key!r}, AWS_REGION={s3_server.region!r})
        import lakeshore, pyarrow as pa
        s = pa.schema([pa.field('id', pa.int64(), nullable=False)])
        t = lakeshore.Table.create({uri!r}, s, record_key='id')
        t.upsert(pa.table({{'id': [1]}}, schema=s))
        {PEERS["hashlib"]}
        {PEERS["ssl"]}
        t.upsert(pa.table({{'id': [2]}}, schema=s))
        assert t.to_arrow().num_rows == 2
        """
    )
    _run(code)
