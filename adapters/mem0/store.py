"""``mem0://FOLDER``: a memorywire store over the real mem0 library (mem0ai 2.2.1), offline
(docs/adapters/mem0.md).

Each record is one mem0 memory, written by ``Memory.add(..., infer=False)`` (the wire's
remember stores what it is given; no LLM is reachable here). What mem0 holds natively: the
content (mem0's ``memory`` text, embedded by mem0's own embedder), the agent and the user (as
mem0's ``agent_id`` / ``user_id`` scopes). Everything else the wire carries (type, metadata,
confidence, source, times in milliseconds, expiry, the emotional and episodic fields, state)
travels in mem0's metadata as one JSON text, ``mw_record``, read back exactly; the three
fields recall filters on natively sit beside it (``mw_id``, ``mw_type``, ``mw_state``).

Scope is exact: mem0's filters narrow a search to the agent, user, types and live records,
and the adapter applies the rest (metadata filters, freshness, expiry, ``min_relevance``) to
what comes back, fetching deeper until it has ``k`` hits or the agent has no more. Recall
embeds through mem0's embedder and searches mem0's vector store, the two calls
``Memory.search`` makes, without its threshold, which drops every hit whose cosine
similarity is negative even at ``threshold=0.0``.

The operations themselves, and the id map mem0's own ids need, are the store kit's
``DocumentStore`` (``mnemowire.kit.documents``): this module supplies mem0's calls.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mnemowire import kit
from mnemowire.adapters.mem0._backend import close_memory, entity, open_memory
from mnemowire.adapters.mem0._rows import payload_of, record_of, unit
from mnemowire.embedders import MINILM_NAME, Embedder
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

__all__ = ["Mem0Store"]

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
        "fts": "mem0's BM25 needs fastembed, which downloads a model",
        "graph": "mem0's graph memory needs an LLM",
    },
)
#: mem0's own fields: the text and the agent and user scopes; the rest is ``mw_record``
_NATIVE = ("content", "agent_id", "user_id")
FIDELITY = {f: Fidelity.ENCODED for f in FIELD_FIDELITY_FIELDS if f not in _NATIVE}
URL_OPTIONS = {"name": kit.text, "model": kit.text, "policy": kit.text}
#: as many rows as one listing may return (mem0's get_all has no paging)
_ALL = 1_000_000


class Mem0Store(DocumentStore):
    """Records in mem0, in ``folder`` (``:memory:``: a fresh temporary folder, removed on
    close). One store per folder per process: qdrant's local mode locks its folder."""

    backend = "mem0"

    def __init__(
        self,
        folder: str | Path,
        *,
        name: str | None = None,
        model: str | None = None,
        policy: StagingRules | None = None,
        clock: Callable[[], int] = kit.now_ms,
    ) -> None:
        self._temporary = str(folder) == ":memory:"
        self._folder = (
            Path(tempfile.mkdtemp(prefix="mnemowire-mem0-")) if self._temporary else Path(folder)
        )
        super().__init__(
            name or ("mem0://:memory:" if self._temporary else f"mem0://{folder}"),
            clock,
            policy=policy,
        )
        self._model = model
        memory = None
        try:
            memory = open_memory(self._folder, model=model)
            self._ids = IdMap(self._folder / "mnemowire-ids.db")
        except Exception as exc:  # mem0's own failures too (a locked folder, a bad model path)
            if memory is not None:
                close_memory(memory)  # its folder lock, or the next open fails
            self._worker.shutdown()
            self._discard()
            if isinstance(exc, MnemowireError):
                raise
            raise ConfigError(f"{self._name}: mem0 would not open: {exc}") from exc
        self._memory = memory

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        embedder: Embedder | None = None,
        clock: Callable[[], int] = kit.now_ms,
    ) -> Mem0Store:
        """``mem0://FOLDER`` or ``mem0://:memory:``; options ``name``, ``model`` (a folder
        with a sentence-transformers model; default all-MiniLM-L6-v2 from its wheel),
        ``policy`` (a staging policy's JSON file: docs/governance.md#policy). An
        ``embedder`` is accepted when it is that same model (mem0 embeds with its own copy)."""
        location, _, query = url.removeprefix("mem0://").partition("?")
        if not location:
            raise ConfigError(f"{url!r}: write mem0://FOLDER or mem0://:memory:")
        options, _ = kit.url_options(url, query, URL_OPTIONS)
        if embedder is not None and (embedder.name != MINILM_NAME or "model" in options):
            raise ConfigError(
                f"the mem0 store embeds with mem0's own embedder (all-MiniLM-L6-v2 through its "
                f"huggingface provider, or ?model=PATH), not {embedder.name}; leave out "
                "--embedder"
            )
        return cls(
            location,
            name=options.get("name"),
            model=options.get("model"),
            policy=StagingRules.named_by(options),
            clock=clock,
        )

    def capabilities(self) -> Capabilities:
        return self._declare(IMPLEMENTS, FIDELITY)

    async def health(self) -> Health:
        started = time.perf_counter()
        try:
            count = await self._run(lambda: self._memory.vector_store.client.count(
                collection_name=self._memory.vector_store.collection_name).count)  # fmt: skip
        except MnemowireError as exc:
            return Health(store=self._name, status=HealthStatus.DOWN, details={"error": str(exc)})
        return Health(
            store=self._name,
            status=HealthStatus.OK,
            latency_ms=kit.elapsed_ms(started),
            details={"backend": "mem0ai 2.2.1, qdrant local", "rows": count},
        )

    def _close(self) -> None:
        close_memory(self._memory)
        self._ids.close()
        self._discard()

    def _discard(self) -> None:
        if self._temporary:
            shutil.rmtree(self._folder, ignore_errors=True)

    # -- mem0's calls -----------------------------------------------------------------------------

    def _records(self, rows: Iterable[dict[str, Any]]) -> list[Record]:
        rows = list(rows)
        owners = self._ids.owners([str(row["id"]) for row in rows])
        return [r for r in (record_of(row, owners) for row in rows) if r is not None]

    def _scope(self, agent_id: str, user_id: str | None) -> dict[str, Any]:
        scope: dict[str, Any] = {"agent_id": entity(agent_id)}
        if user_id is not None:
            scope["user_id"] = entity(user_id)
        return scope

    def _listed(
        self, agent_id: str, user_id: str | None, states: Sequence[str] | None = None
    ) -> list[Record]:
        scope = self._scope(agent_id, user_id)
        if states is not None:
            scope["mw_state"] = {"in": list(states)}
        rows = self._memory.get_all(filters=scope, top_k=_ALL, show_expired=True)["results"]
        return self._records(rows)

    def _named(self, ids: Iterable[str]) -> dict[str, Record]:
        found: dict[str, Record] = {}
        for record_id in dict.fromkeys(ids):
            mapped = self._ids.get(record_id)
            if mapped is None or mapped.backend_id is None:
                continue
            row = self._memory.get(mapped.backend_id)
            record = None if row is None else record_of(row, {mapped.backend_id: record_id})
            if record is not None:
                found[record_id] = record
        return found

    def _insert(self, record: Record) -> str:
        user = record.get("user_id")
        added = self._memory.add(
            record["content"],
            agent_id=entity(record["agent_id"]),
            user_id=entity(user) if user is not None else None,
            metadata=payload_of(record),
            infer=False,
        )
        return str(added["results"][0]["id"])

    def _rewrite(self, record: Record, *, text: str | None = None) -> None:
        self._memory.update(record["backend_id"], text=text, metadata=payload_of(record))

    def _erase(self, record: Record) -> None:
        self._memory.delete(record["backend_id"])

    def _takes(self, query_vector: QueryEmbedding | None) -> bool:
        """Whether a caller's vector (a router's, embedded once for its children) is the one
        mem0 would make: the same model (mem0's default) makes the same vector."""
        return (
            query_vector is not None
            and self._model is None
            and query_vector.embedder == MINILM_NAME
        )

    def _query(self, req: RecallRequest, given: QueryEmbedding | None) -> np.ndarray[Any, Any]:
        if given is not None:
            return unit(given.vector)
        return unit(self._memory.embedding_model.embed(req.query, "search"))

    def _search(
        self, query: np.ndarray[Any, Any], req: RecallRequest, depth: int
    ) -> tuple[list[Hit], bool]:
        # mem0's filter narrows to the agent, user and types; the state is checked by the kit,
        # not here: qdrant's local mode evaluates each condition in Python over every point,
        # and nearly every record is active
        scope = self._scope(req.agent_id, req.user_id)
        if req.types:
            scope["mw_type"] = {"in": [str(t) for t in req.types]}
        found = self._memory.vector_store.search(
            query=req.query, vectors=query.tolist(), top_k=depth, filters=scope
        )
        rows = [
            {"id": hit.id, "memory": hit.payload.get("data", ""), "metadata": hit.payload}
            for hit in found
        ]
        scores = self._similarities(query, [hit.id for hit in found])
        hits = [(record, scores[record["backend_id"]]) for record in self._records(rows)]
        return hits, len(found) < depth

    def _similarities(self, query: np.ndarray[Any, Any], ids: list[Any]) -> dict[str, float]:
        """Cosine similarity of the query to each row, in float32 from the stored vectors.
        qdrant's local mode scores a point it has just stored with a slightly different float
        the first time it is searched (0.37012337, then 0.3701234 for the same query), so a
        recall would not answer the same twice; the stored vectors do not change."""
        store = self._memory.vector_store
        points = store.client.retrieve(store.collection_name, ids, with_vectors=True)
        out = {}
        for point in points:
            stored = point.vector[""] if isinstance(point.vector, dict) else point.vector
            similarity = float(unit(stored) @ query)
            out[str(point.id)] = max(-1.0, min(1.0, similarity))
        return out
