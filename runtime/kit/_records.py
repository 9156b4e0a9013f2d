"""A stored record on its way out: its wire fields, a recall answer, the text a record is
searched by, and the embedder calls around it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from mnemowire.embedders import Embedder, Preparable, Vectors
from mnemowire.errors import UnsupportedError
from mnemowire.kit._basics import elapsed_ms
from mnemowire.kit._embedding import embed
from mnemowire.models import (
    MEMORY_RECORD_FIELDS,
    RECALL_HIT_FIELDS,
    TYPE_SPECIFIC_FIELDS,
    FusionMethod,
    MemoryType,
    RecallRequest,
    RecallResponse,
    RememberRequest,
    StoreResult,
    StoreStatus,
)
from mnemowire.protocol import QueryEmbedding

__all__ = [
    "HIT_RECORD_FIELDS",
    "TYPE_FIELDS",
    "EmbedderSetup",
    "batch_vectors",
    "check_vectors",
    "query_embedding",
    "recall_answer",
    "record_fields",
    "searchable_text",
    "store_result",
]

#: the type-specific fields of every memory type, in spec order (columns a store keeps)
TYPE_FIELDS: tuple[str, ...] = tuple(
    name
    for name in MEMORY_RECORD_FIELDS
    if any(name in fields for fields in TYPE_SPECIFIC_FIELDS.values())
)
#: the fields of a stored record that a recall hit carries (a hit adds its score and sources)
HIT_RECORD_FIELDS: tuple[str, ...] = tuple(
    f for f in RECALL_HIT_FIELDS if f in MEMORY_RECORD_FIELDS
)


def record_fields(record: Mapping[str, Any]) -> dict[str, Any]:
    """The wire fields of a stored record (column values by field name) for a recall hit or a
    diff: every field a hit carries, when set (a record always has its required ones)."""
    return {name: record[name] for name in HIT_RECORD_FIELDS if record.get(name) is not None}


def store_result(store: str, count: int, started: float) -> StoreResult:
    """The ``stores[]`` entry of a store's own successful operation."""
    return StoreResult(
        store=store, status=StoreStatus.OK, count=count, latency_ms=elapsed_ms(started)
    )


def recall_answer(
    store: str, ranked: Sequence[tuple[Mapping[str, Any], float, float]], result: StoreResult
) -> RecallResponse:
    """A store's recall response from its ranked (record, score, relevance) triples, validated
    in one call for the whole answer (half the cost of a model per hit at 20 hits). A record
    carries its ``demote`` factor (1.0: not demoted)."""
    hits = [
        {
            **record_fields(record),
            "score": score,
            "relevance": round(relevance, 6),
            **({"demote": record["demote"]} if record["demote"] != 1.0 else {}),
            "supporting": [store],
            "source_store": store,
        }
        for record, score, relevance in ranked
    ]
    return RecallResponse.model_validate(
        {
            "results": hits,
            "fusion_used": FusionMethod.RRF.value,
            "stores_queried": [store],
            "latency_ms": result.latency_ms,
            "stores": [result],
        }
    )


def searchable_text(kind: str, content: str) -> str:
    """What is embedded and keyword-indexed for a record. A procedural memory's content is
    JSON; its name, states and triggers (underscores as spaces) are what people search for."""
    if kind != MemoryType.PROCEDURAL:
        return content
    try:
        machine = json.loads(content)
        words = [
            machine["name"],
            *machine["states"],
            *(t["trigger"] for t in machine["transitions"]),
        ]
    except (ValueError, KeyError, TypeError):
        return content
    return " ".join(str(w).replace("_", " ") for w in words)


async def query_embedding(
    embedder: Embedder, request: RecallRequest, given: QueryEmbedding | None
) -> Any:
    """A recall's query vector. The request's own ``query_vector`` (spec v0.1, from a caller
    over the wire) is used when it comes from this store's embedder and refused otherwise
    ([recall.query-vector]: unrelated vectors are never compared). ``given`` (an in-process
    router's, not on the wire) is used when it comes from the same embedder, else the query is
    embedded here."""
    sent = request.query_vector
    if sent is not None:
        if sent.embedder != embedder.name or len(sent.vector) != embedder.dimension:
            raise UnsupportedError(
                f"query_vector comes from {sent.embedder!r} ({len(sent.vector)}-d); this store "
                f"embeds with {embedder.name!r} ({embedder.dimension}-d): leave query_vector "
                "out and the store embeds the query itself",
                details=[
                    {"path": "/query_vector/embedder", "rule": "unsupported",
                     "message": f"this store's embedder is {embedder.name!r}"}
                ],
            )  # fmt: skip
        return np.asarray(sent.vector, np.float32)
    if given is not None and given.embedder == embedder.name:
        vector = np.asarray(given.vector, np.float32).reshape(-1)
        if vector.shape == (embedder.dimension,) and bool(np.isfinite(vector).all()):
            return vector
    return (await embed(embedder, [request.query]))[0]


def check_vectors(vectors: Vectors, count: int, dimension: int) -> None:
    """Precomputed vectors for ``count`` requests: one row each, of the store's ``dimension``
    (checked before anything is written)."""
    if vectors.shape != (count, dimension):
        raise ValueError(
            f"vectors must have shape ({count}, {dimension}) (one row per request, from the "
            f"store's embedder), not {vectors.shape}"
        )


async def batch_vectors(
    embedder: Embedder, requests: Sequence[RememberRequest], vectors: Vectors | None
) -> Vectors:
    """A remember_batch's vectors: the caller's (``vectors``, checked), or ``embedder``'s."""
    if vectors is None:
        return await embed(embedder, [searchable_text(r.type, r.content) for r in requests])
    check_vectors(vectors, len(requests), embedder.dimension)
    return vectors


class EmbedderSetup:
    """The embedder's one-time setup (a model load, the first ONNX export on a machine), run
    once, before the first operation starts its clock: a store's ``latency_ms`` is the
    operation's, never the ~20 s a first export takes (docs/benchmarks.md)."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder if isinstance(embedder, Preparable) else None

    async def __call__(self) -> None:
        embedder = self._embedder
        if embedder is not None:
            await asyncio.to_thread(embedder.prepare)
            self._embedder = None
