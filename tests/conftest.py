"""Shared fixtures: an S3 server (moto) on 127.0.0.1 for the s3:// paths, and table folders."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest


@dataclass(frozen=True)
class S3Server:
    """A moto S3 server on loopback and how to reach it."""

    endpoint: str  # host:port
    access_key: str
    secret_key: str
    region: str

    def uri(self, bucket: str, prefix: str) -> str:
        """The Lakeshore URI of `prefix` in `bucket` on this server (plain HTTP)."""
        return f"s3://{bucket}/{prefix}?endpoint_override={self.endpoint}&scheme=http"

    def filesystem(self) -> Any:
        """A pyarrow S3FileSystem on this server, to put or inspect objects directly."""
        from pyarrow import fs as pafs

        return pafs.S3FileSystem(
            access_key=self.access_key,
            secret_key=self.secret_key,
            region=self.region,
            endpoint_override=self.endpoint,
            scheme="http",
        )

    def make_bucket(self) -> str:
        """Creates a fresh bucket and returns its name."""
        name = f"lakeshore-{uuid.uuid4().hex[:12]}"
        req = urllib.request.Request(f"http://{self.endpoint}/{name}", method="PUT")
        with urllib.request.urlopen(req, timeout=10) as resp:
            if resp.status != 200:
                raise RuntimeError(f"moto refused to create bucket {name}: {resp.status}")
        return name


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_until_up(endpoint: str, proc: subprocess.Popen[bytes], log: Path, timeout_s: float) -> str | None:
    """Polls the server; returns None when it answers, else why it did not."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            err = log.read_text(errors="replace")
            return f"moto.server exited with {proc.returncode}: {err.strip()[-500:]}"
        try:
            with urllib.request.urlopen(f"http://{endpoint}/", timeout=1):
                return None
        except urllib.error.HTTPError:
            return None  # any HTTP answer means it is serving
        except OSError:
            time.sleep(0.1)
    return f"moto.server did not answer on {endpoint} within {timeout_s:.0f}s"


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    """Starts `python -m moto.server` on 127.0.0.1 for the session; skips (visibly) if it cannot.

    Its request log goes to a file: a pipe nobody drains fills up after ~64 KiB of log lines,
    and the server then blocks on its next write (every later S3 request times out)."""
    port = _free_port()
    endpoint = f"127.0.0.1:{port}"
    log = tmp_path_factory.mktemp("moto") / "moto.log"
    try:
        with log.open("wb") as sink:
            proc = subprocess.Popen(
                [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                stdout=subprocess.DEVNULL,
                stderr=sink,
            )
    except OSError as e:
        pytest.skip(f"S3 tests skipped: cannot start moto.server ({e})")
    problem = _wait_until_up(endpoint, proc, log, timeout_s=30)
    if problem is not None:
        proc.kill()
        proc.wait()
        pytest.skip(f"S3 tests skipped: {problem}")
    server = S3Server(endpoint=endpoint, access_key="testing", secret_key="testing", region="us-east-1")
    saved = {k: os.environ.get(k) for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION")}
    os.environ.update(
        AWS_ACCESS_KEY_ID=server.access_key, AWS_SECRET_ACCESS_KEY=server.secret_key, AWS_REGION=server.region
    )
    try:
        yield server
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture()
def s3_uri(s3_server: S3Server) -> str:
    """A fresh s3:// table location (new bucket) on the moto server."""
    return s3_server.uri(s3_server.make_bucket(), "tables/t")


@pytest.fixture()
def table_path(tmp_path: Path) -> str:
    """A fresh local table location (the folder does not exist yet)."""
    return str(tmp_path / "table")
