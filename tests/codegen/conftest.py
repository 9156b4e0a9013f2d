"""Toolchain fixtures for the generated bindings' tests, shared by the per-language tests and
the cross-language vector matrix (session-scoped: npm ci and the Go build happen once)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
PACKAGE = ROOT / "generated" / "ts"
MODULE = ROOT / "generated" / "go"
TIMEOUT = 600


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"`{name}` is not on PATH: the TypeScript bindings need Node.js 20+ and npm")
    return path


def _run(args: Sequence[str], stdin: str | None = None) -> str:
    result = subprocess.run(
        list(args),
        cwd=PACKAGE,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        timeout=TIMEOUT,
    )
    assert result.returncode == 0, (
        f"`{' '.join(args)}` exited {result.returncode}\n{result.stdout}\n{result.stderr}"
    )
    return result.stdout


@pytest.fixture(scope="session")
def npm() -> str:
    """npm, with the package's pinned dev dependencies installed."""
    _tool("node")
    npm = _tool("npm")
    if not (PACKAGE / "node_modules").is_dir():
        _run([npm, "ci", "--no-audit", "--no-fund"])
    return npm


@pytest.fixture(scope="session")
def ts_vectors(npm: str) -> list[str]:
    """The command that runs the built vectors runner."""
    _run([npm, "run", "build"])
    return [_tool("node"), "dist/vectors.js"]


@pytest.fixture(scope="session")
def go_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """An environment for the go tool: offline, no cgo, caches in a scratch folder."""
    if shutil.which("go") is None:
        pytest.fail("the Go bindings' tests need Go 1.19+ and `go` is not on PATH")
    scratch = tmp_path_factory.mktemp("go")
    return {
        **os.environ,
        "GOFLAGS": "-mod=mod",
        "GOPROXY": "off",
        "GO111MODULE": "on",
        "GOWORK": "off",
        "CGO_ENABLED": "0",
        "GOCACHE": str(scratch / "cache"),
        "GOPATH": str(scratch / "path"),
    }


def go(env: dict[str, str], *args: str, cwd: Path = MODULE) -> str:
    """Run ``go args...`` in ``cwd``; fail the test with its output unless it succeeds."""
    result = subprocess.run(
        ["go", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        pytest.fail(f"go {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout
