"""``mnemowire bench adapter``'s Letta baseline on the real server: letta-client's own calls on
an agent of its own, removed at the end. (The whole benchmark takes minutes; its numbers are in
docs/benchmarks.md#adapters.)"""

from __future__ import annotations

from pathlib import Path

from letta_client import Letta

from mnemowire.apps.bench.adapter import BACKENDS
from tests.adapters.letta.conftest import server_url


def test_the_baseline_writes_searches_and_removes_its_agent(tmp_path: Path) -> None:
    native = BACKENDS["letta"](tmp_path / "native", server_url())
    for content in ("Alice likes tea", "Bob fixes bikes"):
        native.remember({"content": content, "metadata": {"kind": "x"}})
    native.recall("what does Alice drink")
    native.close()
    base = "http://" + server_url().removeprefix("letta://").partition("?")[0]
    with Letta(base_url=base, api_key="unused") as client:
        names = [agent.name for agent in client.agents.list(limit=1000)]
    assert not [name for name in names if name.startswith("bench-native-")]
