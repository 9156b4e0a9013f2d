"""The audit log names the credential each write came through (``detail.caller``: the token's
name, never the token), so an operator can tell which token an agent's write used; a server
without tokens names nobody. In the chain like every field of an entry."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import httpx

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.server import MemoryServer
from mnemowire.apps.transport import Tokens
from mnemowire.embedders import HashEmbedder
from mnemowire.kit.audit import read_sqlite, verify
from tests.server._serving import serving

LAPTOP = "alice-laptop-token-0123456789"
PHONE = "alice-phone-token-0123456789ab"
DANA = "dana-reviewer-token-0123456789"
TOKENS = {
    "tokens": [
        {"name": "alice-laptop", "token": LAPTOP, "agents": ["alice"]},
        {"name": "alice-phone", "token": PHONE, "agents": ["alice"]},
        {"name": "dana", "token": DANA, "agents": ["alice"], "reviewer": True},
    ]
}


def post(url: str, path: str, body: Any, token: str | None = None) -> Any:
    headers = {} if token is None else {"authorization": f"Bearer {token}"}
    answer = httpx.post(url + path, json=body, headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


def audit(path: Path) -> list[dict[str, Any]]:
    with sqlite3.connect(path) as db:
        return read_sqlite(db)


def test_each_write_names_the_token_it_came_through(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = SqliteVecStore(str(path), embedder=HashEmbedder(64))
    with serving(MemoryServer(store, tokens=Tokens.parse(json.dumps(TOKENS), "test"))) as url:
        note = {"agent_id": "alice", "type": "semantic", "content": "likes tea"}
        kept = post(url, "/v0.2/remember", note, LAPTOP)["id"]
        staged = post(url, "/v0.2/remember", {**note, "approval_required": True}, PHONE)["id"]
        decision = {"agent_id": "alice", "review_id": staged, "approved": True}
        post(url, "/v0.2/decide", {**decision, "reviewer": "dana"}, DANA)
        post(url, "/v0.2/forget", {"agent_id": "alice", "ids": [kept]}, PHONE)
        post(url, "/v0.2/recall", {"agent_id": "alice", "query": "tea"}, LAPTOP)
    entries = audit(path)
    assert [(e["operation"], e["detail"]["caller"]) for e in entries] == [
        ("remember", "alice-laptop"),
        ("remember", "alice-phone"),
        ("approve", "dana"),  # the approval a decision applies, and the decision
        ("decide", "dana"),
        ("forget", "alice-phone"),
    ]
    assert entries[1]["detail"]["pending"] is True  # the entry's own detail is kept beside it
    assert verify(entries).ok
    assert all(token not in path.read_bytes().decode("latin-1") for token in (LAPTOP, PHONE))


def test_a_server_without_tokens_names_no_caller(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = SqliteVecStore(str(path), embedder=HashEmbedder(64))
    with serving(MemoryServer(store)) as url:
        post(url, "/v0.2/remember", {"agent_id": "a", "type": "semantic", "content": "x"})
    [written] = audit(path)
    assert "caller" not in (written["detail"] or {})
