"""The schemathesis hooks' list of rules beyond JSON Schema (tests/api/beyond_schema.py) is
the spec's: every rule the runtime can report for a schema-valid request."""

from __future__ import annotations

import pytest

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.embedders import HashEmbedder
from mnemowire.errors import MnemowireError
from mnemowire.layers.memory import Memory
from mnemowire.spec._semantic import SEMANTIC_RULE_NAMES
from mnemowire.spec._wellformed import WELLFORMED_RULES
from tests.api.beyond_schema import BEYOND_SCHEMA

#: annotations the spec asserts (runtime/spec/_validate.py) that generators do not honour
ASSERTED_ANNOTATIONS = {"contentMediaType", "contentSchema"}


async def _refusal_rules() -> set[str]:
    """The rules a store reports for schema-valid requests it must refuse."""
    rules = set()
    foreign = {"embedder": "another", "vector": [1.0, 0.0]}
    two = {"m": 1, "n": 1}
    line = {"kind": "record", "state": "active",
            "record": {"id": "m", "agent_id": "a", "type": "semantic", "content": "tea",
                       "created_at": 1}}  # fmt: skip
    async with Memory(SqliteVecStore(":memory:", embedder=HashEmbedder(64))) as memory:
        same = {"name": memory.store.embedder.name, "dimension": 64}  # type: ignore[attr-defined]
        for call in (
            memory.list({"agent_id": "a", "cursor": "not-a-cursor-this-store-minted"}),
            memory.recall({"agent_id": "a", "query": "tea", "query_vector": foreign}),
            memory.import_records({"agents": ["b"], "records": [line]}),
            memory.import_records({"agents": ["a"], "records": [line, line]}),
            memory.import_records(
                {"agents": ["a"], "records": [{**line, "vector": [1.0]}], "embedder": same}
            ),
            memory.import_records(
                {
                    "agents": ["a"],
                    "records": [{**line, "vector": [1.0], "vector_base64": "AAAAAA=="}],
                }
            ),
            memory.import_records(
                {"agents": ["a"], "records": [{**line, "vector_base64": "AAAAAAAAAAAAAA=="}]}
            ),
            memory.consolidate(
                {
                    "agent_id": "a",
                    "dry_run": False,
                    "plan": [
                        {"canonical": "m", "duplicates": ["m"], "expected_versions": {"m": 1}}
                    ],
                }
            ),
            memory.promote(
                {
                    "agent_id": "a",
                    "plan": [{"action": "archive", "ids": ["m", "n"], "expected_versions": two}],
                }
            ),
        ):
            with pytest.raises(MnemowireError) as refused:
                await call
            rules |= {d["rule"] for d in refused.value.details}
    return rules


async def test_the_list_is_the_runtimes() -> None:
    semantic = {rule for rules in SEMANTIC_RULE_NAMES.values() for rule in rules}
    runtime = set(WELLFORMED_RULES) | semantic | ASSERTED_ANNOTATIONS | await _refusal_rules()
    assert runtime == BEYOND_SCHEMA
