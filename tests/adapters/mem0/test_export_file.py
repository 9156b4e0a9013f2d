"""mem0's own way out (its ``Memory.get_all`` answer, written to a file, as mem0's users back
up today) read by ``mnemowire import --from mem0``: the file is made here by the real mem0ai
2.2.1, offline (docs/portability.md#foreign). Ids, text, users, agents, times, metadata and
what mem0 adds (hash, run, role) come back; the vectors do not (mem0 gives none)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from mnemowire.adapters.mem0._backend import close_memory, open_memory
from mnemowire.apps.cli import Exit, cli


def test_a_get_all_file_made_by_mem0_imports_whole(tmp_path: Path) -> None:
    memory = open_memory(tmp_path / "mem0")
    try:
        memory.add("I prefer tea over coffee", user_id="alice", agent_id="bot1", run_id="r1",
                   metadata={"category": "prefs"}, infer=False)  # fmt: skip
        memory.add("My dog is Rex", user_id="alice", agent_id="bot1", infer=False)
        memory.add("Bob likes chess", user_id="bob", agent_id="bot1", infer=False)
        answer = memory.get_all(filters={"agent_id": "bot1"}, top_k=100)
    finally:
        close_memory(memory)
    path = tmp_path / "mem0-backup.json"
    path.write_text(json.dumps(answer))
    made = {item["id"]: item for item in answer["results"]}
    assert len(made) == 3
    url = f"sqlite-vec://{tmp_path / 'memory.db'}?embedder=hash:32"
    result = CliRunner().invoke(cli, ["import", "--store", url, str(path), "--from", "mem0"])
    assert result.exit_code == Exit.OK, result.output
    report = json.loads(result.stdout)
    assert report["outcomes"] == {"imported": 3}
    assert report["kept"]["vector"]["as"] == "transformed"
    asked = json.dumps({"agent_id": "bot1", "ids": list(made)})
    got = CliRunner().invoke(cli, ["get", "--store", url, "--json", "-"], input=asked)
    records = {r["id"]: r for r in json.loads(got.stdout)["records"]}
    assert records.keys() == made.keys()  # mem0's ids kept
    for record_id, item in made.items():
        record = records[record_id]
        assert (record["content"], record["user_id"]) == (item["memory"], item["user_id"])
        assert record["metadata"]["mem0"]["hash"] == item["hash"]
        assert record["created_at"] > 1_700_000_000_000
    tea = next(r for r in records.values() if r["content"].startswith("I prefer"))
    assert tea["metadata"]["category"] == "prefs"
    assert tea["metadata"]["mem0"]["run_id"] == "r1"
