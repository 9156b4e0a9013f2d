"""The router's recall helpers: the shared query embedding, and fusing the children's lists
into one ranked, deduplicated list of hits."""

from __future__ import annotations

import asyncio
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from mnemowire.embedders import Embedder
from mnemowire.errors import UnsupportedError
from mnemowire.fusion import max_fusion, rrf, weighted_fusion
from mnemowire.kit import embed
from mnemowire.models import RecallHit, RememberRequest
from mnemowire.protocol import MemoryStore, QueryEmbedding

__all__ = ["COPY_FIELDS", "Fused", "fuse", "query_vectors", "refuse_foreign_vector", "vector_for"]


async def query_vectors(
    children: Sequence[MemoryStore], query: str, given: QueryEmbedding | None
) -> dict[str, QueryEmbedding]:
    """One query embedding per distinct embedder name among the children that expose an
    ``embedder`` (a ``given`` vector counts as computed). An embedder that fails or answers a
    wrong shape is left out: the children that use it embed the query themselves."""
    embedders: dict[str, Embedder] = {}
    for child in children:
        embedder = embedder_of(child)
        if embedder is not None:
            embedders.setdefault(embedder.name, embedder)
    vectors: dict[str, QueryEmbedding] = {}
    if given is not None:
        vectors[given.embedder] = given
    todo = [e for name, e in embedders.items() if name not in vectors]
    computed = await asyncio.gather(*(embed(e, [query]) for e in todo), return_exceptions=True)
    for embedder, result in zip(todo, computed, strict=True):
        if isinstance(result, BaseException):
            continue
        vector = np.asarray(result, dtype=np.float32)
        if vector.shape == (1, embedder.dimension) and bool(np.isfinite(vector).all()):
            vectors[embedder.name] = QueryEmbedding(embedder.name, vector)
    return vectors


def refuse_foreign_vector(router: str, children: Sequence[MemoryStore], name: str) -> None:
    """A caller's query vector that no child's embedder made (and no child could judge: every
    child's embedder is known) is refused, as a store refuses one ([recall.query-vector]).
    ``children``: those that take query vectors; the others embed the query text themselves,
    and their embedder, known or not, has nothing to say about the vector."""
    embedders = [embedder_of(child) for child in children]
    if all(e is not None for e in embedders) and name not in {e.name for e in embedders if e}:
        raise UnsupportedError(
            f"query_vector comes from {name!r}, which no store of {router} embeds with "
            f"({', '.join(sorted({e.name for e in embedders if e}))}); leave query_vector out",
            details=[{"path": "/query_vector/embedder", "rule": "unsupported",
                      "message": "no store embeds with this embedder"}],
        )  # fmt: skip


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


def vector_for(child: MemoryStore, vectors: Mapping[str, QueryEmbedding]) -> QueryEmbedding | None:
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
    return QueryEmbedding(chosen.embedder, np.array(chosen.vector, dtype=np.float32, copy=True))


#: what a copy of a record is: the fields a remember writes ([remember.fields]), not when or
#: where a store stored it, nor how it ranked, nor how the remember asked to be written
COPY_FIELDS = tuple(
    name
    for name in RememberRequest.model_fields
    if name not in ("agent_id", "id", "approval_required", "dedupe")
)


_copy_key = operator.itemgetter(*COPY_FIELDS)


@dataclass
class Fused:
    """The children's lists fused: a score per record id, the children vouching for the copy
    returned (``supporting``), that copy (from the best-ranked of them), and the children whose
    copy of a returned record differed from it (``disagreed``, child -> ids)."""

    scores: dict[str, float]
    supporting: dict[str, list[str]] = field(default_factory=dict)
    #: id -> (child name, that child's hit)
    best: dict[str, tuple[str, RecallHit]] = field(default_factory=dict)
    #: id -> the demote factor applied (the supporters' upper median)
    demote: dict[str, float] = field(default_factory=dict)
    disagreed: dict[str, list[str]] = field(default_factory=dict)

    def hits(self, k: int) -> list[RecallHit]:
        """The top ``k`` as the router's hits, best first (ties by id, so the order never
        depends on which child answered first)."""
        ranked = sorted(self.scores.items(), key=lambda item: (-item[1], item[0]))[:k]
        return [self._hit(i, score) for i, score in ranked]

    def _hit(self, record_id: str, score: float) -> RecallHit:
        store, hit = self.best[record_id]
        update: dict[str, Any] = {
            "score": score,
            "supporting": list(self.supporting[record_id]),
            "source_store": store,
        }
        factor = self.demote.get(record_id, 1.0)
        if factor != 1.0:
            update["demote"] = factor
        elif hit.demote is not None:  # its own factor was outvoted: the hit carries none
            wire = {k: v for k, v in hit.model_dump(exclude_unset=True).items() if k != "demote"}
            return RecallHit.model_validate({**wire, **update})
        return hit.model_copy(update=update)


def fuse(
    fusion: str,
    lists: Mapping[str, Sequence[RecallHit]],
    *,
    weights: Mapping[str, float],
    quorum: int | None,
) -> Fused:
    """Fuse each child's hits (child name -> hits, best first, in the router's child order) by
    ``fusion``; with ``quorum``, drop ids fewer than that many children vouch for.

    One child must not replace or suppress what the others returned ([router.copies]): when
    children's copies of one id differ, the copy most of them hold is returned (a tie goes to
    the child first in the router's order, never to whichever ranked it best, which a liar
    can always do), only its holders are ``supporting`` (and count for the quorum), and the
    others are reported in ``disagreed``. Under rrf the fused score is multiplied by the upper
    median of the supporters' demote factors, so one child's factor cannot sink a record the
    others vouch for (under max and weighted the children's scores carry their own factors).
    """
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
    copies: dict[str, list[tuple[int, int, str, RecallHit]]] = {}
    for order, (store, hits) in enumerate(lists.items()):
        seen: set[str] = set()
        for rank, hit in enumerate(hits):
            if hit.id not in seen:  # a child's best-ranked copy of an id is its copy
                seen.add(hit.id)
                copies.setdefault(hit.id, []).append((order, rank, store, hit))
    for record_id, held in copies.items():
        if len(held) == 1:  # one child: nothing to compare
            _, _, store, hit = held[0]
            fused.best[record_id] = (store, hit)
            fused.supporting[record_id] = [store]
            fused.demote[record_id] = hit.demote or 1.0
            continue
        chosen = _agreed(held)  # in child order, as ``held`` is
        _, _, store, hit = min(chosen, key=lambda c: (c[1], c[0]))
        fused.best[record_id] = (store, hit)
        fused.supporting[record_id] = [c[2] for c in chosen]
        fused.demote[record_id] = _upper_median([c[3].demote or 1.0 for c in chosen])
        if len(chosen) < len(held):
            agreeing = {c[2] for c in chosen}
            for other in held:
                if other[2] not in agreeing:
                    fused.disagreed.setdefault(other[2], []).append(record_id)
    if fusion not in ("max", "weighted"):  # ranks drop the stores' demotion: put it back
        fused.scores = {i: s * fused.demote[i] for i, s in fused.scores.items()}
    if quorum is not None:
        fused.scores = {i: s for i, s in fused.scores.items() if len(fused.supporting[i]) >= quorum}
    return fused


def _agreed(held: list[tuple[int, int, str, RecallHit]]) -> list[tuple[int, int, str, RecallHit]]:
    """The copies of one id that most children hold (a tie: the group holding the child first
    in the router's order), in child order. Copies are compared on their field values as
    Pydantic keeps them (``__dict__``, read in one C call: this runs for every id several
    children returned, on every fused recall)."""
    keys = [_copy_key(entry[3].__dict__) for entry in held]
    if all(key == keys[0] for key in keys):  # the usual case: every copy the same
        return held
    groups: list[tuple[Any, list[tuple[int, int, str, RecallHit]]]] = []
    for key, entry in zip(keys, held, strict=True):
        for known, members in groups:
            if known == key:
                members.append(entry)
                break
        else:
            groups.append((key, [entry]))
    return max(groups, key=lambda g: (len(g[1]), -g[1][0][0]))[1]


def _upper_median(factors: list[float]) -> float:
    ordered = sorted(factors)
    return ordered[len(ordered) // 2]
