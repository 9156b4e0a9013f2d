"""The router's recall helpers: the shared query embedding, and fusing the children's lists
into one ranked, deduplicated list of hits."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from mnemowire.embedders import Embedder
from mnemowire.fusion import max_fusion, rrf, weighted_fusion
from mnemowire.models import RecallHit
from mnemowire.protocol import MemoryStore, QueryVector

__all__ = ["Fused", "fuse", "query_vectors", "vector_for"]


async def query_vectors(
    children: Sequence[MemoryStore], query: str, given: QueryVector | None
) -> dict[str, QueryVector]:
    """One query embedding per distinct embedder name among the children that expose an
    ``embedder`` (a ``given`` vector counts as computed). An embedder that fails or answers a
    wrong shape is left out: the children that use it embed the query themselves."""
    embedders: dict[str, Embedder] = {}
    for child in children:
        embedder = embedder_of(child)
        if embedder is not None:
            embedders.setdefault(embedder.name, embedder)
    vectors: dict[str, QueryVector] = {}
    if given is not None:
        vectors[given.embedder] = given
    todo = [e for name, e in embedders.items() if name not in vectors]
    computed = await asyncio.gather(
        *(asyncio.to_thread(e.embed, [query]) for e in todo), return_exceptions=True
    )
    for embedder, result in zip(todo, computed, strict=True):
        if isinstance(result, BaseException):
            continue
        vector = np.asarray(result, dtype=np.float32)
        if vector.shape == (1, embedder.dimension) and bool(np.isfinite(vector).all()):
            vectors[embedder.name] = QueryVector(embedder.name, vector)
    return vectors


def embedder_of(child: MemoryStore) -> Embedder | None:
    """The child's ``embedder`` if it has one. Checked by hand: ``isinstance`` against the
    runtime-checkable Embedder protocol costs ~50 µs, paid per child on every recall."""
    embedder = getattr(child, "embedder", None)
    if (
        isinstance(getattr(embedder, "name", None), str)
        and isinstance(getattr(embedder, "dimension", None), int)
        and callable(getattr(embedder, "embed", None))
    ):
        return cast(Embedder, embedder)
    return None


def vector_for(child: MemoryStore, vectors: Mapping[str, QueryVector]) -> QueryVector | None:
    """The query vector for one child: its embedder's, or, for a child without an ``embedder``
    (a nested router), the first one, which it may reuse or ignore. Each child gets its own
    copy of the array, so no child can change what another one receives."""
    embedder = embedder_of(child)
    if embedder is not None:
        chosen = vectors.get(embedder.name)
    else:
        chosen = next(iter(vectors.values()), None)
    if chosen is None:
        return None
    return QueryVector(chosen.embedder, np.array(chosen.vector, dtype=np.float32, copy=True))


@dataclass
class Fused:
    """The children's lists fused: a score per record id, which children returned it, and the
    best-ranked child's copy (what the router returns)."""

    scores: dict[str, float]
    supporting: dict[str, list[str]] = field(default_factory=dict)
    #: id -> (child name, that child's hit)
    best: dict[str, tuple[str, RecallHit]] = field(default_factory=dict)

    def hits(self, k: int) -> list[RecallHit]:
        """The top ``k`` as the router's hits, best first (ties by id, so the order never
        depends on which child answered first)."""
        ranked = sorted(self.scores.items(), key=lambda item: (-item[1], item[0]))[:k]
        return [
            self.best[i][1].model_copy(
                update={
                    "score": score,
                    "supporting": list(self.supporting[i]),
                    "source_store": self.best[i][0],
                }
            )
            for i, score in ranked
        ]


def fuse(
    fusion: str,
    lists: Mapping[str, Sequence[RecallHit]],
    *,
    weights: Mapping[str, float],
    quorum: int | None,
) -> Fused:
    """Fuse each child's hits (child name -> hits, best first, in the router's child order) by
    ``fusion``; with ``quorum``, drop ids fewer than that many children returned."""
    if fusion == "max":
        scores = max_fusion([[(h.id, h.score) for h in hits] for hits in lists.values()])
    elif fusion == "weighted":
        scores = weighted_fusion(
            (weights.get(store, 1.0), [(h.id, h.score) for h in hits])
            for store, hits in lists.items()
        )
    else:
        scores = rrf([[h.id for h in hits] for hits in lists.values()])
    fused = Fused(scores)
    place: dict[str, tuple[int, int]] = {}
    for order, (store, hits) in enumerate(lists.items()):
        for rank, hit in enumerate(hits):
            stores = fused.supporting.setdefault(hit.id, [])
            if store not in stores:
                stores.append(store)
            if hit.id not in place or (rank, order) < place[hit.id]:
                place[hit.id] = (rank, order)
                fused.best[hit.id] = (store, hit)
    if fusion not in ("max", "weighted"):  # ranks drop the stores' demotion: put it back
        fused.scores = {i: s * (fused.best[i][1].demote or 1.0) for i, s in fused.scores.items()}
    if quorum is not None:
        fused.scores = {i: s for i, s in fused.scores.items() if len(fused.supporting[i]) >= quorum}
    return fused
