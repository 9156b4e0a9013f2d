"""``letta://HOST:PORT``: a memorywire store over a real Letta server (letta 0.16.8), through
letta-client 1.12.1 (docs/adapters/letta.md).

Each record is one archival passage of a Letta agent: one Letta agent per memorywire agent,
named by a digest of the agent id under the store's prefix, created on its first write and
found again by name. The passage's text is the content; Letta keeps no metadata on agent
passages, so the rest of the record travels in tags (``_tags``): the whole record as JSON in
one, and the id in one of its own, which reads by id search for.

Letta mints passage ids, so the store keeps an id map (``kit.documents.IdMap``) in a SQLite
file on the store's machine, written after the passage and removed before it: a passage the map
does not name is not a record. Letta's own scoping is not trusted either (its delete ignores
the agent it is given, and deleting an agent leaves its passages): the store deletes only the
passages its map names, and reads only records whose tags carry the id the map gives them.

Letta's search ranks without scores, so the store keeps each passage's vector beside the map
(embedded with the model Letta embeds with, the project's own behind the endpoint the agent is
configured with) and a hit's relevance is its cosine similarity to the query. A record that
changes is a new passage, the map moved to it, then the old passage deleted (Letta cannot edit
a passage's tags). The operations themselves are the kit's ``DocumentStore``.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np
import platformdirs

from mnemowire import kit
from mnemowire.adapters.letta._client import connect, gone, letta_errors
from mnemowire.adapters.letta._tags import id_tag, record_of, tags_of, write_tag
from mnemowire.embedders import Embedder, Preparable, default_embedder
from mnemowire.errors import ConfigError, MnemowireError
from mnemowire.kit.documents import DECLINED, DocumentStore, Hit, IdMap, Record
from mnemowire.kit.staging import StagingRules
from mnemowire.models import (
    FIELD_FIDELITY_FIELDS,
    Capabilities,
    Fidelity,
    Health,
    HealthStatus,
    RecallRequest,
)
from mnemowire.protocol import QueryEmbedding

__all__ = ["LettaStore"]

#: written against spec v0.3: what the kit's DocumentStore serves, and what it declines
IMPLEMENTS = kit.Implements(
    "v0.3",
    (
        *("semantic", "episodic", "procedural", "emotional", "vector", "user_scope"),
        *("metadata_filter", "freshness", "expiry", "forget", "merge", "expire", "hard_delete"),
        *("governance", "relevance", "client_ids", "get", "list", "update", "seals", "reviews"),
        *("decide", "staging_policy", "export_records", "import_records", "scopes"),
    ),
    declined={
        **DECLINED,
        "fts": "Letta's archival search offers no keyword search",
        "graph": "Letta keeps no links between passages",
    },
)
#: Letta's own field is the passage's text; the agent is a Letta agent named by a digest, so
#: it reads back from the record's tag like the rest
FIDELITY = {f: Fidelity.ENCODED for f in FIELD_FIDELITY_FIELDS if f != "content"}
#: where Letta embeds when the URL names no endpoint: `python -m mnemowire.apps.tools.embeddings`
DEFAULT_EMBEDDING = "http://127.0.0.1:8399/v1"
URL_OPTIONS = {
    "name": kit.text,
    "agent": kit.text,
    "embedding": kit.text,
    "ids": kit.text,
    "timeout": kit.number(minimum=0.001),
    "token_env": kit.text,
    "policy": kit.text,
}
#: Letta's passage search returns at most this many per call
_SEARCH_MOST = 100
#: passages per page when listing an agent's archive
_PAGE = 500


def _letta_name(prefix: str, agent_id: str) -> str:
    """A Letta agent name for a memorywire agent: Letta allows letters, digits, spaces, hyphens,
    underscores and apostrophes, and agent ids are any text."""
    return f"{prefix}-{hashlib.blake2b(agent_id.encode(), digest_size=16).hexdigest()}"


class LettaStore(DocumentStore):
    """Records as archival passages on the Letta server at ``base_url``. ``ids``: the id map's
    file (default: one per server and prefix in the user's data folder); ``:memory:`` makes a
    throwaway store (its own random prefix, every passage and agent deleted on close)."""

    backend = "letta"

    def __init__(
        self,
        base_url: str,
        *,
        name: str | None = None,
        prefix: str = "mnemowire",
        embedding: str = DEFAULT_EMBEDDING,
        ids: str | Path | None = None,
        timeout_s: float = 30.0,
        token_env: str | None = None,
        embedder: Embedder | None = None,
        policy: StagingRules | None = None,
        clock: Callable[[], int] = kit.now_ms,
    ) -> None:
        location = urlsplit(base_url).netloc
        super().__init__(name or f"letta://{location}", clock, policy=policy)
        if re.fullmatch(r"[A-Za-z0-9_-]{1,40}", prefix) is None:
            raise ConfigError(
                f"{self._name}: ?agent={prefix!r}: a Letta agent name prefix is 1-40 letters, "
                "digits, hyphens or underscores"
            )
        self._base_url = base_url
        self._throwaway = str(ids) == ":memory:"
        self._prefix = f"{prefix}-{secrets.token_hex(6)}" if self._throwaway else prefix
        self._embedding_url = embedding
        self._timeout = timeout_s
        self._embedder = embedder or default_embedder()
        if isinstance(self._embedder, Preparable):
            self._embedder.prepare()
        self._embedding = ThreadPoolExecutor(max_workers=1, thread_name_prefix="letta-embed")
        if self._throwaway:
            self._ids_file = Path(tempfile.mkdtemp(prefix="mnemowire-letta-")) / "ids.db"
        elif ids is not None:
            self._ids_file = Path(ids)
        else:
            home = Path(platformdirs.user_data_dir("mnemowire")) / "letta"
            host = re.sub(r"[^A-Za-z0-9_.-]", "_", location)
            self._ids_file = home / f"{host}-{prefix}.db"
        try:
            self._ids_file.parent.mkdir(parents=True, exist_ok=True)
            self._ids = IdMap(self._ids_file)
            self._db = sqlite3.connect(
                self._ids_file, isolation_level=None, check_same_thread=False
            )
            # what this connection keeps can be made again (a vector by embedding, an agent
            # by its name): a commit need not wait for the disk
            self._db.execute("PRAGMA synchronous=OFF")
            self._db.executescript(
                "CREATE TABLE IF NOT EXISTS letta_agents (agent_id TEXT PRIMARY KEY, "
                "letta_id TEXT NOT NULL);"
                "CREATE TABLE IF NOT EXISTS vectors (backend_id TEXT PRIMARY KEY, "
                "vector BLOB NOT NULL);"
            )
        except (OSError, sqlite3.Error) as exc:
            self._worker.shutdown()
            self._embedding.shutdown()
            raise ConfigError(
                f"{self._name}: cannot open the id map {self._ids_file}: {exc}; give another "
                "file with ?ids=PATH"
            ) from exc
        self._client = connect(base_url, timeout_s, token_env)

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        embedder: Embedder | None = None,
        clock: Callable[[], int] = kit.now_ms,
    ) -> LettaStore:
        """``letta://HOST:PORT``; options ``agent`` (the prefix of the Letta agents' names,
        default ``mnemowire``), ``embedding`` (the OpenAI-compatible endpoint Letta embeds
        with), ``ids`` (the id map's file, or ``:memory:``), ``timeout`` (seconds each Letta
        call may take, its retries included; default 30), ``token_env`` (the variable holding the
        server's password, for a server started with ``--secure``), ``policy`` (a staging
        policy's JSON file: docs/governance.md#policy) and ``name``."""
        location, _, query = url.removeprefix("letta://").partition("?")
        if not location or "/" in location:
            raise ConfigError(f"{url!r}: write letta://HOST:PORT")
        options, _ = kit.url_options(url, query, URL_OPTIONS)
        return cls(
            f"http://{location}",
            name=options.get("name"),
            prefix=options.get("agent", "mnemowire"),
            embedding=options.get("embedding", DEFAULT_EMBEDDING),
            ids=options.get("ids"),
            timeout_s=options.get("timeout", 30.0),
            token_env=options.get("token_env"),
            embedder=embedder,
            policy=StagingRules.named_by(options),
            clock=clock,
        )

    def capabilities(self) -> Capabilities:
        return self._declare(IMPLEMENTS, FIDELITY)

    async def health(self) -> Health:
        started = time.perf_counter()
        try:
            answer = await self._run(self._health)
        except MnemowireError as exc:
            return Health(store=self._name, status=HealthStatus.DOWN, details={"error": str(exc)})
        return Health(
            store=self._name,
            status=HealthStatus.OK,
            latency_ms=kit.elapsed_ms(started),
            details={"backend": f"letta {answer.version} at {self._base_url}"},
        )

    def _close(self) -> None:
        try:
            if self._throwaway:
                self._discard()
        finally:
            self._db.close()
            self._ids.close(delete=self._throwaway)
            self._client.close()
            self._embedding.shutdown()
            if self._throwaway:
                self._ids_file.parent.rmdir()

    def _discard(self) -> None:
        """A throwaway store's passages and agents, deleted (the passages first: deleting an
        agent leaves its passages behind)."""
        rows = self._db.execute("SELECT agent_id, letta_id FROM letta_agents").fetchall()
        for _, letta_id in rows:
            for passage in list(self._pages(letta_id)):
                self._delete(letta_id, str(passage.id))
            with self._errors():
                self._client.agents.delete(letta_id)

    # -- Letta's calls ----------------------------------------------------------------------------

    def _errors(self) -> AbstractContextManager[None]:
        return letta_errors(self._name, self._base_url, self._timeout)

    def _health(self) -> Any:
        with self._errors():
            return self._client.health()

    def _agent(self, agent_id: str, *, create: bool) -> str | None:
        """The Letta agent holding ``agent_id``'s passages: remembered, else found by name,
        else (``create``) made."""
        row = self._db.execute(
            "SELECT letta_id FROM letta_agents WHERE agent_id = ?", (agent_id,)
        ).fetchone()
        if row is not None:
            return str(row[0])
        name = _letta_name(self._prefix, agent_id)
        with self._errors():
            found = list(self._client.agents.list(name=name, limit=1))
        if found:
            letta_id = str(found[0].id)
        elif not create:
            return None
        else:
            with self._errors():
                letta_id = str(self._client.agents.create(**self.agent_config(name)).id)
        self._db.execute(
            "INSERT OR REPLACE INTO letta_agents (agent_id, letta_id) VALUES (?, ?)",
            (agent_id, letta_id),
        )
        return letta_id

    @property
    def base_url(self) -> str:
        """The Letta server's address."""
        return self._base_url

    def agent_config(self, name: str) -> dict[str, Any]:
        """``agents.create``'s arguments for a Letta agent that embeds with the store's model
        at the store's endpoint. Its LLM points there too: archival memory never calls it, and
        no other endpoint is reachable."""
        endpoint = self._embedding_url
        return {
            "name": name,
            "include_base_tools": False,
            "llm_config": {
                "model": "none",
                "model_endpoint_type": "openai",
                "model_endpoint": endpoint,
                "context_window": 8192,
            },
            "embedding_config": {
                "embedding_endpoint_type": "openai",
                "embedding_endpoint": endpoint,
                "embedding_model": self._embedder.name,
                "embedding_dim": self._embedder.dimension,
                "embedding_chunk_size": 300,
            },
        }

    def _pages(self, letta_id: str) -> Iterable[Any]:
        where: dict[str, str] = {}
        while True:
            with self._errors():
                page = self._client.agents.passages.list(
                    letta_id, limit=_PAGE, ascending=True, **where
                )
            yield from page
            if len(page) < _PAGE:
                return
            where["after"] = str(page[-1].id)

    def _delete(self, letta_id: str, backend_id: str) -> None:
        with self._errors():
            try:
                self._client.agents.passages.delete(backend_id, agent_id=letta_id)
            except Exception as exc:
                if not gone(exc):
                    raise
        self._db.execute("DELETE FROM vectors WHERE backend_id = ?", (backend_id,))

    def _records(self, passages: Iterable[tuple[str, str, list[str] | None]]) -> list[Record]:
        """Records of (passage id, text, tags) the id map names."""
        passages = list(passages)
        owners = self._ids.owners([pid for pid, _, _ in passages])
        found = (record_of(text, tags, pid, owners) for pid, text, tags in passages)
        return [r for r in found if r is not None]

    def _listed(
        self, agent_id: str, user_id: str | None, states: Sequence[str] | None = None
    ) -> list[Record]:
        letta_id = self._agent(agent_id, create=False)
        if letta_id is None:
            return []
        return self._records((str(p.id), p.text, p.tags) for p in self._pages(letta_id))

    def _named(self, ids: Iterable[str]) -> dict[str, Record]:
        wanted: dict[str, list[str]] = {}  # agent -> ids
        for record_id in dict.fromkeys(ids):
            mapped = self._ids.get(record_id)
            if mapped is not None and mapped.backend_id is not None:
                wanted.setdefault(mapped.agent_id, []).append(record_id)
        found: dict[str, Record] = {}
        for agent_id, record_ids in wanted.items():
            letta_id = self._agent(agent_id, create=False)
            if letta_id is None:
                continue
            # a quarter of a search's room per call: a record whose rewrite was cut short
            # may have a second passage with its id tag
            for start in range(0, len(record_ids), _SEARCH_MOST // 4):
                tags = [id_tag(i) for i in record_ids[start : start + _SEARCH_MOST // 4]]
                with self._errors():
                    hits = self._client.passages.search(
                        agent_id=letta_id, tags=tags, tag_match_mode="any", limit=_SEARCH_MOST
                    )
                passages = ((str(h.passage.id), h.passage.text, h.passage.tags) for h in hits)
                found.update((r["id"], r) for r in self._records(passages))
        return found

    def _add(self, record: Record, vector: np.ndarray[Any, Any] | None = None) -> str:
        """``record`` as a new passage, with its vector kept; the passage's id. A write whose
        answer is lost (a timeout, a 5xx after the insert) is looked for by its write tag and
        deleted, so no passage outlives a failed write."""
        letta_id = self._agent(record["agent_id"], create=True)
        assert letta_id is not None
        embedding = self._embedded(record["content"]) if vector is None else None
        write = write_tag()
        try:
            with self._errors():
                made = self._client.agents.passages.create(
                    letta_id, text=record["content"], tags=tags_of(record, write)
                )
        except MnemowireError:
            self._undo(letta_id, write)
            raise
        backend_id = str(made[0].id)
        try:
            self._keep_vector(backend_id, vector if embedding is None else embedding.result())
        except Exception:
            self._delete(letta_id, backend_id)
            raise
        return backend_id

    def _undo(self, letta_id: str, write: str) -> None:
        try:
            with self._errors():
                hits = self._client.passages.search(
                    agent_id=letta_id, tags=[write], limit=_SEARCH_MOST
                )
            for hit in hits:
                self._delete(letta_id, str(hit.passage.id))
        except MnemowireError:
            pass  # the server is away: the passage, if any, is one the id map never names

    def _insert(self, record: Record) -> str:
        return self._add(record)

    def _rewrite(self, record: Record, *, text: str | None = None) -> None:
        kept = (
            None
            if text is not None
            else self._vectors([record["backend_id"]]).get(record["backend_id"])
        )
        changed = {**record, "content": text} if text is not None else record
        new_id = self._add(changed, kept)
        self._ids.move(record["id"], new_id)  # from now on the new passage is the record
        self._erase(record)

    def _erase(self, record: Record) -> None:
        letta_id = self._agent(record["agent_id"], create=False)
        if letta_id is not None:
            self._delete(letta_id, record["backend_id"])

    def _embedded(self, text: str) -> Future[np.ndarray[Any, Any]]:
        """``text``'s vector, made on the embedding thread while Letta answers the request
        sent meanwhile (the two overlap: Letta's work is in another process)."""
        return self._embedding.submit(lambda: self._embedder.embed([text])[0])

    def _keep_vector(self, backend_id: str, vector: np.ndarray[Any, Any] | None) -> None:
        assert vector is not None
        self._db.execute(
            "INSERT OR REPLACE INTO vectors (backend_id, vector) VALUES (?, ?)",
            (backend_id, np.asarray(vector, dtype=np.float32).tobytes()),
        )

    def _takes(self, query_vector: QueryEmbedding | None) -> bool:
        """Whether a caller's vector (a router's) is one the store's embedder would make."""
        return query_vector is not None and query_vector.embedder == self._embedder.name

    def _query(
        self, req: RecallRequest, given: QueryEmbedding | None
    ) -> Future[np.ndarray[Any, Any]]:
        """The query's vector, on its way: embedded while Letta searches (Letta embeds the
        query text itself; the store's vector only scores what Letta found)."""
        if given is None:
            return self._embedded(req.query)
        ready: Future[np.ndarray[Any, Any]] = Future()
        ready.set_result(np.asarray(given.vector, dtype=np.float32).reshape(-1))
        return ready

    def _first_depth(self, k: int) -> int:
        """k: Letta ranks by the same cosine the store scores with, so its first k are the
        recall's unless the store's filters drop some, and each hit it returns costs it (20
        cost 8 ms more than 5 per search here); a recall left short searches deeper."""
        return k

    def _search(
        self, query: Future[np.ndarray[Any, Any]], req: RecallRequest, depth: int
    ) -> tuple[list[Hit], bool]:
        letta_id = self._agent(req.agent_id, create=False)
        if letta_id is None:
            return [], True
        # no tag filter: Letta applies it after taking top_k, so a filtered search would come
        # back short and look exhausted; the kit filters the user and types exactly instead
        with self._errors():
            found = self._client.agents.passages.search(
                letta_id, query=req.query, top_k=depth
            ).results
        records = self._records((str(r.id), r.content, r.tags) for r in found)
        kept = self._vectors([r["backend_id"] for r in records])
        vector = query.result()
        hits = [(r, self._relevance(vector, r, kept.get(r["backend_id"]))) for r in records]
        return hits, len(found) < depth

    def _vectors(self, backend_ids: Sequence[str]) -> dict[str, np.ndarray[Any, Any]]:
        marks = ",".join("?" * len(backend_ids))
        rows = self._db.execute(
            f"SELECT backend_id, vector FROM vectors WHERE backend_id IN ({marks})", backend_ids
        ).fetchall()
        return {row[0]: np.frombuffer(row[1], dtype=np.float32) for row in rows}

    def _relevance(
        self, query: np.ndarray[Any, Any], record: Record, vector: np.ndarray[Any, Any] | None
    ) -> float:
        if vector is None:  # a map written before its vector (or a lost file): embed again
            vector = self._embedded(record["content"]).result()
            self._keep_vector(record["backend_id"], vector)
        return max(-1.0, min(1.0, float(vector @ query)))
