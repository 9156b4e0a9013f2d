"""``mnemowire mcp`` tested with the MCP SDK's own client: in memory, over stdio (a real child
process, as a host starts it) and over streamable HTTP (a real server with tokens). Every tool
is called, the error paths are taken, and recall is found through the declared capabilities and
read as a resource."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import ServerCapabilities, TextContent, TextResourceContents

from mnemowire import spec
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.mcp import MemoryTools, build_server
from mnemowire.embedders import HashEmbedder, Vectors
from mnemowire.layers.router import MemoryRouter
from mnemowire.models import GetRequest

MNEMOWIRE = shutil.which("mnemowire") or str(Path(sys.executable).with_name("mnemowire"))
TOKEN = "mcp-test-token-0123456789abcdef"
#: every operation but decide (an agent must not approve its own staged writes) and the archive
#: moves (an operator's: docs/portability.md)
ALL_OPERATIONS = {
    "remember", "recall", "forget", "merge", "expire",
    "get", "list", "restore", "update", "remember_batch", "reviews", "scopes", "history",
    "run_start", "run_fire", "run_get",
}  # fmt: skip


def text(result: Any) -> Any:
    """The JSON of a tool result's (or resource's) first text content."""
    [content, *_] = getattr(result, "content", None) or result.contents
    assert isinstance(content, TextContent | TextResourceContents)
    return json.loads(content.text)


def remember(content: str, agent: str = "a", **fields: Any) -> dict[str, Any]:
    return {"agent_id": agent, "type": "semantic", "content": content, **fields}


def agent_ids(schema: Any) -> Iterator[Any]:
    """Every ``agent_id`` property's schema in a tool's input schema (a batch's items too, and
    the items of scopes' ``agent_ids``)."""
    if isinstance(schema, dict):
        if "agent_id" in schema.get("properties", {}):
            yield schema["properties"]["agent_id"]
        if "agent_ids" in schema.get("properties", {}):  # scopes: a list of agents
            yield schema["properties"]["agent_ids"]["items"]
        for value in schema.values():
            yield from agent_ids(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from agent_ids(item)


async def exercise(client: Any, capabilities: ServerCapabilities, private: Path) -> None:
    """Every tool once, an invalid call, an unknown tool, and the resource template found as a
    host finds it: through the capabilities the server declared. Nothing a host shows the
    model names ``private``, the store's folder."""
    assert capabilities.tools is not None
    assert capabilities.resources is not None
    listed = await client.list_tools()
    tools = {tool.name: tool for tool in listed.tools}
    assert set(tools) == ALL_OPERATIONS
    for name, tool in tools.items():
        assert tool.output_schema == spec.inlined_schema(f"{name}.response")
        assert [schema["enum"] for schema in agent_ids(tool.input_schema) if "enum" in schema] == []

    async def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await client.call_tool(name, arguments)
        assert not result.is_error, result.content
        assert text(result) == result.structured_content
        assert spec.validate(f"{name}.response", result.structured_content) is None
        return dict(result.structured_content)

    tea = (await call("remember", remember("Alice likes green tea")))["id"]
    cake = (await call("remember", remember("Alice bakes lemon cake")))["id"]
    found = await call("recall", {"agent_id": "a", "query": "green tea", "k": 1})
    assert [hit["id"] for hit in found["results"]] == [tea]
    assert (await call("get", {"agent_id": "a", "ids": [tea]}))["records"][0]["version"] == 1
    assert len((await call("list", {"agent_id": "a"}))["records"]) == 2
    updated = await call(
        "update", {"agent_id": "a", "id": tea, "expected_version": 1, "content": "Alice likes tea"}
    )
    assert updated["version"] == 2
    batch = await call("remember_batch", {"requests": [remember("one"), remember("two")]})
    one, two = (item["id"] for item in batch["results"])
    merged = await call("merge", {"agent_id": "a", "canonical": one, "duplicates": [two]})
    assert merged["merged_count"] == 1
    assert (await call("forget", {"agent_id": "a", "ids": [cake]}))["forgotten_ids"] == [cake]
    await call("expire", {"agent_id": "a", "policy": {"older_than_days": 0}, "action": "archive"})
    restored = await call("restore", {"agent_id": "a", "ids": [tea]})
    assert restored["restored"] == [tea]

    invalid = await client.call_tool("remember", {"agent_id": "a", "type": "fact", "content": ""})
    assert invalid.is_error
    envelope = text(invalid)
    assert envelope["code"] == "invalid_request"
    assert {(d["path"], d["rule"]) for d in envelope["details"]} == {
        ("/type", "enum"),
        ("/content", "minLength"),
    }
    with pytest.raises(MCPError, match="unknown tool"):
        await client.call_tool("remembr", {})

    assert (await client.list_resources()).resources == []
    templates = await client.list_resource_templates()
    assert [t.uri_template for t in templates.resource_templates] == [
        "memory://{agent_id}/recall{?query,k,user_id}"
    ]
    shown = listed.model_dump_json() + templates.model_dump_json()
    assert str(private) not in shown
    read = await client.read_resource("memory://a/recall?query=tea&k=1")
    answer = text(read)
    assert [hit["id"] for hit in answer["results"]] == [tea]
    with pytest.raises(MCPError) as below:
        await client.read_resource("memory://a/recall?query=tea&k=0")
    assert below.value.error.data["details"][0]["path"] == "/k"  # the spec's envelope
    with pytest.raises(MCPError, match="no resource"):
        await client.read_resource("file:///etc/passwd")


async def test_in_memory(tmp_path: Path) -> None:
    store = SqliteVecStore(str(tmp_path / "memory.db"), embedder=HashEmbedder(64))
    tools = MemoryTools(store)
    try:
        async with Client(build_server(tools), mode="legacy") as client:
            await exercise(client, client.server_capabilities, tmp_path)
    finally:
        await store.aclose()


async def test_an_agent_limited_server_refuses_other_agents(tmp_path: Path) -> None:
    store = SqliteVecStore(str(tmp_path / "memory.db"), embedder=HashEmbedder(64))
    tools = MemoryTools(store, agents=frozenset({"a"}))
    try:
        async with Client(build_server(tools), mode="legacy") as client:
            refused = await client.call_tool("remember", remember("secret", agent="b"))
            assert refused.is_error
            assert text(refused)["code"] == "forbidden"
            with pytest.raises(MCPError) as hidden:
                await client.read_resource("memory://b/recall?query=x")
            assert hidden.value.error.data["code"] == "forbidden"
            assert not (await client.call_tool("remember", remember("fine"))).is_error
    finally:
        await store.aclose()


def _store_url(tmp_path: Path) -> str:
    return f"sqlite-vec://{tmp_path / 'memory.db'}?embedder=hash:64"


async def test_over_stdio_as_a_host_starts_it(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=MNEMOWIRE,
        args=["mcp", "--store", _store_url(tmp_path)],
        env={**os.environ},
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        initialized = await session.initialize()
        await exercise(session, initialized.capabilities, tmp_path)
        assert str(tmp_path) not in (initialized.instructions or "")


async def test_a_host_started_for_one_agent_tells_the_model_that_agent(tmp_path: Path) -> None:
    """With ``--agent``, the model reads the agent id to send where it reads every argument (each
    tool's schema), the host's instructions say it, and a wrong guess is told the right one."""
    params = StdioServerParameters(
        command=MNEMOWIRE,
        args=["mcp", "--store", _store_url(tmp_path), "--agent", "assistant"],
        env={**os.environ},
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        initialized = await session.initialize()
        assert "agent_id 'assistant'" in (initialized.instructions or "")
        for tool in (await session.list_tools()).tools:
            named = list(agent_ids(tool.input_schema))
            assert named, tool.name
            assert all(schema["enum"] == ["assistant"] for schema in named), tool.name
        [template] = (await session.list_resource_templates()).resource_templates
        assert "'assistant'" in (template.description or "")

        refused = await session.call_tool("recall", {"agent_id": "default", "query": "tea"})
        assert refused.is_error
        envelope = text(refused)
        assert envelope["code"] == "forbidden"
        assert "send agent_id 'assistant'" in envelope["message"]
        assert "token" not in envelope["message"]
        assert envelope["details"] == [
            {"path": "/agent_id", "rule": "forbidden", "message": "is not an agent of this server"}
        ]
        with pytest.raises(MCPError, match="send agent_id 'assistant'"):
            await session.read_resource("memory://default/recall?query=tea")
        fine = await session.call_tool("remember", remember("tea", agent="assistant"))
        assert not fine.is_error, fine.content


async def test_over_streamable_http_with_tokens(tmp_path: Path) -> None:
    tokens = {"tokens": [{"name": "host", "token": TOKEN, "agents": ["a"]}]}
    process = subprocess.Popen(
        [MNEMOWIRE, "mcp", "--http", "--port", "0", "--store", _store_url(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "MNEMOWIRE_SERVER_TOKENS": json.dumps(tokens)},
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split(" at ", 1)[1].split()[0]
        assert url.endswith("/mcp")
        headers = {"authorization": f"Bearer {TOKEN}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as http,
            streamable_http_client(url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            initialized = await session.initialize()
            await exercise(session, initialized.capabilities, tmp_path)
            foreign = await session.call_tool("remember", remember("x", agent="b"))
            assert foreign.is_error
            assert text(foreign)["code"] == "forbidden"
        async with (
            httpx2.AsyncClient(timeout=30) as anonymous,
            streamable_http_client(url, http_client=anonymous) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            refused = await session.call_tool("recall", {"agent_id": "a", "query": "tea"})
            assert refused.is_error
            assert text(refused)["code"] == "unauthorized"
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    assert TOKEN not in err


class _SlowEmbedder(HashEmbedder):
    """The hash embedder under another name, taking half a second per call."""

    @property
    def name(self) -> str:
        return "slow-hash"

    def embed(self, texts: Sequence[str]) -> Vectors:
        time.sleep(0.5)
        return super().embed(texts)


async def test_a_call_whose_client_hangs_up_still_ends_whole(tmp_path: Path) -> None:
    """The SDK cancels a call whose client went away; a router's fan-out must not stop between
    its two children (the fast one written, the slow one not)."""
    fast = SqliteVecStore(str(tmp_path / "fast.db"), embedder=HashEmbedder(64), name="fast")
    slow = SqliteVecStore(str(tmp_path / "slow.db"), embedder=_SlowEmbedder(64), name="slow")
    tools = MemoryTools(MemoryRouter([fast, slow]))
    try:
        call = asyncio.ensure_future(tools.call("remember", remember("tea", id="r1"), None))
        await asyncio.sleep(0.2)  # the fast child has written; the slow one is embedding
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await tools.inflight.drain()
        for child in (fast, slow):
            found = await child.get(GetRequest(agent_id="a", ids=["r1"]))
            assert [r.id for r in found.records] == ["r1"], child.name
    finally:
        await tools.store.aclose()


def test_mcp_loads_nothing_of_the_http_servers_extra() -> None:
    """`mnemowire[mcp]` installs without the `server` extra: MCP, its CLI and its HTTP
    transport load none of our Starlette app, the UI's templating or the server's BLAS hold."""
    probe = (
        "import sys, mnemowire.apps.mcp, mnemowire.apps.cli._mcp, mnemowire.apps.mcp._run;"
        "print('\\n'.join(sorted(sys.modules)))"
    )
    loaded = set(subprocess.run(
        [sys.executable, "-c", probe], check=True, capture_output=True, text=True
    ).stdout.split())  # fmt: skip
    assert "mnemowire.apps.transport" in loaded
    server_only = ("mnemowire.apps.server", "jinja2", "threadpoolctl", "uvloop")
    assert (
        sorted(m for m in loaded if m.split(".")[0] in server_only or m.startswith(server_only))
        == []
    )
