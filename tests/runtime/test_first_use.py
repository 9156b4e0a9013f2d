"""A first command on a new machine: the one-time model setup is announced while it runs, and
is not counted in any operation's latency."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mnemowire import registry
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.cli import Exit, cli
from mnemowire.embedders import HashEmbedder, OnnxEmbedder, Preparable, Vectors
from mnemowire.models import RecallRequest, RememberRequest

SETUP_S = 0.4


class SlowToPrepare:
    """A hash embedder whose setup takes SETUP_S and says so, as a first ONNX export does."""

    def __init__(self) -> None:
        self.inner = HashEmbedder(32)
        self.prepared = 0

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def prepare(self) -> None:
        if not self.prepared:
            logging.getLogger("mnemowire.embedders").info("preparing the test model")
            time.sleep(SETUP_S)
        self.prepared += 1

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not self.prepared:
            self.prepare()  # as the real embedders do when nobody prepared them
        return self.inner.embed(texts)


async def test_the_setup_runs_once_and_outside_the_latency(tmp_path: Path) -> None:
    embedder = SlowToPrepare()
    assert isinstance(embedder, Preparable)
    async with SqliteVecStore(str(tmp_path / "m.db"), embedder=embedder) as store:
        stored = await store.remember(RememberRequest(agent_id="a", type="semantic", content="tea"))
        found = await store.recall(RecallRequest(agent_id="a", query="tea"))
    assert embedder.prepared == 1
    for response in (stored, found):
        assert response.stores is not None
        latency = response.stores[0].latency_ms
        assert latency is not None
        assert latency < SETUP_S * 1000 / 2, latency


def test_the_cli_says_what_it_is_preparing(tmp_path: Path) -> None:
    def factory(url: str, **options: Any) -> SqliteVecStore:
        return SqliteVecStore(str(tmp_path / "m.db"), embedder=SlowToPrepare())

    registry.register("slow-test", factory)
    result = CliRunner().invoke(
        cli, ["remember", "--store", "slow-test://x", "--agent", "a", "--type", "semantic", "tea"]
    )
    assert result.exit_code == Exit.OK, result.output
    assert "mnemowire: preparing the test model" in result.stderr
    latency = json.loads(result.stdout)["stores"][0]["latency_ms"]
    assert latency < SETUP_S * 1000 / 2


def test_a_first_onnx_export_is_announced_before_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    said: list[str] = []

    def fake_export(folder: Any, config: Any, target: Path) -> None:
        said.extend(r.getMessage() for r in caplog.records)  # what was said before it ran
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(b"onnx")

    monkeypatch.setattr("mnemowire.embedders._onnx_export.export", fake_export)
    caplog.set_level(logging.INFO, logger="mnemowire.embedders")
    embedder = OnnxEmbedder(cache_dir=tmp_path)
    embedder.export()
    assert any("exporting it to ONNX, once per machine" in line for line in said), said
    caplog.clear()
    embedder.export()  # cached: nothing to say
    assert not caplog.records
