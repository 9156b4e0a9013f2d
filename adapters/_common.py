"""Helpers every adapter shares: ids, the record <-> wire mapping, keyword terms, what is
indexed for a record, and how a merge is planned."""

from __future__ import annotations

import json
import re
from typing import Any

from mnemowire._ids import new_id
from mnemowire.errors import ConflictError
from mnemowire.models import ExpireRequest, MergeRequest, RecallResponse, StoreResult

__all__ = [
    "DAY_MS",
    "STOPWORDS",
    "TYPE_FIELDS",
    "MergePlan",
    "cutoff",
    "expire_action",
    "expire_conditions",
    "forget_states",
    "keyword_terms",
    "new_id",
    "recall_answer",
    "record_fields",
    "searchable_text",
    "words",
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
# Words so common that matching them says nothing; dropping them keeps keyword recall fast on
# large agents. English only: other languages keep every word (bm25 still discounts them).
STOPWORDS = frozenset(
    {
        "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "from", "has", "have", "he",
        "her", "his", "i", "in", "is", "it", "its", "me", "my", "of", "on", "or", "our", "she",
        "so", "that", "the", "their", "them", "they", "this", "to", "was", "we", "were", "what",
        "when", "where", "which", "who", "will", "with", "you", "your", "do", "does", "did", "how",
        "about",
    }
)  # fmt: skip
_WORD = re.compile(r"\w+", re.UNICODE)


def cutoff(now: int, days: float | None) -> int | None:
    """``now`` minus ``days``, in epoch ms; 0 (the epoch) when days reach back further than that
    (the spec allows any non-negative number of days, 1e308 included)."""
    if days is None:
        return None
    return int(max(0.0, now - days * DAY_MS))


def words(text: str) -> list[str]:
    """Every word of ``text``, lowercased, in order: the same tokens ``keyword_terms`` sees."""
    return _WORD.findall(text.lower())


#: keyword search keeps a query's words held by at most max(RARE_DOCUMENTS, RARE_FRACTION of
#: the records): exact matches on codes and unusual names are what it adds to the vectors
#: (adapters/sqlite_vec/_keywords.py has the measurement behind these numbers)
RARE_DOCUMENTS = 3
RARE_FRACTION = 1 / 10_000


def keyword_terms(text: str, limit: int = 32) -> list[str]:
    """Distinct lowercase words of a query worth matching, in order of appearance."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if len(word) > 1 and word not in STOPWORDS:
            seen.setdefault(word, None)
    return list(seen)[:limit]


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


def forget_states(hard: bool) -> tuple[str, ...]:
    """The record states a forget reaches: visible, staged and archived records; a hard delete
    also erases what an earlier forget or merge left for the audit trail."""
    soft = ("active", "pending", "archived")
    return (*soft, "deleted", "merged") if hard else soft


def expire_conditions(
    req: ExpireRequest, now: int, *, column: str, last_recalled: str
) -> list[tuple[str, Any]]:
    """The request's scope and policy as SQL comparisons, each missing only its placeholder,
    with its argument: ``column`` prefixes the memories columns (``"m."``), ``last_recalled``
    is the dialect's expression for when a record was last recalled (null: never)."""
    policy = req.policy
    conditions: list[tuple[str, Any]] = []
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
