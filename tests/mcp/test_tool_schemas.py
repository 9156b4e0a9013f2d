"""The tools' input schemas as a host receives them from ``tools/list``: small enough to send
with every prompt, yet still the spec's request schemas (only annotations are dropped), while
every call is still validated against the full spec at the boundary."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from mcp import Client

from mnemowire import spec
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.mcp import MemoryTools, build_server
from mnemowire.embedders import HashEmbedder

#: characters of every tool's input schema together, as JSON without spaces (measured: 42,089
#: with the spec's request schemas inlined whole, 27,117 compact; 29,574 with v0.4's history
#: and forget's all and dry_run; 34,015 with v0.4's procedure runs, an agent's own tools;
#: 34,849 with expire's records and remember's dedupe)
BUDGET = 35_000
#: the keywords that only annotate: dropping them changes what a schema accepts in no way
ANNOTATIONS = frozenset({"title", "description"})


@contextlib.asynccontextmanager
async def serving(tmp_path: Path) -> AsyncIterator[Client]:
    """A client of the MCP server over a fresh store (in one task: the SDK's client must be
    entered and left in the same one, which an async fixture does not promise)."""
    store = SqliteVecStore(str(tmp_path / "memory.db"), embedder=HashEmbedder(64))
    try:
        async with Client(build_server(MemoryTools(store)), mode="legacy") as connected:
            yield connected
    finally:
        await store.aclose()


async def listed_schemas(client: Client) -> dict[str, dict[str, Any]]:
    return {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}


def size(schema: Any) -> int:
    return len(json.dumps(schema, separators=(",", ":"), ensure_ascii=False))


def assertions(node: Any) -> Any:
    """``node`` without its annotations: what it accepts, and nothing else."""
    if isinstance(node, list):
        return [assertions(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {
        key: assertions(value)
        for key, value in node.items()
        if not (key in ANNOTATIONS and isinstance(value, str))
    }


async def test_the_tool_schemas_fit_their_budget(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        schemas = await listed_schemas(client)
    total = sum(size(schema) for schema in schemas.values())
    print(f"input schemas: {total} characters for {len(schemas)} tools")
    assert total <= BUDGET, {name: size(schema) for name, schema in schemas.items()}


async def test_a_tool_schema_accepts_exactly_what_the_spec_accepts(tmp_path: Path) -> None:
    """Only annotations differ from the spec's inlined request schema, and every example of
    the spec gets the same verdict from both (every valid one is accepted)."""
    async with serving(tmp_path) as client:
        schemas = await listed_schemas(client)
    files = spec.read_spec()
    for name, schema in schemas.items():
        full = spec.inlined_schema(f"{name}.request")
        assert assertions(schema) == assertions(full), name
        compact, reference = Draft202012Validator(schema), Draft202012Validator(full)
        for example in files.examples(f"{name}.request"):
            verdict = compact.is_valid(example.instance)
            assert verdict == reference.is_valid(example.instance), (name, example.name)
            assert verdict or not example.valid, (name, example.name)


async def test_a_call_is_still_validated_against_the_whole_spec(tmp_path: Path) -> None:
    """Every invalid example of the spec, called as its tool, is refused with the spec's error
    envelope naming exactly the example's fields and rules (the procedural state machine's
    ``contentSchema`` included, which a host's JSON Schema validator only annotates)."""
    files = spec.read_spec()
    async with serving(tmp_path) as client:
        for name in await listed_schemas(client):
            for example in files.examples(f"{name}.request"):
                if example.valid or not isinstance(example.instance, dict):
                    continue  # tool arguments are an object: the SDK sends nothing else
                result = await client.call_tool(name, example.instance)
                assert result.is_error, (name, example.name)
                [content] = result.content
                envelope = json.loads(getattr(content, "text", ""))
                assert envelope["code"] == "invalid_request", (name, example.name, envelope)
                found = {(detail["path"], detail["rule"]) for detail in envelope["details"]}
                assert found == set(example.errors), (name, example.name)
