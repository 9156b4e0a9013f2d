"""SIGTERM ends a command as Ctrl-C does: ``mnemowire bench pgvector`` stops the local
PostgreSQL it started (before, the process ended at once and left the server running)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.xdist_group("postgres")


@pytest.fixture
def temporary() -> Iterator[Path]:
    """A temporary folder the server's own user can reach (pytest's are the owner's only)."""
    folder = Path(tempfile.mkdtemp(prefix="mnemowire-terminate-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_a_terminated_benchmark_stops_the_server_it_started(temporary: Path) -> None:
    tmp_path = temporary
    env = {**os.environ, "TMPDIR": str(tmp_path), "MNEMOWIRE_BENCH_CACHE": str(tmp_path / "c")}
    command = [sys.executable, "-c", "from mnemowire.apps.cli import main; main()"]
    command += ["bench", "pgvector", "--size", "30000", "--embedder", "hash:8"]
    with subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    ) as process:
        try:
            pid_file = None
            deadline = time.monotonic() + 120
            while pid_file is None and time.monotonic() < deadline and process.poll() is None:
                pid_file = next(
                    iter(tmp_path.glob("mnemowire-bench-pg-*/data/postmaster.pid")), None
                )
                time.sleep(0.2)
            assert pid_file is not None, process.stderr.read() if process.stderr else "no server"
            server = int(pid_file.read_text().splitlines()[0])
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=120) == 128 + signal.SIGTERM
        finally:
            if process.poll() is None:
                process.kill()
    deadline = time.monotonic() + 30
    while _alive(server) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(server), "the local PostgreSQL outlived the benchmark"
    assert not list(tmp_path.glob("mnemowire-bench-pg-*"))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "zombie" not in _state(pid)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text().lower()
    except OSError:
        return "zombie"
