"""Bearer tokens and the per-agent ACL: agent scoping is not authentication, so the server is."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from mnemowire import spec
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.server import MemoryServer
from mnemowire.apps.transport import Tokens
from mnemowire.embedders import HashEmbedder
from mnemowire.errors import ConfigError, ForbiddenError, UnauthorizedError
from tests.server._serving import serving

ALICE = "alice-token-0123456789abcdef"
OPS = "operator-token-0123456789abcdef"
DANA = "dana-reviewer-token-0123456789"
TOKENS = {
    "tokens": [
        {"name": "alice-laptop", "token": ALICE, "agents": ["assistant-alice", "shared"]},
        {"name": "ops", "token": OPS, "agents": ["*"]},
        {"name": "dana", "token": DANA, "agents": ["assistant-alice"], "reviewer": True},
    ]
}


def remember(agent: str, content: str = "likes tea") -> dict[str, Any]:
    return {"agent_id": agent, "type": "semantic", "content": content}


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    store = SqliteVecStore(str(tmp_path / "memory.db"), embedder=HashEmbedder(64))
    tokens = Tokens.parse(json.dumps(TOKENS), "test")
    with serving(MemoryServer(store, tokens=tokens)) as base:
        yield base


def call(url: str, path: str, body: Any, token: str | None) -> httpx.Response:
    headers = {"content-type": "application/json"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    return httpx.post(url + path, content=json.dumps(body).encode(), headers=headers)


def count(url: str, agent: str) -> int:
    listed = call(url, "/v0.1/list", {"agent_id": agent}, OPS).json()
    return len(listed["records"])


@pytest.mark.parametrize(
    "authorization", [None, "", "Bearer", "Basic " + ALICE, "Bearer wrong-token-xxxxxxxx"]
)
def test_no_token_or_an_unknown_one_is_401_and_changes_nothing(
    url: str, authorization: str | None
) -> None:
    headers = {"content-type": "application/json"}
    if authorization is not None:
        headers["authorization"] = authorization
    answer = httpx.post(
        url + "/v0.1/remember",
        content=json.dumps(remember("assistant-alice")).encode(),
        headers=headers,
    )
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"].startswith("Bearer")
    body = answer.json()
    assert body["code"] == "unauthorized"
    assert spec.validate("error", body) is None
    assert ALICE not in answer.text
    assert count(url, "assistant-alice") == 0
    assert httpx.get(url + "/v0.1/capabilities", headers=headers).status_code == 401


def test_a_token_acts_only_as_its_agents(url: str) -> None:
    assert call(url, "/v0.1/remember", remember("assistant-alice"), ALICE).status_code == 200
    refused = call(url, "/v0.1/remember", remember("assistant-bob"), ALICE)
    assert refused.status_code == 403
    body = refused.json()
    assert body["code"] == "forbidden"
    assert body["details"] == [
        {
            "path": "/agent_id",
            "rule": "forbidden",
            "message": "is an agent this token may not act as",
        }
    ]
    assert "alice-laptop" in body["message"]
    assert ALICE not in refused.text
    assert count(url, "assistant-bob") == 0
    for path, request in [
        ("/v0.1/recall", {"agent_id": "assistant-bob", "query": "tea"}),
        ("/v0.1/forget", {"agent_id": "assistant-bob", "filter": {"x": 1}}),
        ("/v0.1/list", {"agent_id": "assistant-bob"}),
        ("/v0/recall", {"agent_id": "assistant-bob", "query": "tea"}),
    ]:
        assert call(url, path, request, ALICE).status_code == 403, path


def test_a_batch_naming_one_foreign_agent_stores_nothing(url: str) -> None:
    batch = {"requests": [remember("assistant-alice"), remember("shared"), remember("bob")]}
    refused = call(url, "/v0.1/remember_batch", batch, ALICE)
    assert refused.status_code == 403
    assert [d["path"] for d in refused.json()["details"]] == ["/requests/2/agent_id"]
    assert count(url, "assistant-alice") == count(url, "shared") == count(url, "bob") == 0
    accepted = call(url, "/v0.1/remember_batch", {"requests": batch["requests"][:2]}, ALICE)
    assert accepted.status_code == 200


def test_an_operator_token_acts_as_any_agent(url: str) -> None:
    assert call(url, "/v0.1/remember", remember("anyone-at-all"), OPS).status_code == 200
    assert count(url, "anyone-at-all") == 1


def test_only_a_reviewer_token_decides_and_only_as_itself(url: str) -> None:
    """An agent's token can stage and list its writes, not approve them; a reviewer decides
    as its own name, for its own agents only."""
    staged = remember("assistant-alice", "wants a raise")
    review_id = call(url, "/v0.2/remember", {**staged, "approval_required": True}, ALICE)
    review_id = review_id.json()["id"]
    listed = call(url, "/v0.2/reviews", {"agent_id": "assistant-alice"}, ALICE).json()
    assert [r["review_id"] for r in listed["reviews"]] == [review_id]
    decision = {"agent_id": "assistant-alice", "review_id": review_id, "approved": True}
    for token, reviewer in ((ALICE, "alice-laptop"), (OPS, "ops"), (DANA, "someone-else")):
        refused = call(url, "/v0.2/decide", {**decision, "reviewer": reviewer}, token)
        assert refused.status_code == 403, refused.text
        assert refused.json()["details"][0]["path"] == "/reviewer"
    elsewhere = {**decision, "agent_id": "shared", "reviewer": "dana"}
    assert call(url, "/v0.2/decide", elsewhere, DANA).status_code == 403  # not dana's agent
    assert count(url, "assistant-alice") == 0  # nothing of that was applied
    done = call(url, "/v0.2/decide", {**decision, "reviewer": "dana"}, DANA)
    assert done.status_code == 200, done.text
    assert done.json()["decision"]["reviewer"] == "dana"
    assert count(url, "assistant-alice") == 1


def test_an_invalid_request_from_a_known_caller_is_400_not_403(url: str) -> None:
    answer = call(url, "/v0.1/remember", {"agent_id": "bob"}, ALICE)
    assert answer.status_code == 400


def test_no_token_reaches_the_log(url: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    call(url, "/v0.1/remember", remember("assistant-alice"), ALICE)
    call(url, "/v0.1/remember", remember("bob"), ALICE)
    call(url, "/v0.1/remember", remember("bob"), "Bearer-not-a-known-token-at-all")
    assert ALICE not in caplog.text
    assert "not-a-known-token" not in caplog.text


def test_tokens_are_parsed_strictly() -> None:
    def parse(data: Any) -> Tokens:
        return Tokens.parse(json.dumps(data), "--tokens t.json")

    with pytest.raises(ConfigError, match="at least 16"):
        parse({"tokens": [{"name": "a", "token": "short", "agents": ["x"]}]})
    with pytest.raises(ConfigError, match="unknown fields"):
        parse({"tokens": [{"name": "a", "token": ALICE, "agents": ["x"], "agent": ["y"]}]})
    with pytest.raises(ConfigError, match="lists no agents"):
        parse({"tokens": [{"name": "a", "token": ALICE, "agents": []}]})
    with pytest.raises(ConfigError, match="named 'a'"):
        parse({"tokens": [{"name": "a", "token": ALICE, "agents": ["x"]},
                          {"name": "a", "token": OPS, "agents": ["x"]}]})  # fmt: skip
    with pytest.raises(ConfigError, match="listed twice"):
        parse({"tokens": [{"name": "a", "token": ALICE, "agents": ["x"]},
                          {"name": "b", "token": ALICE, "agents": ["y"]}]})  # fmt: skip
    with pytest.raises(ConfigError, match="not JSON"):
        Tokens.parse("tokens: [a]", "t")
    with pytest.raises(ConfigError, match="empty"):
        parse({"tokens": []})
    with pytest.raises(ConfigError, match="reviewer must be"):
        parse({"tokens": [{"name": "a", "token": ALICE, "agents": ["x"], "reviewer": "yes"}]})


def test_tokens_come_from_a_file_or_the_environment(tmp_path: Path) -> None:
    file = tmp_path / "tokens.json"
    file.write_text(json.dumps(TOKENS))
    from_file = Tokens.load(file, environ={})
    assert from_file is not None
    assert from_file.names == ["alice-laptop", "ops", "dana"]
    from_env = Tokens.load(None, environ={"MNEMOWIRE_SERVER_TOKENS": json.dumps(TOKENS)})
    assert from_env is not None
    assert from_env.names == ["alice-laptop", "ops", "dana"]
    assert Tokens.load(None, environ={}) is None
    with pytest.raises(ConfigError, match="cannot read"):
        Tokens.load(tmp_path / "missing.json", environ={})


def test_authenticate_and_admit() -> None:
    tokens = Tokens.parse(json.dumps(TOKENS), "t")
    caller = tokens.authenticate(f"Bearer {ALICE}")
    assert caller.name == "alice-laptop"
    caller.admit({"/agent_id": "shared"})
    with pytest.raises(ForbiddenError):
        caller.admit({"/requests/0/agent_id": "shared", "/requests/1/agent_id": "other"})
    with pytest.raises(UnauthorizedError):
        tokens.authenticate(f"Bearer {ALICE}x")
    assert tokens.authenticate(f"bearer {OPS}").name == "ops"  # the scheme is case-insensitive


def test_an_archive_naming_a_foreign_agent_is_refused_whole_and_scopes_are_narrowed(
    url: str,
) -> None:
    """docs/spec/v0.3.md#import.agents, #scopes.list: the page lists every agent of the
    archive, so a token refused one is refused the first page; a listing shows its agents."""
    for agent in ("assistant-alice", "assistant-bob"):
        assert call(url, "/v0.3/remember", remember(agent), OPS).status_code == 200
    exported = call(url, "/v0.3/export_records", {"agent_id": "assistant-alice"}, ALICE).json()
    page = {"agents": ["assistant-alice", "assistant-bob"], "records": exported["records"],
            "on_conflict": "skip"}  # fmt: skip
    refused = call(url, "/v0.3/import_records", page, ALICE)
    assert refused.status_code == 403
    assert [d["path"] for d in refused.json()["details"]] == ["/agents/1"]
    admitted = call(url, "/v0.3/import_records", {**page, "agents": ["assistant-alice"]}, ALICE)
    assert [r["outcome"] for r in admitted.json()["results"]] == ["skipped"]
    listed = call(url, "/v0.3/scopes", {}, ALICE).json()
    assert [a["agent_id"] for a in listed["agents"]] == ["assistant-alice"]
    everyone = call(url, "/v0.3/scopes", {}, OPS).json()
    assert [a["agent_id"] for a in everyone["agents"]] == ["assistant-alice", "assistant-bob"]
    assert call(url, "/v0.3/scopes", {"agent_ids": ["assistant-bob"]}, ALICE).status_code == 403
