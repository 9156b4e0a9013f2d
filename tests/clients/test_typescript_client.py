"""The TypeScript package as a port author gets it: `npm pack` holds compiled JavaScript and
declarations (a real version, not private), it installs from the tarball and from the folder
into a project of its own, a strict TypeScript program type-checks against the installed
declarations, and that program runs every operation against a live `mnemowire serve`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mnemowire import spec
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.server import MemoryServer
from mnemowire.apps.transport import Tokens
from mnemowire.embedders import HashEmbedder
from tests.codegen.conftest import PACKAGE, _run, _tool
from tests.server._serving import serving

#: the npm package's version follows the spec it is generated from: v0.2 -> 0.2.0
PACKAGE_VERSION = spec.LATEST.removeprefix("v") + ".0"

E2E = Path(__file__).parent / "e2e" / "e2e.ts"
TOKEN = "ts-client-token-0123456789abcdef"
TSC = PACKAGE / "node_modules" / ".bin" / "tsc"
PROBE = "typeof m.HttpClient, m.SPEC_VERSION"


def run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, check=False, timeout=300,
        env={**os.environ, **(env or {})},
    )  # fmt: skip
    assert result.returncode == 0, (
        f"{args} exited {result.returncode}\n{result.stdout}\n{result.stderr}"
    )
    return result.stdout


@pytest.fixture(scope="module")
def tarball(npm: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`npm pack` of generated/ts (the committed dist/; its prepack checks it was compiled
    from src/)."""
    out = tmp_path_factory.mktemp("pack")
    _run([npm, "pack", "--pack-destination", str(out)])
    [packed] = out.glob("*.tgz")
    return packed


def _project(folder: Path, npm: str, source: str) -> Path:
    """A fresh npm project with the package installed from ``source`` (offline: no deps)."""
    folder.mkdir()
    (folder / "package.json").write_text(
        json.dumps({"name": "port", "version": "1.0.0", "type": "module"})
    )
    run([npm, "install", "--no-audit", "--no-fund", "--offline", source], folder)
    return folder


def test_the_tarball_holds_compiled_javascript_and_declarations(tarball: Path) -> None:
    with tarfile.open(tarball) as packed:
        names = set(packed.getnames())
        manifest = json.load(packed.extractfile("package/package.json"))  # type: ignore[arg-type]
    for module in ("index", "http", "client", "validators", "types"):
        assert f"package/dist/{module}.js" in names
        assert f"package/dist/{module}.d.ts" in names
    assert not any(
        name.startswith(("package/src/", "package/test/", "package/build/")) for name in names
    )
    assert manifest.get("private") is not True
    assert manifest["version"] == PACKAGE_VERSION
    assert tarball.name == f"mnemowire-memorywire-{PACKAGE_VERSION}.tgz"


def test_the_committed_dist_is_what_tsc_makes_of_src(npm: str, tmp_path: Path) -> None:
    _run([str(TSC), "-p", "tsconfig.json", "--outDir", str(tmp_path)])
    built = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    dist = PACKAGE / "dist"
    committed = {p.relative_to(dist): p.read_bytes() for p in dist.rglob("*") if p.is_file()}
    assert sorted(built) == sorted(committed), "run `npm run build` in generated/ts"
    stale = [str(name) for name in built if built[name] != committed[name]]
    assert not stale, f"generated/ts/dist is stale ({stale}): run `npm run build` in generated/ts"


@pytest.mark.parametrize("source", ["tarball", "folder"])
def test_it_installs_and_imports(npm: str, tarball: Path, tmp_path: Path, source: str) -> None:
    project = _project(tmp_path / "port", npm, str(tarball if source == "tarball" else PACKAGE))
    node = _tool("node")
    printed = run(
        [node, "-e", "import('@mnemowire/memorywire').then(m => console.log(" + PROBE + "))"],
        project,
    )
    assert printed.split() == ["function", spec.LATEST]


@pytest.fixture
def live(tmp_path: Path) -> Iterator[str]:
    store = SqliteVecStore(str(tmp_path / "memory.db"), embedder=HashEmbedder(64))
    tokens = Tokens([("ts", TOKEN, ["a"])])
    with serving(MemoryServer(store, tokens=tokens)) as url:
        yield url


def _steps(output: str) -> dict[str, Any]:
    return {line["step"]: line["detail"] for line in map(json.loads, output.splitlines())}


def test_every_operation_against_a_live_server(
    npm: str, tarball: Path, tmp_path: Path, live: str
) -> None:
    project = _project(tmp_path / "port", npm, str(tarball))
    shutil.copy(E2E, project / "e2e.ts")
    (project / "tsconfig.json").write_text(json.dumps({
        "compilerOptions": {
            "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext",
            "strict": True, "noUncheckedIndexedAccess": True, "exactOptionalPropertyTypes": True,
            "types": ["node"], "typeRoots": [str(PACKAGE / "node_modules" / "@types")],
            "outDir": "out", "skipLibCheck": False,
        },
        "files": ["e2e.ts"],
    }))  # fmt: skip
    run([str(TSC), "-p", "tsconfig.json"], project)
    output = run(
        [_tool("node"), "out/e2e.js"], project, {"MNEMOWIRE_URL": live, "MNEMOWIRE_TOKEN": TOKEN}
    )
    steps = _steps(output)
    assert steps["done"] is True, output
    assert steps["update"] == [2, "conflict"]
    assert steps["auth"] == ["unauthorized", "forbidden"]
    assert steps["invalid"][:2] == ["invalid_request", "invalid_request"]
    assert steps["unreachable"] == "unavailable"
