"""SIGTERM ends a command as Ctrl-C does: ``mnemowire bench pgvector`` stops the local
PostgreSQL it started and deletes its folder, whenever the signal comes (before, the process
ended at once and left the server running; later, a signal while initdb ran left initdb writing
into the folder being deleted)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
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


def _initialising(tmp_path: Path) -> bool:
    """initdb has begun writing the cluster (the moment a kill most often left files behind)."""
    return any(tmp_path.glob("mnemowire-bench-pg-*/data/global"))


def _serving(tmp_path: Path) -> bool:
    """The postmaster has written its pid (initdb's bootstrap backend writes a negative one)."""
    for pid_file in tmp_path.glob("mnemowire-bench-pg-*/data/postmaster.pid"):
        with contextlib.suppress(OSError):
            return pid_file.read_text().split("\n", 1)[0].strip().isdigit()
    return False


@pytest.mark.parametrize(
    ("moment", "rounds"), [(_initialising, 3), (_serving, 1)], ids=["initdb", "server"]
)
def test_a_terminated_benchmark_stops_the_server_it_started(
    temporary: Path, moment: Callable[[Path], bool], rounds: int
) -> None:
    for round_ in range(rounds):
        tmp_path = temporary / str(round_)
        tmp_path.mkdir(mode=0o755)
        _terminate_when(moment, tmp_path)
        deadline = time.monotonic() + 30
        while _processes_under(tmp_path) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _processes_under(tmp_path), "a process of the local PostgreSQL outlived it"
        assert not list(tmp_path.glob("mnemowire-bench-pg-*"))


def _terminate_when(moment: Callable[[Path], bool], tmp_path: Path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path), "MNEMOWIRE_BENCH_CACHE": str(tmp_path / "c")}
    command = [sys.executable, "-c", "from mnemowire.apps.cli import main; main()"]
    command += ["bench", "pgvector", "--size", "30000", "--embedder", "hash:8"]
    with subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    ) as process:
        try:
            reached = False
            deadline = time.monotonic() + 120
            while not reached and time.monotonic() < deadline and process.poll() is None:
                reached = moment(tmp_path)
                time.sleep(0.01)
            assert reached, process.stderr.read() if process.stderr else "no server"
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=120) == 128 + signal.SIGTERM
        finally:
            if process.poll() is None:
                process.kill()


def _processes_under(folder: Path) -> list[int]:
    """Live processes whose command line names ``folder`` (initdb, pg_ctl, the postmaster)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (entry / "status").read_text().lower()
        except OSError:
            continue
        if str(folder) in line and "zombie" not in state:
            found.append(int(entry.name))
    return found
