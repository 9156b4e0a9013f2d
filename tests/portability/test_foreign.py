"""Other tools' files (docs/portability.md#foreign): the MCP memory server's graph (its JSON
Lines file, and the one object its read_graph tool returns), mem0's get_all answer and
OpenMemory's backup lines, each in its documented form, imported with ``mnemowire import
--from``; a second import skips everything; the graph written back by ``export --format
mcp-memory`` is the graph read. (mem0's file made by the real mem0 is tested in the mem0
session: tests/adapters/mem0/test_export_file.py.)"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mnemowire.apps.cli import Exit, cli

#: the MCP memory server's file, as its README and issue #2036 show it
GRAPH: list[dict[str, Any]] = [
    {"type": "entity", "name": "Alice_Smith", "entityType": "Person",
     "observations": ["Works as a software engineer", "Lives in San Francisco"]},
    {"type": "entity", "name": "TechCorp", "entityType": "Organization",
     "observations": ["Founded in 2010"]},
    {"type": "entity", "name": "Bob", "entityType": "Person", "observations": []},
    {"type": "relation", "from": "Alice_Smith", "to": "TechCorp", "relationType": "works_at"},
]  # fmt: skip
#: mem0 2.2.1's get_all answer, as it printed it here (docs/portability.md#foreign)
MEM0: dict[str, Any] = {"results": [
    {"id": "09e8b3d7-6c72-4ab1-b3a5-bf7c9deb68a7", "memory": "I prefer tea over coffee",
     "hash": "d1f9f09584f2a256ded0951f388a6d83", "metadata": {"category": "prefs"},
     "created_at": "2026-12-04T16:28:23.742651+00:00",
     "updated_at": "2026-12-04T16:28:23.742651+00:00",
     "user_id": "alice", "agent_id": "bot1", "run_id": "r1", "role": "user"},
    {"id": "158e8fb9-a1f5-4113-bdc4-d2ade406ce35", "memory": "My dog is Rex",
     "hash": "c2c00c85e762b8cd5750e9d5cd6ff03b", "metadata": None,
     "created_at": "2026-12-04T16:28:24+00:00", "updated_at": "2026-12-04T16:28:24+00:00",
     "user_id": "alice", "role": "user", "expiration_date": "2099-01-01"},
]}  # fmt: skip
#: OpenMemory's backup lines (memories.jsonl.gz in its export zip)
OPENMEMORY: list[dict[str, Any]] = [
    {"id": "6f1c2d3e-0000-4000-8000-000000000001", "content": "Prefers dark mode",
     "metadata": {"source_app": "openmemory"}, "created_at": "2025-08-20T10:00:00+00:00",
     "updated_at": "2025-08-20T10:00:00+00:00", "state": "active", "app": "cursor",
     "categories": ["preferences"]},
    {"id": "6f1c2d3e-0000-4000-8000-000000000002", "content": "Old laptop is a ThinkPad",
     "metadata": {}, "created_at": "2025-08-21T10:00:00+00:00",
     "updated_at": "2025-08-22T10:00:00+00:00", "state": "deleted", "app": None,
     "categories": []},
]  # fmt: skip


def run(*args: str, stdin: str | None = None) -> tuple[int, list[dict[str, Any]]]:
    result = CliRunner().invoke(cli, list(args), input=stdin)
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    return result.exit_code, lines


def store(tmp_path: Path) -> str:
    return f"sqlite-vec://{tmp_path / 'memory.db'}?embedder=hash:32"


def test_an_mcp_memory_graph_comes_in_and_goes_back_out(tmp_path: Path) -> None:
    graph = tmp_path / "memory.jsonl"
    graph.write_text("\n".join(json.dumps(item) for item in GRAPH))  # no final newline
    url = store(tmp_path)
    code, [report] = run("import", "--store", url, str(graph), "--from", "mcp-memory",
                         "--agent", "assistant")  # fmt: skip
    assert code == Exit.OK, report
    assert report["outcomes"] == {"imported": 5}  # 3 observations, Bob alone, 1 relation
    assert report["verified"]["states"] == {"active": {"exact": 5}}
    assert report["kept"]["created_at"]["as"] == "transformed"
    code, [again] = run("import", "--store", url, str(graph), "--from", "mcp-memory",
                        "--agent", "assistant")  # fmt: skip
    assert again["outcomes"] == {"skipped": 5}
    asked = {"agent_id": "assistant", "query": "software engineer", "k": 1}
    code, [found] = run("recall", "--store", url, "--json", "-", stdin=json.dumps(asked))
    assert found["results"][0]["metadata"] == {"entity": "Alice_Smith", "entity_type": "Person"}
    out = tmp_path / "back.jsonl"
    code, [summary] = run("export", "--store", url, "--format", "mcp-memory", "--out", str(out))
    assert (code, summary["entities"], summary["relations"]) == (Exit.OK, 3, 1)
    back = [json.loads(line) for line in out.read_text().splitlines()]
    ordered = sorted(GRAPH, key=json.dumps)
    assert sorted(back, key=json.dumps) == [
        {**item, "observations": sorted(item["observations"])} if "observations" in item
        else item for item in ordered
    ]  # fmt: skip


def test_the_read_graph_object_is_the_same_graph(tmp_path: Path) -> None:
    whole = {
        "entities": [{k: v for k, v in i.items() if k != "type"} for i in GRAPH[:3]],
        "relations": [{k: v for k, v in i.items() if k != "type"} for i in GRAPH[3:]],
    }
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(whole, indent=2))
    code, [report] = run("import", "--store", store(tmp_path), str(path), "--from",
                         "mcp-memory", "--agent", "assistant")  # fmt: skip
    assert (code, report["outcomes"]) == (Exit.OK, {"imported": 5})


def test_mem0s_get_all_keeps_ids_times_users_and_what_mem0_adds(tmp_path: Path) -> None:
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps(MEM0))
    url = store(tmp_path)
    code, [report] = run("import", "--store", url, str(path), "--from", "mem0", "--agent",
                         "fallback")  # fmt: skip
    assert code == Exit.OK, report
    assert report["outcomes"] == {"imported": 2}
    asked = {"agent_id": "bot1", "ids": [MEM0["results"][0]["id"]]}
    code, [got] = run("get", "--store", url, "--json", "-", stdin=json.dumps(asked))
    [tea] = got["records"]
    assert tea["created_at"] == 1796401703742  # 2026-12-04T16:28:23.742651Z, in ms
    assert (tea["user_id"], tea["content"]) == ("alice", "I prefer tea over coffee")
    assert tea["metadata"] == {
        "category": "prefs",
        "mem0": {"hash": "d1f9f09584f2a256ded0951f388a6d83", "run_id": "r1", "role": "user"},
    }
    asked = {"agent_id": "fallback", "ids": [MEM0["results"][1]["id"]]}
    code, [rex] = run("get", "--store", url, "--json", "-", stdin=json.dumps(asked))
    assert rex["records"][0]["expires_at"] == 4070908800000  # 2099-01-01T00:00Z


def test_openmemorys_backup_keeps_states_apps_and_categories(tmp_path: Path) -> None:
    path = tmp_path / "memories.jsonl.gz"
    path.write_bytes(gzip.compress("\n".join(json.dumps(i) for i in OPENMEMORY).encode()))
    url = store(tmp_path)
    code, [report] = run("import", "--store", url, str(path), "--from", "openmemory",
                         "--agent", "me", "--user", "u1")  # fmt: skip
    assert code == Exit.OK, report
    assert report["verified"]["states"] == {
        "active": {"exact": 1},
        "forgotten": {"not shown by get": 1},
    }
    code, [scopes] = run("scopes", "--store", url)
    assert scopes["agents"][0]["by_state"] == {"active": 1, "forgotten": 1}


def test_a_file_that_is_not_the_format_is_refused_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps(GRAPH[0]) + "\n{not json\n")
    code, [envelope] = run("import", "--store", store(tmp_path), str(path), "--from",
                           "mcp-memory", "--agent", "a")  # fmt: skip
    assert (code, envelope["details"][0]["path"]) == (Exit.REJECTED, "/line/2")
    path.write_text('{"kind": "manifest"}\n')
    code, [envelope] = run("import", "--store", store(tmp_path), str(path), "--from",
                           "mcp-memory", "--agent", "a")  # fmt: skip
    assert envelope["details"][0]["rule"] == "format"
    assert not (tmp_path / "memory.db").exists()  # refused before the store was opened
    code, _ = run("import", "--store", store(tmp_path), str(path), "--from", "mcp-memory")
    assert code == Exit.REJECTED  # a graph names no agent: --agent


@pytest.mark.parametrize(
    ("fmt", "text", "where"),
    [
        ("mcp-memory", '{"type":"entity","name":"A","entityType":"P","observations":"abc"}',
         "/entities/0/observations"),
        ("mem0", '{"results":[{"id":"x1","memory":"m","metadata":[1],"created_at":"2026-01-01",'
         '"agent_id":"a"}]}', "/results/0/metadata"),
        ("mem0", '{"results":[{"id":"x1","memory":"m","created_at":12,"agent_id":"a"}]}',
         "/results/0/created_at"),
        ("openmemory", '{"content":"c","created_at":"2026-01-01","categories":"abc"}',
         "/line/1/categories"),
        ("openmemory", '{"content":"c","created_at":"2026-01-01","state":"gone"}',
         "/line/1/state"),
    ],
)  # fmt: skip
def test_a_hostile_file_is_refused_naming_where(
    tmp_path: Path, fmt: str, text: str, where: str
) -> None:
    path = tmp_path / "in.json"
    path.write_text(text)
    code, [envelope] = run("import", "--store", store(tmp_path), str(path), "--from", fmt,
                           "--agent", "a")  # fmt: skip
    assert (code, envelope["details"][0]["path"]) == (Exit.REJECTED, where)
    assert not (tmp_path / "memory.db").exists()


def test_a_broken_gzip_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "memories.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"content": "c"}\n')[:-9])
    code, [envelope] = run("import", "--store", store(tmp_path), str(path), "--from",
                           "openmemory", "--agent", "a")  # fmt: skip
    assert (code, envelope["details"][0]["rule"]) == (Exit.REJECTED, "format")
