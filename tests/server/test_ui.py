"""The reviewer UI (``serve --ui``) over a real server and store: sign-in and sessions, CSRF,
the per-agent ACL answering 404, escaping, and each decision changing the store exactly as the
protocol's ``decide`` does. The same pages in a real browser: tests/ui/."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.requests import Request

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.server import MemoryServer, Tokens
from mnemowire.apps.server.ui import HTMX
from mnemowire.apps.server.ui._sessions import LIFETIME_S, Sessions
from mnemowire.embedders import HashEmbedder
from mnemowire.kit.audit import verify
from tests.server._serving import serving

DANA = "dana-reviewer-token-0123456789"  # reviews agent a
ERIN = "erin-reviewer-token-0123456789"  # reviews agent b only
AGENT = "alice-agent-token-0123456789ab"  # agent a itself: may read, not decide
TOKENS = {
    "tokens": [
        {"name": "dana", "token": DANA, "agents": ["a"], "reviewer": True},
        {"name": "erin", "token": ERIN, "agents": ["b"], "reviewer": True},
        {"name": "alice", "token": AGENT, "agents": ["a"]},
    ]
}


@dataclass
class Served:
    url: str
    path: Path
    clients: list[httpx.Client] = field(default_factory=list)

    def browser(self) -> httpx.Client:
        """A client keeping cookies, as a browser does (closed with the server)."""
        client = httpx.Client(base_url=self.url)
        self.clients.append(client)
        return client

    def call(self, operation: str, body: dict[str, Any]) -> dict[str, Any]:
        answer = httpx.post(
            f"{self.url}/v0.2/{operation}", json=body, headers={"authorization": f"Bearer {DANA}"}
        )
        assert answer.status_code == 200, answer.text
        result: dict[str, Any] = answer.json()
        return result

    def stage(self, content: str, agent: str = "a", token: str = DANA) -> str:
        answer = httpx.post(
            f"{self.url}/v0.2/remember",
            json={"agent_id": agent, "type": "semantic", "content": content,
                  "approval_required": True},
            headers={"authorization": f"Bearer {token}"},
        )  # fmt: skip
        assert answer.status_code == 200, answer.text
        return str(answer.json()["id"])

    def pending(self, agent: str = "a") -> list[str]:
        return [r["review_id"] for r in self.call("reviews", {"agent_id": agent})["reviews"]]

    def states(self, *ids: str) -> dict[str, str]:
        states = ["active", "pending", "archived", "expired"]
        got = self.call("get", {"agent_id": "a", "ids": list(ids), "states": states})
        return {r["id"]: r["state"] for r in got["records"]}

    def client(self, token: str) -> httpx.Client:
        """A browser-like client signed in with ``token`` (cookie session)."""
        client = self.browser()
        form = client.get("/ui/login")
        signed = client.post(
            "/ui/login", data={"nonce": _hidden(form.text, "nonce"), "token": token}
        )
        assert signed.status_code == 303, signed.text
        return client


def _hidden(page: str, name: str) -> str:
    found = re.search(rf'name="{name}" value="([^"]*)"', page)
    assert found is not None, f"no hidden {name} on the page"
    return found.group(1)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    path = tmp_path / "memory.db"
    store = SqliteVecStore(str(path), embedder=HashEmbedder(64))
    tokens = Tokens.parse(json.dumps(TOKENS), "test")
    with serving(MemoryServer(store, tokens=tokens), ui=True) as url:
        served = Served(url, path)
        yield served
        for client in served.clients:
            client.close()


def decide(client: httpx.Client, review_id: str, **form: str) -> httpx.Response:
    page = client.get(f"/ui/reviews/{review_id}", params={"agent": "a"})
    fields = {"csrf": _hidden(page.text, "csrf"), "agent": "a", **form}
    return client.post(f"/ui/reviews/{review_id}/decide", data=fields)


def test_sign_in_sets_a_strict_http_only_session_and_sign_out_ends_it(served: Served) -> None:
    client = served.browser()
    assert client.get("/ui/").status_code == 303  # to the sign-in page
    form = client.get("/ui/login")
    signed = client.post("/ui/login", data={"nonce": _hidden(form.text, "nonce"), "token": DANA})
    cookie = signed.headers["set-cookie"]
    assert "HttpOnly" in cookie
    assert "SameSite=strict" in cookie
    assert "Path=/ui" in cookie
    assert DANA not in cookie
    queue = client.get("/ui/reviews", params={"agent": "a"})
    assert queue.status_code == 200
    assert "dana" in queue.text
    client.post("/ui/logout", data={"csrf": _hidden(queue.text, "csrf")})
    assert client.get("/ui/reviews", params={"agent": "a"}).status_code == 303


def test_an_unknown_token_or_a_forged_sign_in_gets_no_session(served: Served) -> None:
    client = served.browser()
    form = client.get("/ui/login")
    wrong = client.post("/ui/login", data={"nonce": _hidden(form.text, "nonce"), "token": "x" * 30})
    assert wrong.status_code == 401
    assert "mnemowire_ui=" not in wrong.headers.get("set-cookie", "")
    forged = httpx.post(f"{served.url}/ui/login", data={"nonce": "made-up", "token": DANA})
    assert forged.status_code == 403
    assert "mnemowire_ui=" not in forged.headers.get("set-cookie", "")


def test_approve_reject_and_merge_into_change_the_store_as_decide_does(served: Served) -> None:
    kept = served.call(
        "remember", {"agent_id": "a", "type": "semantic", "content": "Alice drinks tea"}
    )["id"]
    approved, rejected, merged = (served.stage(c) for c in ("one", "two", "Alice drinks green tea"))
    client = served.client(DANA)
    assert decide(client, approved, decision="approve", reason="fine").status_code == 303
    assert decide(client, rejected, decision="reject").status_code == 303
    answer = decide(client, merged, decision="merge", merge_into=kept, reason="same fact")
    assert answer.status_code == 303
    assert served.pending() == []
    assert served.states(approved, rejected, merged, kept) == {approved: "active", kept: "active"}
    entries = httpx.get(f"{served.url}/ui/audit", headers={"authorization": f"Bearer {DANA}"})
    assert "The hash chain holds" in entries.text
    assert verify(_audit(served.path)).ok


def _audit(path: Path) -> list[dict[str, Any]]:
    import asyncio

    async def read() -> list[dict[str, Any]]:
        store = SqliteVecStore(str(path), embedder=HashEmbedder(64))
        try:
            return await store.audit_entries()
        finally:
            await store.aclose()

    return asyncio.run(read())


def test_an_htmx_decision_answers_the_outcome_fragment(served: Served) -> None:
    review = served.stage("with htmx")
    client = served.client(DANA)
    page = client.get(f"/ui/reviews/{review}", params={"agent": "a"})
    answer = client.post(
        f"/ui/reviews/{review}/decide",
        data={"csrf": _hidden(page.text, "csrf"), "agent": "a", "decision": "approve",
              "reason": "ok <b>bold</b>"},
        headers={"hx-request": "true"},
    )  # fmt: skip
    assert answer.status_code == 200
    assert "Approved by dana: ok &lt;b&gt;bold&lt;/b&gt;" in answer.text
    assert "<html" not in answer.text  # a fragment, swapped into the card


@pytest.mark.parametrize("forgery", ["no-csrf", "wrong-csrf", "other-origin"])
def test_a_forged_decision_is_refused_and_changes_nothing(served: Served, forgery: str) -> None:
    review = served.stage("approve me if you can")
    client = served.client(DANA)
    page = client.get(f"/ui/reviews/{review}", params={"agent": "a"})
    form = {"agent": "a", "decision": "approve", "csrf": _hidden(page.text, "csrf")}
    headers = {}
    if forgery == "no-csrf":
        del form["csrf"]
    elif forgery == "wrong-csrf":
        form["csrf"] = "x" * 43
    else:
        headers["origin"] = "https://evil.example"
    answer = client.post(f"/ui/reviews/{review}/decide", data=form, headers=headers)
    assert answer.status_code == 403
    assert "CSRF" in answer.text
    assert served.pending() == [review]


def test_another_agents_review_answers_404_like_an_unknown_one(served: Served) -> None:
    review = served.stage("a's secret")
    erin = served.client(ERIN)  # a reviewer, of agent b
    unknown = erin.get("/ui/reviews/01NOSUCHREVIEW000000000000", params={"agent": "b"})
    for answer in (
        erin.get(f"/ui/reviews/{review}", params={"agent": "a"}),
        erin.get("/ui/reviews", params={"agent": "a"}),
        erin.get(f"/ui/reviews/{review}", params={"agent": "b"}),
    ):
        assert answer.status_code == 404
        assert "a&#39;s secret" not in answer.text
        assert "a's secret" not in answer.text
        assert _message(answer.text) == _message(unknown.text)
    page = erin.get("/ui/reviews", params={"agent": "b"})
    answer = erin.post(
        f"/ui/reviews/{review}/decide",
        data={"csrf": _hidden(page.text, "csrf"), "agent": "a", "decision": "approve"},
    )
    assert answer.status_code == 404
    assert served.pending() == [review]


def _message(page: str) -> str:
    found = re.search(r'<p class="error" role="alert">(.*?)</p>', page, re.S)
    assert found is not None
    return found.group(1)


def test_an_agents_own_token_reads_its_queue_but_may_not_decide(served: Served) -> None:
    review = served.stage("my own write", token=AGENT)
    alice = served.client(AGENT)
    queue = alice.get("/ui/reviews", params={"agent": "a"})
    assert queue.status_code == 200
    assert "my own write" in queue.text
    assert "/decide" not in queue.text  # no decision form
    answer = alice.post(
        f"/ui/reviews/{review}/decide",
        data={"csrf": _hidden(queue.text, "csrf"), "agent": "a", "decision": "approve"},
    )
    assert answer.status_code == 403
    assert "reviewer" in answer.text
    assert served.pending() == [review]


def test_stored_markup_is_shown_as_text_under_a_strict_policy(served: Served) -> None:
    hostile = '<script>alert(1)</script><img src=x onerror="alert(2)">'
    served.stage(hostile)
    page = served.client(DANA).get("/ui/reviews", params={"agent": "a"})
    assert "<script>alert" not in page.text
    assert "<img src=x" not in page.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy
    assert page.headers["x-frame-options"] == "DENY"


def test_a_second_decision_is_a_conflict_shown_to_the_reviewer(served: Served) -> None:
    review = served.stage("once")
    client = served.client(DANA)
    page = client.get(f"/ui/reviews/{review}", params={"agent": "a"})
    fields = {"csrf": _hidden(page.text, "csrf"), "agent": "a", "decision": "approve"}
    assert client.post(f"/ui/reviews/{review}/decide", data=fields).status_code == 303
    again = client.post(f"/ui/reviews/{review}/decide", data=fields)
    assert again.status_code in (404, 409)
    assert served.states(review) == {review: "active"}


def test_the_queue_pages_by_twenty(served: Served) -> None:
    staged = [served.stage(f"write {i}") for i in range(23)]
    client = served.client(DANA)
    first = client.get("/ui/reviews", params={"agent": "a"})
    assert first.text.count('<article class="review"') == 20
    found = re.search(r'rel="next" href="([^"]+)"', first.text)
    assert found is not None
    second = client.get(found.group(1).replace("&amp;", "&"))
    assert second.text.count('<article class="review"') == 3
    assert staged[-1] in second.text
    assert 'rel="next"' not in second.text


def test_the_audit_view_names_a_broken_chain(served: Served) -> None:
    served.stage("x")
    served.stage("y")
    import sqlite3

    connection = sqlite3.connect(served.path)
    connection.execute("DROP TRIGGER IF EXISTS audit_log_append_only_update")
    connection.execute("UPDATE audit_log SET agent_id = 'b' WHERE seq = 1")
    connection.commit()
    connection.close()
    page = served.client(DANA).get("/ui/audit")
    assert "The hash chain is broken at entry 1" in page.text


def test_the_served_htmx_is_the_vendored_release(served: Served) -> None:
    served_file = httpx.get(f"{served.url}/ui/static/htmx.min.js")
    assert served_file.status_code == 200
    assert hashlib.sha256(served_file.content).hexdigest() == HTMX[1]


def test_without_tokens_a_reviewer_signs_in_by_name(tmp_path: Path) -> None:
    store = SqliteVecStore(str(tmp_path / "m.db"), embedder=HashEmbedder(64))
    with serving(MemoryServer(store), ui=True) as url, httpx.Client(base_url=url) as client:
        form = client.get("/ui/login")
        assert 'name="name"' in form.text
        assert 'name="token"' not in form.text
        client.post("/ui/login", data={"nonce": _hidden(form.text, "nonce"), "name": "sam"})
        staged = httpx.post(
            f"{url}/v0.2/remember",
            json={"agent_id": "a", "type": "semantic", "content": "c", "approval_required": True},
        ).json()["id"]
        page = client.get(f"/ui/reviews/{staged}", params={"agent": "a"})
        answer = client.post(
            f"/ui/reviews/{staged}/decide",
            data={"csrf": _hidden(page.text, "csrf"), "agent": "a", "decision": "approve",
                  "reason": "checked"},
            headers={"hx-request": "true"},
        )  # fmt: skip
        assert "Approved by sam: checked" in answer.text


def test_the_start_page_lists_the_tokens_agents(tmp_path: Path) -> None:
    tokens = {"tokens": [{"name": "ops", "token": DANA, "agents": ["b", "a"], "reviewer": True}]}
    store = SqliteVecStore(str(tmp_path / "m.db"), embedder=HashEmbedder(64))
    server = MemoryServer(store, tokens=Tokens.parse(json.dumps(tokens), "test"))
    with serving(server, ui=True) as url, httpx.Client(base_url=url) as client:
        form = client.get("/ui/login")
        client.post("/ui/login", data={"nonce": _hidden(form.text, "nonce"), "token": DANA})
        start = client.get("/ui/")
        links = re.findall(r'href="/ui/reviews\?agent=([^"]+)"', start.text)
        assert links == ["a", "b"]
        assert 'name="agent"' not in start.text  # no free agent field for a listed token


def test_an_expired_session_signs_in_again_and_htmx_is_told_where(served: Served) -> None:
    review = served.stage("later")
    client = served.client(DANA)
    client.cookies.clear()  # the session forgotten by the server: a restart, or its end
    client.cookies.set("mnemowire_ui", "not-a-session", path="/ui")
    fragment = client.post(
        f"/ui/reviews/{review}/decide",
        data={"agent": "a", "decision": "approve"},
        headers={"hx-request": "true"},
    )
    assert fragment.status_code == 401
    assert fragment.headers["hx-redirect"] == "/ui/login"
    assert served.pending() == [review]
    page = client.get("/ui/reviews", params={"agent": "a"})
    assert page.status_code == 303
    assert page.headers["location"] == "/ui/login?next=%2Fui%2Freviews%3Fagent%3Da"
    form = client.get(page.headers["location"])
    assert _hidden(form.text, "next") == "/ui/reviews?agent=a"
    signed = client.post(
        "/ui/login",
        data={"nonce": _hidden(form.text, "nonce"), "token": DANA, "next": "/ui/reviews?agent=a"},
    )
    assert signed.headers["location"] == "/ui/reviews?agent=a"  # back where it was


def test_a_session_ends_after_its_lifetime() -> None:
    now = [1000.0]
    sessions = Sessions(None, clock=lambda: now[0])
    session_id, _ = sessions.sign_in("", "sam")
    request = Request(
        {"type": "http", "headers": [(b"cookie", f"mnemowire_ui={session_id}".encode())]}
    )
    assert sessions.of(request) is not None
    now[0] += LIFETIME_S
    assert sessions.of(request) is None
