"""The Go module as a port author gets it: a module of their own requires
mnemowire.dev/memorywire through the documented replace line (no module proxy: it builds
offline, standard library only), and its program runs every operation through HTTPClient
against a live `mnemowire serve`."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.server import MemoryServer
from mnemowire.apps.transport import Tokens
from mnemowire.embedders import HashEmbedder
from tests.codegen.conftest import MODULE, go
from tests.server._serving import serving

E2E = Path(__file__).parent / "e2e" / "main.go"
TOKEN = "go-client-token-0123456789abcdef"


@pytest.fixture
def live(tmp_path: Path) -> Iterator[str]:
    store = SqliteVecStore(str(tmp_path / "memory.db"), embedder=HashEmbedder(64))
    with serving(MemoryServer(store, tokens=Tokens([("go", TOKEN, ["a"])]))) as url:
        yield url


def port(tmp_path: Path, go_env: dict[str, str]) -> Path:
    """A module of its own using the bindings as docs/bindings.md says: require + replace."""
    folder = tmp_path / "port"
    folder.mkdir()
    shutil.copy(E2E, folder / "main.go")
    go(go_env, "mod", "init", "example.com/port", cwd=folder)
    go(go_env, "mod", "edit", "-require=mnemowire.dev/memorywire@v0.0.0",
       f"-replace=mnemowire.dev/memorywire={MODULE}", cwd=folder)  # fmt: skip
    return folder


def test_every_operation_against_a_live_server(
    tmp_path: Path, go_env: dict[str, str], live: str
) -> None:
    folder = port(tmp_path, go_env)
    go(go_env, "vet", ".", cwd=folder)
    output = go({**go_env, "MNEMOWIRE_URL": live, "MNEMOWIRE_TOKEN": TOKEN}, "run", ".", cwd=folder)
    steps: dict[str, Any] = {
        line["step"]: line["detail"] for line in map(json.loads, output.splitlines())
    }
    assert steps.get("done") is True, output
    assert steps["update"] == [2, "conflict"]
    assert steps["invalid"] == ["invalid_request", "/k", "minimum"]
    assert steps["auth"] == ["unauthorized", "forbidden"]
    assert steps["unreachable"] == "unavailable"
    assert len(steps["forget"]) == 1
