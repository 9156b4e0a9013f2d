"""The npm package's ``dist/``: what npm users install, compiled by ``tsc`` from the ``src/``
codegen writes. ``stale`` reads the digest ``dist/sources.js`` records (no Node needed), and
``build`` compiles it with the package's own pinned compiler (``npm ci``, then ``npm run build``).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

from mnemowire.codegen._output import GeneratedFile
from mnemowire.codegen.emit.typescript import SOURCES_MODULE, compiled_from
from mnemowire.codegen.load import CodegenError

__all__ = ["HOW", "build", "stale"]

#: what a person runs by hand when codegen cannot build
HOW = "run `npm ci && npm run build` in generated/ts (Node.js 20+), or `nox -s codegen`"
#: npm ci downloads the compiler once; a build takes seconds
_TIMEOUT = 600


def stale(files: Sequence[GeneratedFile], out: Path) -> str | None:
    """Why ``out/ts/dist`` was not compiled from the sources in ``files``; None when it was,
    or when ``files`` hold no TypeScript."""
    module = next((f for f in files if f.path == SOURCES_MODULE), None)
    if module is None:
        return None
    want = compiled_from(module.content)
    record = out / "ts" / "dist" / "sources.js"
    have = compiled_from(record.read_text(encoding="utf-8")) if record.is_file() else None
    if have == want:
        return None
    return (
        f"generated/ts/dist/ was not compiled from these sources (dist/sources.js records "
        f"{have or 'none'}, the sources {want})"
    )


def build(package: Path, say: Callable[[str], None]) -> None:
    """Compile ``package/dist`` from its ``src/`` with the compiler its lockfile pins (installed
    by ``npm ci`` when ``node_modules`` lacks it); CodegenError saying what to run otherwise."""
    npm = shutil.which("npm")
    if npm is None:
        raise CodegenError(f"npm is not on PATH, so dist/ cannot be compiled here: {HOW}")
    if not (package / "node_modules" / ".bin" / "tsc").exists():
        say("installing the compiler generated/ts/package-lock.json pins (npm ci)")
        _npm(npm, package, "ci", "--no-audit", "--no-fund")
    _npm(npm, package, "run", "build")


def _npm(npm: str, package: Path, *args: str) -> None:
    result = subprocess.run(
        [npm, *args], cwd=package, capture_output=True, text=True, check=False, timeout=_TIMEOUT
    )
    if result.returncode != 0:
        raise CodegenError(
            f"`npm {' '.join(args)}` in {package} exited {result.returncode}:\n"
            f"{result.stdout}{result.stderr}\n{HOW}"
        )
