"""Where and when a benchmark ran: every published number carries this header."""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mnemowire._version import __version__
from mnemowire.apps.bench._timing import load_average

if TYPE_CHECKING:
    from mnemowire.embedders import Embedder

__all__ = ["VERSIONED", "environment", "rss_mb", "versions"]

#: distributions whose versions can move a benchmark's numbers
VERSIONED = (
    "numpy",
    "sqlite-vec",
    "sqlean.py",
    "jsonschema-rs",
    "pydantic",
    "onnxruntime",
    "tokenizers",
    "torch",
    "sentence-transformers",
    "transformers",
    "matplotlib",
)


def environment(
    command: str, *, embedder: Embedder | None = None, stores: Sequence[str] = ()
) -> dict[str, Any]:
    """Machine, date, software, load and the command line of a benchmark run; the embedder and
    the stores measured when given. ``load_average.end`` is added when the run finishes."""
    env: dict[str, Any] = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "command": command,
        "mnemowire": __version__,
        "commit": _commit(),
        "commit_dirty": _dirty(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu": _cpu_model(),
        "cpus": os.cpu_count(),
        "load_average": {"start": load_average()},
        "versions": versions(),
    }
    if embedder is not None:
        env["embedder"] = {
            "name": embedder.name,
            "dimension": embedder.dimension,
            "backend": type(embedder).__name__,
        }
    if stores:
        env["stores"] = list(stores)
    return env


def versions() -> dict[str, str | None]:
    """Installed versions of the libraries in ``VERSIONED`` (None: not installed)."""
    found: dict[str, str | None] = {}
    for name in VERSIONED:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip()


def _commit() -> str | None:
    return _git("rev-parse", "--short", "HEAD") or None


def _dirty() -> bool | None:
    """Whether the working tree had uncommitted changes (None outside a git checkout): numbers
    from a dirty tree cannot be reproduced from the commit alone."""
    status = _git("status", "--porcelain", "--untracked-files=no")
    return None if status is None else bool(status)


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def rss_mb() -> float:
    """Resident memory of this process, from /proc (0 where there is none): what a streaming
    benchmark samples page by page to show its memory stays flat."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0.0
    return round(pages * 4096 / 2**20, 1)
