"""Helpers every adapter shares: ids, the record <-> wire mapping, what is embedded for a
record, the spec's rules on replays, forget scopes, expiry and merges (keyword search:
``_keywords``)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from mnemowire._ids import new_id
from mnemowire.embedders import Embedder, Preparable
from mnemowire.errors import ConflictError
from mnemowire.models import (
    ExpireRequest,
    MergeRequest,
    RecallResponse,
    RememberRequest,
    StoreResult,
)

__all__ = [
    "DAY_MS",
    "NO_EXPIRY",
    "TYPE_FIELDS",
    "EmbedderSetup",
    "MergePlan",
    "cutoff",
    "expire_action",
    "expire_conditions",
    "forget_states",
    "id_taken",
    "new_id",
    "recall_answer",
    "record_fields",
    "same_writer",
    "searchable_text",
    "unexpired",
]

DAY_MS = 86_400_000

#: the type-specific fields of episodic and emotional memories, in spec order
TYPE_FIELDS = (
    "event_time",
    "location",
    "participants",
    "sentiment",
    "valence",
    "arousal",
    "emotion",
    "target",
)
#: optional record fields returned when stored (besides the type-specific ones)
_OPTIONAL = ("user_id", "source", "expires_at", "updated_at")


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


def cutoff(now: int, days: float | None) -> int | None:
    """``now`` minus ``days``, in epoch ms; 0 (the epoch) when days reach back further than that
    (the spec allows any non-negative number of days, 1e308 included)."""
    if days is None:
        return None
    return int(max(0.0, now - days * DAY_MS))


def record_fields(record: dict[str, Any]) -> dict[str, Any]:
    """The wire fields of a stored record (a dict of column values) for a recall hit or a diff:
    the required ones always, the optional ones only when set."""
    out = {
        "id": record["id"],
        "type": record["type"],
        "content": record["content"],
        "metadata": record["metadata"],
        "created_at": record["created_at"],
        "confidence": record["confidence"],
    }
    for name in (*_OPTIONAL, *TYPE_FIELDS):
        if record.get(name) is not None:
            out[name] = record[name]
    return out


def recall_answer(
    store: str, ranked: list[tuple[dict[str, Any], float, float]], result: StoreResult
) -> RecallResponse:
    """A store's recall response from its ranked (record, score, relevance) triples, validated
    in one call for the whole answer (half the cost of a model per hit at 20 hits)."""
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
            "fusion_used": "rrf",
            "stores_queried": [store],
            "latency_ms": result.latency_ms,
            "stores": [result],
        }
    )


def forget_states(hard: bool, *, named: bool) -> tuple[str, ...]:
    """The record states a forget reaches (docs/spec/v0.md#forget.scope): visible and archived
    records; staged (pending) ones only when the request names them in ``ids`` (a reviewer's
    rejection) or erases; a hard delete also erases what an earlier forget or merge left."""
    if hard:
        return ("active", "pending", "archived", "deleted", "merged")
    return ("active", "pending", "archived") if named else ("active", "archived")


#: expires_at compared as if this when absent (never): above every valid time
NO_EXPIRY = 2**53


def unexpired(column: str) -> str:
    """An SQL comparison, missing its ``now`` placeholder, true while a record has not expired
    (``column`` prefixes the memories columns, e.g. ``"m."``): [remember.expires]."""
    return f"coalesce({column}expires_at, {NO_EXPIRY}) >"


def same_writer(stored: tuple[Any, ...], req: RememberRequest) -> bool:
    """Whether a stored record (agent_id, user_id, type, content) is what ``req`` would write:
    only then is a remember with its id a replay ([remember.id]); the first write's
    ``stored_at`` is not another user's to learn."""
    return tuple(stored) == (req.agent_id, req.user_id, req.type, req.content)


def id_taken(record_id: str) -> ConflictError:
    """The conflict for an id another record holds or held (said the same way whoever holds
    it, so nothing about that record is revealed)."""
    return ConflictError(
        f"id {record_id!r} is taken: another record has or had it, and ids are never reused; "
        "choose another id, or resend the original write to retry it"
    )


def expire_conditions(
    req: ExpireRequest, now: int, *, column: str, last_recalled: str
) -> list[tuple[str, Any]]:
    """The request's scope and policy as SQL comparisons, each missing only its placeholder,
    with its argument: ``column`` prefixes the memories columns (``"m."``), ``last_recalled``
    is the dialect's expression for when a record was last recalled (null: never)."""
    policy = req.policy
    conditions: list[tuple[str, Any]] = [(unexpired(column), now)]  # expired is not visible
    if req.user_id is not None:
        conditions.append((f"{column}user_id =", req.user_id))
    if policy.older_than_days is not None:
        conditions.append((f"{column}created_at <", cutoff(now, policy.older_than_days)))
    if policy.type is not None:
        conditions.append((f"{column}type =", policy.type))
    if policy.confidence_below is not None:
        conditions.append((f"{column}confidence <", policy.confidence_below))
    if policy.no_recall_in_days is not None:
        conditions.append(
            (
                f"coalesce({last_recalled}, {column}created_at) <",
                cutoff(now, policy.no_recall_in_days),
            )
        )
    return conditions


def expire_action(req: ExpireRequest) -> tuple[str, float]:
    """The action and demote factor, with the spec's defaults (forget; 0.5)."""
    factor = req.demote_factor if req.demote_factor is not None else 0.5
    return req.action or "forget", factor


def searchable_text(kind: str, content: str) -> str:
    """What is embedded and keyword-indexed for a record. A procedural memory's content is
    JSON; its name, states and triggers (underscores as spaces) are what people search for."""
    if kind != "procedural":
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


class MergePlan:
    """What a merge will write, computed (and embedded) before the write transaction.

    ``versions`` holds each record's ``updated_at`` when planned: the write transaction
    compares them, so a record changed in between fails the merge instead of being clobbered.
    """

    def __init__(
        self,
        strategy: str,
        update: dict[str, Any] | None,
        new_text: str | None,
        versions: dict[str, int],
    ) -> None:
        self.strategy = strategy
        self.update = update
        self.new_text = new_text
        self.versions = versions
        #: the embedding of new_text, filled in between planning and writing
        self.vector: Any = None

    @staticmethod
    def refuse_self_merge(req: MergeRequest) -> None:
        """Checked before any record is read: a record merged into itself would be hidden."""
        if req.canonical in req.duplicates:
            raise ConflictError(
                "a record cannot be merged into itself: remove the canonical id from duplicates"
            )

    def check_unchanged(self, records: dict[str, dict[str, Any]]) -> None:
        """Fail the merge if a record changed between planning and writing (``records`` as
        read again inside the write transaction)."""
        if {i: r["updated_at"] for i, r in records.items()} != self.versions:
            raise ConflictError("records changed while merging; send the merge again")

    @classmethod
    def of(cls, req: MergeRequest, records: dict[str, dict[str, Any]]) -> MergePlan:
        """Plan ``req`` over ``records`` (id -> record with type, content, confidence,
        metadata and updated_at; every id of the request present)."""
        strategy = req.strategy or "keep_canonical"
        canonical = records[req.canonical]
        ordered = [canonical, *(records[d] for d in req.duplicates)]
        update = None
        types = sorted({r["type"] for r in ordered})
        if strategy != "keep_canonical" and len(types) > 1:
            raise ConflictError(
                f"{strategy} moves content between records, and these are of different types "
                f"({', '.join(types)}): a type says what its content is (a procedural record's "
                "is a state machine); merge records of one type, or use keep_canonical"
            )
        if strategy == "merge_content":
            if any(r["type"] == "procedural" for r in ordered):
                raise ConflictError(
                    "procedural memories cannot be merged with merge_content: "
                    "two state machines do not concatenate; use keep_canonical"
                )
            update = {
                "content": "\n".join(r["content"] for r in ordered),
                "confidence": canonical["confidence"],
                "metadata": canonical["metadata"],
            }
        elif strategy == "keep_highest_confidence":
            best = max(ordered, key=lambda r: r["confidence"])  # max keeps the first: canonical
            if best is not canonical:
                update = {
                    "content": best["content"],
                    "confidence": best["confidence"],
                    "metadata": best["metadata"],
                }
        new_text = None
        if update is not None and update["content"] != canonical["content"]:
            new_text = searchable_text(canonical["type"], update["content"])
        return cls(strategy, update, new_text, {i: r["updated_at"] for i, r in records.items()})
