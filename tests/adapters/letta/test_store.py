"""The Letta store against a real Letta server: every wire field read back exactly, scopes
exact, Letta's own scoping not trusted, the id map and Letta's passages never out of step, and
a server that is down, silent or failing answered with the spec's errors in bounded time."""

from __future__ import annotations

import http.server
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mnemowire.adapters.letta import LettaStore
from mnemowire.adapters.letta._client import connect
from mnemowire.adapters.letta._tags import tags_of, write_tag
from mnemowire.errors import (
    ConflictError,
    MnemowireError,
    NotFoundError,
    StoreError,
    UnavailableError,
)
from tests.adapters._semantics_reviews import a_policy_file_on_the_url_stages_writes
from tests.adapters.letta.conftest import CheckedStore, Clock, letta_database, server_url

EVERY_FIELD: dict[str, Any] = {
    "agent_id": " a ü ",
    "user_id": "u\t1",
    "id": "r-every",
    "type": "emotional",
    "content": "  Alice was thrilled at the concert\n— “encore” 🎉  ",
    "metadata": {"big": 10**30, "nested": {"list": [1, None, 2.5, "x"]}, "é": True},
    "confidence": 0.123456789,
    "source": " chat ",
    "expires_at": 1_900_000_000_000,
    "sentiment": "positive",
    "valence": 0.8,
    "arousal": 0.9,
    "emotion": "joy",
    "target": "the concert",
}


def _passages(raw: LettaStore, agent_id: str) -> list[Any]:
    """Every passage of the Letta agent that holds ``agent_id``'s records, as Letta lists it."""

    def read() -> list[Any]:
        letta_id = raw._agent(agent_id, create=False)
        return [] if letta_id is None else list(raw._pages(letta_id))

    return raw._worker.submit(read).result()


async def test_every_field_is_read_back_exactly(store: CheckedStore, clock: Clock) -> None:
    await store.remember(EVERY_FIELD)
    scope = {"agent_id": EVERY_FIELD["agent_id"], "user_id": EVERY_FIELD["user_id"]}
    [hit] = (await store.recall({**scope, "query": "concert", "k": 5})).results
    [record] = (await store.get({**scope, "ids": ["r-every"]})).records
    [listed] = (await store.list(scope)).records
    for answer in (hit, record, listed):
        wire = answer.model_dump(by_alias=True, exclude_none=True)
        for field, value in EVERY_FIELD.items():
            if field != "agent_id":
                assert wire[field] == value, field
        assert wire["created_at"] == wire["updated_at"] == clock.now


async def test_scopes_are_exact(store: CheckedStore) -> None:
    writes = [
        ("a", "u1", "semantic", "Alice likes green tea"),
        ("a", "u2", "semantic", "Alice likes black tea"),
        ("a", "u1", "episodic", "Alice drank tea on Monday"),
        ("b", "u1", "semantic", "Bob likes tea too"),
    ]
    for agent, user, kind, content in writes:
        await store.remember({"agent_id": agent, "user_id": user, "type": kind, "content": content})

    async def found(**scope: Any) -> list[str]:
        hits = (await store.recall({"query": "tea", "k": 10, **scope})).results
        return sorted(h.content for h in hits)

    assert await found(agent_id="a") == sorted(c for a, _, _, c in writes if a == "a")
    assert await found(agent_id="a", user_id="u1") == [
        "Alice drank tea on Monday",
        "Alice likes green tea",
    ]
    assert await found(agent_id="a", user_id="u1", types=["semantic"]) == ["Alice likes green tea"]
    assert await found(agent_id="a", types=["semantic", "episodic"]) == sorted(
        c for a, _, _, c in writes if a == "a"
    )
    assert await found(agent_id="b") == ["Bob likes tea too"]
    assert await found(agent_id="c") == []


async def test_relevance_is_the_cosine_of_the_project_model(
    raw: LettaStore, store: CheckedStore
) -> None:
    """Letta ranks without scores: the store's relevance is the query's cosine similarity
    to the content under the model Letta embeds with, and answers the same twice."""
    for content in ("Alice likes tea", "the stock market fell", "tea with milk"):
        await store.remember({"agent_id": "a", "type": "semantic", "content": content})
    request = {"agent_id": "a", "query": "a cup of tea", "k": 3}
    hits = (await store.recall(request)).results
    vectors = raw._embedder.embed(["a cup of tea", *[h.content for h in hits]])
    for hit, vector in zip(hits, vectors[1:], strict=True):
        assert hit.relevance == pytest.approx(float(np.dot(vectors[0], vector)), abs=1e-5)
    assert [h.content for h in hits][2] == "the stock market fell"
    assert [(h.id, h.score) for h in (await store.recall(request)).results] == [
        (h.id, h.score) for h in hits
    ]


async def test_a_filter_that_keeps_only_the_least_similar_still_gets_k(
    store: CheckedStore,
) -> None:
    """Metadata filters run on what Letta returns, so the store searches deeper until it
    has k hits or the scope has no more."""
    for i in range(25):
        await store.remember({"agent_id": "a", "type": "semantic",
                              "content": f"green tea number {i}",
                              "metadata": {"kind": "tea"}})  # fmt: skip
    for content in ("the motorway was closed", "quarterly tax forms"):
        await store.remember(
            {"agent_id": "a", "type": "semantic", "content": content, "metadata": {"kind": "x"}}
        )
    request = {"agent_id": "a", "query": "green tea", "k": 2, "filter": {"kind": "x"}}
    hits = (await store.recall(request)).results
    assert sorted(h.content for h in hits) == ["quarterly tax forms", "the motorway was closed"]


async def test_a_rare_type_or_user_still_gets_k(store: CheckedStore) -> None:
    """Letta applies a search's tag filter after taking its top_k (a filtered search comes
    back short, and would look exhausted): the store filters the types and the user itself,
    searching deeper, so a type or user far down the ranking still gets its k."""
    for i in range(30):
        await store.remember({"agent_id": "a", "user_id": "many", "type": "semantic",
                              "content": f"green tea number {i}"})  # fmt: skip
    for content in ("file the quarterly tax forms", "renew the car insurance"):
        await store.remember(
            {"agent_id": "a", "user_id": "few", "type": "episodic", "content": content}
        )
    expected = ["file the quarterly tax forms", "renew the car insurance"]
    for scope in ({"types": ["episodic"]}, {"user_id": "few"}):
        request = {"agent_id": "a", "query": "green tea", "k": 2, **scope}
        hits = (await store.recall(request)).results
        assert sorted(h.content for h in hits) == expected, scope


async def test_a_passage_the_id_map_does_not_name_is_not_a_record(
    raw: LettaStore, store: CheckedStore
) -> None:
    """A passage written to the same Letta agent with a record's tags, but not by the store
    (or by a write that crashed before its map entry), is never read as a record."""
    await store.remember({"agent_id": "a", "type": "semantic", "content": "Alice likes coffee"})
    ghost = {"id": "ghost", "agent_id": "a", "type": "semantic", "content": "Alice likes tea",
             "metadata": {}, "confidence": 1.0, "created_at": 1, "updated_at": 1,
             "state": "active", "version": 1}  # fmt: skip
    letta_id = raw._worker.submit(raw._agent, "a", create=True).result()
    raw._client.agents.passages.create(
        letta_id, text=ghost["content"], tags=tags_of(ghost, write_tag())
    )
    hits = (await store.recall({"agent_id": "a", "query": "tea", "k": 5})).results
    assert [h.content for h in hits] == ["Alice likes coffee"]
    assert [r.content for r in (await store.list({"agent_id": "a"})).records] == [
        "Alice likes coffee"
    ]
    assert (await store.get({"agent_id": "a", "ids": ["ghost"]})).records == []


async def test_another_agent_cannot_forget_or_read_a_record(
    raw: LettaStore, store: CheckedStore
) -> None:
    """Letta deletes a passage by id whatever agent the request names; the store only
    deletes what its map gives the asking agent."""
    mine = await store.remember({"agent_id": "a", "type": "semantic", "content": "tea"})
    for hard in (False, True):
        answer = await store.forget({"agent_id": "b", "ids": [mine.id], "hard_delete": hard})
        assert answer.forgotten_ids == []
    assert (await store.get({"agent_id": "b", "ids": [mine.id]})).records == []
    assert [r.id for r in (await store.get({"agent_id": "a", "ids": [mine.id]})).records] == [
        mine.id
    ]
    assert len(_passages(raw, "a")) == 1


async def test_two_stores_on_one_server_do_not_see_each_other(
    store: CheckedStore, clock: Clock
) -> None:
    other = LettaStore.from_url(f"{server_url()}&ids=:memory:", clock=clock)
    try:
        await store.remember({"agent_id": "a", "type": "semantic", "content": "Alice likes tea"})
        found = await CheckedStore(other).recall({"agent_id": "a", "query": "tea"})
        assert found.results == []
    finally:
        await other.aclose()


async def test_a_policy_file_on_the_url_stages_writes_and_is_declared(tmp_path: Path) -> None:
    await a_policy_file_on_the_url_stages_writes(
        lambda policy: LettaStore.from_url(f"{server_url()}&ids=:memory:&policy={policy}"),
        tmp_path,
    )


async def test_a_failed_map_write_leaves_no_passage(
    raw: LettaStore, store: CheckedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(raw._ids, "put", broken)
    with pytest.raises(StoreError, match="disk full"):
        await store.remember({"agent_id": "a", "type": "semantic", "content": "Alice likes tea"})
    monkeypatch.undo()
    assert _passages(raw, "a") == []


async def test_a_write_whose_answer_is_lost_leaves_no_passage(
    raw: LettaStore, store: CheckedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The passage lands but the answer does not arrive (a timeout, a proxy's 502): the store
    finds it by its write tag and deletes it, so the failed write leaves nothing."""
    import httpx
    import letta_client

    create = raw._client.agents.passages.create

    def lost(*args: Any, **kwargs: Any) -> Any:
        create(*args, **kwargs)
        raise letta_client.APITimeoutError(httpx.Request("POST", "http://letta/"))

    monkeypatch.setattr(raw._client.agents.passages, "create", lost)
    with pytest.raises(MnemowireError) as failed:
        await store.remember({"agent_id": "a", "type": "semantic", "content": "Alice likes tea"})
    assert failed.value.code == "timeout"
    monkeypatch.undo()
    assert _passages(raw, "a") == []
    assert (await store.list({"agent_id": "a"})).records == []


async def test_ids_replay_conflict_and_are_never_reused(store: CheckedStore) -> None:
    first = {"agent_id": "a", "id": "r1", "type": "semantic", "content": "tea"}
    await store.remember(first)
    assert (await store.remember(first)).replayed
    with pytest.raises(ConflictError):
        await store.remember({**first, "agent_id": "b"})
    await store.forget({"agent_id": "a", "ids": ["r1"], "hard_delete": True})
    with pytest.raises(ConflictError):  # a forgotten record's id is not free again
        await store.remember({**first, "content": "coffee"})


async def test_a_changed_record_is_one_new_passage_and_the_old_one_is_gone(
    raw: LettaStore, store: CheckedStore
) -> None:
    staged = {"agent_id": "a", "id": "p1", "type": "semantic", "content": "Alice likes tea",
              "approval_required": True}  # fmt: skip
    assert (await store.remember(staged)).pending_approval
    assert (await store.recall({"agent_id": "a", "query": "tea"})).results == []
    before = [str(p.id) for p in _passages(raw, "a")]
    decision = {"review_id": "p1", "approved": True, "reviewer": "r"}
    with pytest.raises(NotFoundError):  # another agent's review
        await store.decide({**decision, "agent_id": "b"})
    assert (await store.decide({**decision, "agent_id": "a"})).changed_ids == ["p1"]
    after = [str(p.id) for p in _passages(raw, "a")]
    assert len(before) == len(after) == 1
    assert before != after
    await store.update({"agent_id": "a", "id": "p1", "expected_version": 1,
                        "content": "Alice likes coffee"})  # fmt: skip
    hits = (await store.recall({"agent_id": "a", "query": "coffee"})).results
    assert [(h.id, h.content) for h in hits] == [("p1", "Alice likes coffee")]
    assert [p.text for p in _passages(raw, "a")] == ["Alice likes coffee"]
    await store.forget({"agent_id": "a", "ids": ["p1"], "hard_delete": True})
    assert _passages(raw, "a") == []


async def test_a_hard_forget_leaves_the_words_nowhere_in_letta(store: CheckedStore) -> None:
    """What ``hard_delete`` promises: after it, no table of Letta's database holds the text,
    in the passage, its tags or anywhere else."""
    import psycopg

    words = "Zebulon keeps a quokka named Ferdinand"
    written = await store.remember({"agent_id": "a", "type": "semantic", "content": words,
                                    "metadata": {"note": words}})  # fmt: skip
    await store.recall({"agent_id": "a", "query": words})

    def holders() -> list[tuple[str, str]]:
        found = []
        with psycopg.connect(letta_database()) as db:
            columns = db.execute(
                "SELECT table_name, column_name FROM information_schema.columns WHERE "
                "table_schema = 'public' AND data_type IN "
                "('text', 'character varying', 'json', 'jsonb', 'ARRAY')"
            ).fetchall()
            for table, column in columns:
                query = f'SELECT count(*) FROM "{table}" WHERE "{column}"::text LIKE %s'
                row = db.execute(query, ("%quokka named Ferdinand%",)).fetchone()
                if row is not None and row[0]:
                    found.append((table, column))
        return found

    assert ("archival_passages", "text") in holders()
    await store.forget({"agent_id": "a", "ids": [written.id], "hard_delete": True})
    assert holders() == []


async def test_the_records_survive_a_reopen(tmp_path: Path, clock: Clock) -> None:
    url = f"{server_url()}&ids={tmp_path / 'ids.db'}&agent=reopen-{tmp_path.name[-12:]}"
    first = LettaStore.from_url(url, clock=clock)
    written = await CheckedStore(first).remember(
        {"agent_id": "a", "type": "semantic", "content": "Alice likes tea"}
    )
    await first.aclose()
    second = LettaStore.from_url(url, clock=clock)
    try:
        hits = (await CheckedStore(second).recall({"agent_id": "a", "query": "tea"})).results
        assert [h.id for h in hits] == [written.id]
        await CheckedStore(second).forget(
            {"agent_id": "a", "ids": [written.id], "hard_delete": True}
        )
    finally:
        await second.aclose()


async def test_a_throwaway_store_leaves_nothing_on_the_server(clock: Clock) -> None:
    store = LettaStore.from_url(f"{server_url()}&ids=:memory:", clock=clock)
    await CheckedStore(store).remember({"agent_id": "a", "type": "semantic", "content": "tea"})
    prefix, client = store._prefix, connect(store._base_url, 30.0, None)
    await store.aclose()
    assert [a for a in client.agents.list(limit=1000) if a.name.startswith(prefix)] == []
    client.close()


# -- a server that is down, silent or failing ----------------------------------------------------


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield listener.getsockname()[1]


@pytest.fixture
def failing_port() -> Iterator[int]:
    """A server that answers every request with HTTP 500."""

    class Failing(http.server.BaseHTTPRequestHandler):
        def _fail(self) -> None:
            body = b'{"detail": "database is down"}'
            self.send_response(500)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_DELETE = _fail

        def log_message(self, *_: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Failing)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _remember(url: str) -> tuple[MnemowireError, float]:
    store = LettaStore.from_url(f"{url}&ids=:memory:")
    started = time.monotonic()
    try:
        with pytest.raises(MnemowireError) as failed:
            await CheckedStore(store).remember({"agent_id": "a", "type": "semantic",
                                                "content": "tea"})  # fmt: skip
        return failed.value, time.monotonic() - started
    finally:
        await store.aclose()


async def test_a_server_that_is_down_is_unavailable_and_named() -> None:
    port = _closed_port()
    error, _ = await _remember(f"letta://127.0.0.1:{port}?timeout=3")
    assert isinstance(error, UnavailableError)
    assert f"127.0.0.1:{port}" in str(error)


async def test_a_silent_server_times_out_within_the_deadline(silent_port: int) -> None:
    error, took = await _remember(f"letta://127.0.0.1:{silent_port}?timeout=1.5")
    assert error.code == "timeout"
    assert f"127.0.0.1:{silent_port}" in str(error)
    assert took < 10  # three attempts of 0.5 s and the client's backoff, never a hang


async def test_a_server_answering_500_is_unavailable_with_its_words(failing_port: int) -> None:
    error, _ = await _remember(f"letta://127.0.0.1:{failing_port}?timeout=3")
    assert isinstance(error, UnavailableError)
    assert "HTTP 500" in str(error)
    assert "database is down" in str(error)
