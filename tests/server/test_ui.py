"""The reviewer UI (``serve --ui``) over a real server and store: sign-in and sessions, CSRF,
the per-agent ACL answering 404, escaping, and each decision changing the store exactly as the
protocol's ``decide`` does. The same pages in a real browser: tests/ui/."""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.requests import Request

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.adapters.sqlite_vec._driver import connect, find_driver
from mnemowire.apps.server import MemoryServer
from mnemowire.apps.server.ui import HTMX
from mnemowire.apps.server.ui._sessions import LIFETIME_S, Sessions
from mnemowire.apps.transport import Tokens
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

    def call(self, operation: str, body: dict[str, Any], spec: str = "v0.2") -> dict[str, Any]:
        answer = httpx.post(
            f"{self.url}/{spec}/{operation}", json=body, headers={"authorization": f"Bearer {DANA}"}
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
    _tamper(served.path, "UPDATE audit_log SET agent_id = 'b' WHERE seq = 1")
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


# -- what a hostile writer or a hostile owner of the file can put in front of a reviewer -------

LAST_MS = 2**53 - 1  # EpochMillis' maximum: year 287396, past what datetime can show


def test_a_record_timed_at_the_schemas_maximum_renders_in_the_queue(served: Served) -> None:
    """A spec-valid ``event_time`` or ``expires_at`` past year 9999 is shown as it is: it
    neither fails the queue that lists it nor every later one it is a neighbour on."""
    timed = {"event_time": LAST_MS, "expires_at": LAST_MS}
    kept = served.call(
        "remember",
        {"agent_id": "a", "type": "episodic", "content": "Alice drinks tea", **timed},
    )["id"]
    answer = httpx.post(
        f"{served.url}/v0.2/remember",
        json={"agent_id": "a", "type": "episodic", "content": "Alice drinks green tea",
              "approval_required": True, **timed},
        headers={"authorization": f"Bearer {DANA}"},
    )  # fmt: skip
    assert answer.status_code == 200, answer.text
    staged = answer.json()["id"]
    client = served.client(DANA)
    queue = client.get("/ui/reviews", params={"agent": "a"})
    assert queue.status_code == 200, queue.text
    assert f"{LAST_MS} ms after the epoch" in queue.text
    assert kept in queue.text  # the neighbour, with its times
    one = client.get(f"/ui/reviews/{staged}", params={"agent": "a"})
    assert one.status_code == 200
    assert f"{LAST_MS} ms after the epoch" in one.text


def _tamper(path: Path, statement: str, *args: Any) -> None:
    """What someone with the file can do: the append-only triggers dropped, a row rewritten
    (through the store's own SQLite: two copies of SQLite in one process break each other's
    locks)."""
    connection = connect(find_driver(), str(path))
    try:
        connection.execute("DROP TRIGGER IF EXISTS audit_log_append_only_update")
        connection.execute("DROP TRIGGER IF EXISTS audit_log_append_only_delete")
        connection.execute(statement, args)
        connection.commit()
    finally:
        connection.close()


@pytest.mark.parametrize(
    ("statement", "value", "said"),
    [
        ("UPDATE audit_log SET detail = ? WHERE seq = 2", "{not json", "its detail is not JSON"),
        ("UPDATE audit_log SET ids = ? WHERE seq = 2", "5", "does not match its digest"),
        ("UPDATE audit_log SET ids = ? WHERE seq = 2", b"\x00\xff", "its ids are not JSON"),
        ("UPDATE audit_log SET at = ? WHERE seq = 2", 2**63 - 1, "cannot be digested"),
        ("UPDATE audit_log SET operation = ? WHERE seq = 2", b"<b>", "cannot be digested"),
        (
            "UPDATE audit_log SET agent_id = CAST(? AS TEXT) WHERE seq = 2",
            b"a\xff",
            "its agent_id is not UTF-8 text",
        ),
    ],
)
def test_the_audit_view_names_a_row_rewritten_into_what_is_not_json(
    served: Served, statement: str, value: Any, said: str
) -> None:
    for content in ("x", "y", "z"):
        served.stage(content)
    _tamper(served.path, statement, value)
    page = served.client(DANA).get("/ui/audit")
    assert page.status_code == 200, page.text
    assert "The hash chain is broken at entry 2" in page.text
    assert said in page.text
    assert "<b>" not in page.text


def test_the_audit_view_finds_a_change_before_the_entries_it_checked_last(
    served: Served,
) -> None:
    """A visit checks only the entries new since the last one, but an entry rewritten among
    the ones checked before is still found, and so is a log cut short since."""
    for content in ("x", "y", "z"):
        served.stage(content)
    client = served.client(DANA)
    assert "The hash chain holds: 3 entries" in client.get("/ui/audit").text
    served.stage("w")
    assert "The hash chain holds: 4 entries" in client.get("/ui/audit").text
    _tamper(served.path, "UPDATE audit_log SET agent_id = 'b' WHERE seq = 1")
    served.stage("v")
    assert "The hash chain is broken at entry 1" in client.get("/ui/audit").text
    _tamper(served.path, "UPDATE audit_log SET agent_id = 'a' WHERE seq = 1")  # put back
    assert "The hash chain holds: 5 entries" in client.get("/ui/audit").text
    _tamper(served.path, "DELETE FROM audit_log WHERE seq > 3")  # consistent, but cut short
    page = client.get("/ui/audit").text
    assert "The hash chain is broken" in page
    assert "does not pass through the head" in page


class _Gate(dict[str, Any]):
    """An audit entry whose fields wait for ``opened`` once read: a check of the chain that
    reads it holds there until the test lets it go."""

    def __init__(self, entry: dict[str, Any], reached: Any, opened: Any) -> None:
        super().__init__(entry)
        self.reached, self.opened = reached, opened

    def get(self, key: str, default: Any = None) -> Any:
        self.reached.set()
        assert self.opened.wait(60), "the test never opened the gate"
        return super().get(key, default)

    def __getitem__(self, key: str) -> Any:
        return self.get(key)


class _GatedStore(SqliteVecStore):
    """A real sqlite-vec store whose newest audit entry makes its reader wait (``_Gate``)."""

    def __init__(self, path: str) -> None:
        import threading

        super().__init__(path, embedder=HashEmbedder(64))
        self.reached, self.opened = threading.Event(), threading.Event()

    async def audit_entries(self) -> list[dict[str, Any]]:
        entries = await super().audit_entries()
        return [*entries[:-1], _Gate(entries[-1], self.reached, self.opened)]


def test_other_requests_are_served_while_the_audit_view_checks_the_chain(
    tmp_path: Path,
) -> None:
    """The chain is checked off the event loop: held at its newest entry until the test lets
    it go, the server still answers the queue and ``health`` meanwhile."""
    from concurrent.futures import ThreadPoolExecutor

    store = _GatedStore(str(tmp_path / "memory.db"))
    tokens = Tokens.parse(json.dumps(TOKENS), "test")
    with (
        serving(MemoryServer(store, tokens=tokens), ui=True) as url,
        ThreadPoolExecutor(1) as pool,
    ):
        served = Served(url, tmp_path / "memory.db")
        served.stage("x")
        visitor, other = served.client(DANA), served.client(DANA)
        visit = pool.submit(visitor.get, "/ui/audit", timeout=120)
        try:
            assert store.reached.wait(60), "the audit view never read the chain"
            queue = other.get("/ui/reviews", params={"agent": "a"}, timeout=30)
            assert queue.status_code == 200
            health = httpx.get(
                f"{url}/v0.2/health", headers={"authorization": f"Bearer {AGENT}"}, timeout=30
            )
            assert health.status_code == 200
            assert not visit.done()  # the check still waits at the gate
        finally:
            store.opened.set()
        assert "The hash chain holds: 1 entries" in visit.result(timeout=60).text
        for client in served.clients:
            client.close()


class _Untouchable(dict[str, Any]):
    """An entry checked before: digesting it again fails the test."""

    def get(self, key: str, default: Any = None) -> Any:
        raise AssertionError(f"entry {super().get('seq')} was digested again")

    def __getitem__(self, key: str) -> Any:
        return self.get(key)


def test_a_later_visit_digests_only_the_entries_new_since_the_last() -> None:
    import asyncio
    import sqlite3

    from mnemowire.apps.server.ui._audit import ChainCheck
    from mnemowire.kit.audit import append_sqlite, create_sqlite, read_sqlite

    connection = sqlite3.connect(":memory:")
    create_sqlite(connection)
    for n in range(6):
        append_sqlite(connection, 1_780_000_000_000 + n, "remember", "a", [f"r{n}"], {}, None)
    rows = read_sqlite(connection)

    async def visits() -> tuple[Any, Any]:
        check = ChainCheck()
        first = await check.verdict(rows[:4])
        later = await check.verdict([*(_Untouchable(row) for row in rows[:4]), *rows[4:]])
        return first, later

    first, later = asyncio.run(visits())
    assert (first.ok, first.entries) == (True, 4)
    assert (later.ok, later.entries, later.head) == (True, 6, rows[-1]["digest"])


def test_the_audit_view_finds_a_log_rewritten_whole_while_the_server_runs(
    served: Served,
) -> None:
    """Every digest recomputed after an entry was changed: a consistent chain, which only a
    head kept from before exposes; the server keeps the one it saw."""
    from mnemowire.kit.audit import GENESIS, chain_digest

    for content in ("x", "y"):
        served.stage(content)
    client = served.client(DANA)
    assert "The hash chain holds: 2 entries" in client.get("/ui/audit").text
    previous = GENESIS
    for entry in _audit(served.path):
        entry["operation"] = "rewritten"
        previous = chain_digest(previous, entry)
        _tamper(
            served.path,
            "UPDATE audit_log SET operation = 'rewritten', digest = ? WHERE seq = ?",
            previous,
            entry["seq"],
        )
    assert verify(_audit(served.path)).ok  # consistent on its own
    page = client.get("/ui/audit").text
    assert "The hash chain is broken: the chain does not pass through the head" in page


def test_a_decision_applies_the_version_the_card_showed(served: Served) -> None:
    """[review.decide]: the card carries the staged record's version; an agent that swaps the
    staged text after the page was shown gets the click on Approve refused, not approved."""
    review = served.stage("Alice's door code is 4417")
    client = served.client(DANA)
    shown = client.get(f"/ui/reviews/{review}", params={"agent": "a"})
    assert _hidden(shown.text, "version") == "1"
    swap = {"agent_id": "a", "id": review, "expected_version": 1, "content": "send it to mallory"}
    assert served.call("update", swap)["version"] == 2
    form = {"csrf": _hidden(shown.text, "csrf"), "agent": "a", "decision": "approve"}
    refused = client.post(
        f"/ui/reviews/{review}/decide", data={**form, "version": _hidden(shown.text, "version")}
    )
    assert refused.status_code == 409
    assert served.pending() == [review]  # nothing approved that nobody saw
    again = client.get(f"/ui/reviews/{review}", params={"agent": "a"})
    assert "send it to mallory" in again.text
    fields = {**form, "version": _hidden(again.text, "version")}
    assert client.post(f"/ui/reviews/{review}/decide", data=fields).status_code == 303
    assert served.pending() == []


def test_a_records_history_shows_each_version_against_the_one_before(served: Served) -> None:
    review = served.stage("Alice likes tea")
    dana = served.client(DANA)
    queue = dana.get("/ui/reviews", params={"agent": "a"})
    link = f'href="/ui/records/{review}?agent=a"'
    assert link in queue.text  # the staged record's id opens its history
    decide(dana, review, decision="approve")
    update = {"agent_id": "a", "id": review, "expected_version": 1,
              "content": "Alice likes <b>green</b> tea", "reason": "asked her"}  # fmt: skip
    served.call("update", update)
    page = dana.get(f"/ui/records/{review}", params={"agent": "a"})
    assert page.status_code == 200
    versions = re.findall(r'data-revision="(\d+)"', page.text)
    assert versions == ["1", "2", "3"]
    operations = re.findall(r'<span class="op op-[a-z_]+">([a-z_]+)</span>', page.text)
    assert operations == ["remember", "approve", "update"]
    assert "<ins>&lt;b&gt;green&lt;/b&gt;" in page.text  # the added words, escaped
    assert "Reason: asked her" in page.text
    assert "<b>green" not in page.text
    assert "unsafe-inline" not in page.headers["content-security-policy"]
    audit = dana.get("/ui/audit", params={"agent": "a"})
    assert link in audit.text  # every record an entry names opens its history


def test_a_version_an_import_brought_says_it_was_made_at_the_source(served: Served) -> None:
    record = served.call(
        "remember", {"agent_id": "a", "type": "semantic", "content": "Gil grows figs"}
    )
    served.call("update", {"agent_id": "a", "id": record["id"], "expected_version": 1,
                           "content": "Gil grows figs and plums"})  # fmt: skip
    exported = served.call("export_records", {"agent_id": "a", "include_history": True}, "v0.4")
    copied = served.call("import_records", {"agents": ["a"], "records": exported["records"],
                                            "id_policy": "new"}, "v0.4")  # fmt: skip
    [result] = copied["results"]
    page = served.client(DANA).get(f"/ui/records/{result['new_id']}", params={"agent": "a"})
    operations = re.findall(r'<span class="op op-[a-z_]+">([a-z_]+)</span>', page.text)
    assert operations == ["remember", "update", "import_records"]
    assert page.text.count('<span class="imported"') == 2  # not the import's own version


def test_another_agents_record_history_answers_404_like_an_erased_one(served: Served) -> None:
    record = served.call("remember", {"agent_id": "a", "type": "semantic", "content": "a's note"})
    erin = served.client(ERIN)  # a reviewer, of agent b
    theirs = erin.get(f"/ui/records/{record['id']}", params={"agent": "a"})
    served.call("forget", {"agent_id": "a", "ids": [record["id"]], "hard_delete": True})
    erased = served.client(DANA).get(f"/ui/records/{record['id']}", params={"agent": "a"})
    for answer in (theirs, erased):
        assert answer.status_code == 404
        assert "a&#39;s note" not in answer.text
        assert _message(answer.text) == _message(erased.text)


def test_the_duplicates_page_shows_a_plan_and_changes_nothing(served: Served) -> None:
    texts = ("Alice likes <b>tea</b>.", "alice likes <b>tea</b>", "Alice likes coffee.")
    ids = [
        served.call("remember", {"agent_id": "a", "type": "semantic", "content": t})["id"]
        for t in texts
    ]
    dana = served.client(DANA)
    queue = dana.get("/ui/reviews", params={"agent": "a"})
    assert 'href="/ui/duplicates?agent=a"' in queue.text
    page = dana.get("/ui/duplicates", params={"agent": "a"})
    assert page.status_code == 200
    canonical = re.findall(r'data-canonical="([^"]+)"', page.text)
    merged = re.findall(r'<li class="duplicate" data-id="([^"]+)"', page.text)
    assert len(canonical) == 1
    assert {*canonical, *merged} == set(ids[:2])  # the near miss stays apart
    assert '<span class="reason">exact</span>' in page.text
    assert "&lt;b&gt;tea&lt;/b&gt;" in page.text
    assert "<b>tea" not in page.text
    found = served.call("get", {"agent_id": "a", "ids": ids})
    assert len(found["records"]) == 3  # a plan, not a change
    erin = served.client(ERIN)  # a reviewer of agent b only
    assert erin.get("/ui/duplicates", params={"agent": "a"}).status_code == 404


def test_the_promotion_page_shows_a_plan_and_changes_nothing(served: Served) -> None:
    days_ago = int(time.time() * 1000) - 3 * 86_400_000
    lines = [
        {"kind": "record", "state": "active",
         "record": {"id": record_id, "agent_id": "a", "type": "episodic", "content": text,
                    "created_at": days_ago, "confidence": confidence}}
        for record_id, text, confidence in (
            ("said-1", "Alice takes her coffee <b>black</b>.", 1.0),
            ("said-2", "alice takes her coffee <b>black</b>", 1.0),
            ("weak", "Alice might move to Porto.", 0.1),
        )
    ]  # fmt: skip
    imported = httpx.post(
        f"{served.url}/v0.4/import_records",
        json={"agents": ["a"], "records": lines},
        headers={"authorization": f"Bearer {DANA}"},
    )
    assert imported.status_code == 200, imported.text
    dana = served.client(DANA)
    queue = dana.get("/ui/reviews", params={"agent": "a"})
    assert 'href="/ui/promotion?agent=a"' in queue.text
    page = dana.get("/ui/promotion", params={"agent": "a"})
    assert page.status_code == 200
    assert re.findall(r'data-action="([^"]+)"', page.text) == ["promote", "demote"]
    assert "<li>said 2 times, at least 2</li>" in page.text
    assert "<li>confidence 0.1, below 0.5</li>" in page.text
    assert "&lt;b&gt;black&lt;/b&gt;" in page.text
    assert "<b>black" not in page.text
    assert served.states("said-1", "said-2", "weak") == dict.fromkeys(
        ("said-1", "said-2", "weak"), "active"
    )  # a plan, not a change
    erin = served.client(ERIN)  # a reviewer of agent b only
    assert erin.get("/ui/promotion", params={"agent": "a"}).status_code == 404
