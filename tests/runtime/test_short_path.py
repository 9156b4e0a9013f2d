"""The short path: ``from mnemowire import Memory``, requests written as arguments, and the
README's quickstart as written."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mnemowire import Memory, SyncMemory
from mnemowire.errors import RequestError

ROOT = Path(__file__).parents[2]


def url(tmp_path: Path) -> str:
    return f"sqlite-vec://{tmp_path / 'short.db'}?embedder=hash:32"


async def test_a_memory_as_arguments_is_the_wire_request(tmp_path: Path) -> None:
    async with Memory.open(url(tmp_path)) as memory:
        tea = await memory.remember("Alice likes tea", agent="assistant", user="alice")
        event = await memory.remember(
            "Alice ran a marathon",
            agent="assistant",
            user="alice",
            type="episodic",
            event_time=1_700_000_000_000,
            metadata={"topic": "sport"},
        )
        [record] = (await memory.get(tea.id, agent="assistant")).records
        assert (record.type, record.user_id, record.content) == (
            "semantic",
            "alice",
            "Alice likes tea",
        )
        [ran] = (await memory.get([event.id], agent="assistant")).records
        assert (ran.type, ran.event_time, ran.metadata) == (
            "episodic",
            1_700_000_000_000,
            {"topic": "sport"},
        )
        found = await memory.recall("Alice likes tea", agent="assistant", user="alice", k=1)
        assert [hit.id for hit in found.results] == [tea.id]
        sport = await memory.recall("marathon", agent="assistant", filter={"topic": "sport"})
        assert [hit.id for hit in sport.results] == [event.id]
        listed = await memory.list(agent="assistant", user="alice", limit=1)
        assert [r.id for r in listed.records] == [event.id]  # newest first
        changed = await memory.update(
            tea.id, agent="assistant", expected_version=1, content="Alice likes green tea"
        )
        assert changed.version == 2
        gone = await memory.forget(event.id, agent="assistant", hard_delete=True)
        assert gone.forgotten_ids == [event.id]
        # the spec's own names are keywords too
        spelled = await memory.remember("Bob likes cake", agent_id="assistant", user_id="bob")
        assert (await memory.get(spelled.id, agent_id="assistant")).records[0].user_id == "bob"
        # the wire's dict is still the wire's: type is required there
        with pytest.raises(RequestError, match="type"):
            await memory.remember({"agent_id": "assistant", "content": "no type"})


async def test_a_refused_keyword_call_names_the_keyword_and_writes_nothing(tmp_path: Path) -> None:
    async with Memory.open(url(tmp_path)) as memory:
        with pytest.raises(RequestError) as missing:
            await memory.remember("Alice likes tea")
        assert str(missing.value) == "agent= is required"
        assert missing.value.code == "invalid_request"
        assert [(d["path"], d["keyword"]) for d in missing.value.details] == [
            ("/agent_id", "agent=")
        ]
        with pytest.raises(RequestError, match=r"^k= .*1000") as big:
            await memory.recall("tea", agent="a", k=5000)
        assert big.value.details[0]["keyword"] == "k="
        with pytest.raises(RequestError, match="colour=") as unknown:
            await memory.remember("tea", agent="a", colour="red")
        assert unknown.value.details[0]["keyword"] == "colour="
        with pytest.raises(RequestError, match=r"^type= ") as mismatched:  # event_time: episodic
            await memory.remember("tea", agent="a", event_time=5)
        assert mismatched.value.details[0]["path"] == "/type"
        with pytest.raises(RequestError, match=r"content \(the first argument\) is required"):
            await memory.remember(agent="a")
        assert (await memory.list(agent="a")).records == []


async def test_a_call_that_is_the_programs_mistake_is_a_type_error(tmp_path: Path) -> None:
    async with Memory.open(url(tmp_path)) as memory:
        with pytest.raises(TypeError, match="not both; put agent into the request"):
            await memory.remember({"agent_id": "a", "type": "semantic", "content": "x"}, agent="b")
        with pytest.raises(TypeError, match="'content' twice"):
            await memory.remember("x", agent="a", content="y")
        with pytest.raises(TypeError, match="'agent_id' twice"):
            await memory.recall("x", agent="a", agent_id="b")
        with pytest.raises(TypeError, match="as a dict or as keyword arguments"):
            await memory.list("x", agent="a")  # type: ignore[arg-type]
        assert (await memory.list(agent="a")).records == []


def test_sync_memory_takes_the_same_arguments(tmp_path: Path) -> None:
    with SyncMemory.open(url(tmp_path)) as memory:
        stored = memory.remember("Bob drinks coffee", agent="b", user="bob")
        assert memory.recall("coffee", agent="b").results[0].id == stored.id
        assert memory.get(stored.id, agent="b").records[0].type == "semantic"
        assert memory.list(agent="b", user="bob").records[0].id == stored.id
        assert memory.update(stored.id, agent="b", expected_version=1, confidence=0.5).version == 2
        assert memory.forget([stored.id], agent="b").forgotten_ids == [stored.id]
        with pytest.raises(RequestError, match="agent= is required"):
            memory.recall("coffee")


def test_memory_opens_the_default_store_without_a_url(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MNEMOWIRE_STORE", url(tmp_path))
    with SyncMemory.open() as memory:
        memory.remember("Carol plays chess", agent="c")
    assert (tmp_path / "short.db").exists()


def test_importing_mnemowire_stays_cheap() -> None:
    """``Memory`` is importable from the package, but only loaded when named: the CLI's
    ``--help`` and code that wants the models do not pay for the layers."""
    probe = (
        "import sys, mnemowire; before = 'mnemowire.layers.memory' in sys.modules;"
        "from mnemowire import Memory, SyncMemory; "
        "print(before, Memory.__module__, SyncMemory.__name__, 'Memory' in dir(mnemowire))"
    )
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True)
    assert out.stdout.split() == ["False", "mnemowire.layers.memory", "SyncMemory", "True"]
    with pytest.raises(ImportError):
        exec("from mnemowire import Nothing", {})


def readme_quickstart() -> str:
    """The README's first Python snippet, as written."""
    text = (ROOT / "README.md").read_text()
    return re.search(r"```python\n(.*?)```", text, re.DOTALL)[1]  # type: ignore[index]


def test_the_readme_quickstart_runs_as_written(tmp_path: Path) -> None:
    """Six lines at most, run in a fresh process with the real default store (the user's data
    directory, here a temporary one) and the real embedder."""
    snippet = readme_quickstart()
    assert len(snippet.strip().splitlines()) <= 6, snippet
    env = {k: v for k, v in os.environ.items() if k != "MNEMOWIRE_STORE"}
    env["XDG_DATA_HOME"] = str(tmp_path)
    out = subprocess.run(
        [sys.executable, "-c", snippet],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "Alice likes tea"
    assert (tmp_path / "mnemowire" / "memory.db").exists()
