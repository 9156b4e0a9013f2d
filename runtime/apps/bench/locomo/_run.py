"""LoCoMo, asked turn by turn of one store through the public recall.

Each conversation is one agent; each dialogue turn one episodic memory (``Speaker: text`` and
the shared photo's caption, ``event_time`` the session's date, ``dia_id`` and ``session`` in
metadata), written through the ``Memory`` facade in ``remember_batch`` messages. Each question
is then a real recall of that agent through the facade, asked with k = 5 and with k = 10 (a
store over-fetches in proportion to k, so each metric comes from the answer a client asking
for that k gets), with the store's default recall: no option the benchmark alone would set.

Scores, per question with evidence: recall@k(any) is 1 when any evidence turn is in the top k,
recall@k(all) when every one is; MRR is over the top 10. Questions whose evidence names no turn
are counted and left out. The headline averages categories 1-4 (:data:`HEADLINE_CATEGORIES`);
the adversarial category is reported apart, since its premise is false.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mnemowire.apps.bench._stores import opened
from mnemowire.apps.bench._timing import load_average, percentiles
from mnemowire.apps.bench.locomo._data import (
    CATEGORIES,
    DEVELOPMENT_HALF,
    HEADLINE_CATEGORIES,
    Conversation,
    LocomoError,
    Question,
)
from mnemowire.apps.bench.metrics import mean, reciprocal_rank
from mnemowire.embedders import Embedder
from mnemowire.layers.memory import Memory

__all__ = ["HELD_BACK", "run_locomo", "select"]

Progress = Callable[[str, int, int], None]

#: what the published numbers may and may not have seen: printed with every report
HELD_BACK = (
    f"Retrieval was developed on the development half only ({', '.join(sorted(DEVELOPMENT_HALF))}"
    "); the release's other conversations were never read by the project and nothing was tuned "
    "on them: only their numbers (held_out) are held out."
)


def select(
    conversations: Sequence[Conversation], *, only: Sequence[str] = (), limit: int | None = None
) -> list[Conversation]:
    """The conversations named in ``only`` (all when empty), at most ``limit`` of them; a
    :class:`LocomoError` when they hold no question (a run would have nothing to score)."""
    known = {c.sample_id for c in conversations}
    missing = [name for name in only if name not in known]
    if missing:
        raise ValueError(
            f"no conversation {', '.join(map(repr, missing))} in the data; it holds "
            f"{', '.join(sorted(known))}"
        )
    chosen = [c for c in conversations if not only or c.sample_id in only]
    chosen = chosen if limit is None else chosen[:limit]
    if not any(c.questions for c in chosen):
        raise LocomoError("the conversations chosen hold no question to ask")
    return chosen


async def run_locomo(
    url: str,
    embedder: Embedder,
    data: Path,
    conversations: Sequence[Conversation],
    *,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Write ``conversations`` (read from ``data``, see :func:`select`) into a fresh store at
    ``url`` and ask every question; the report's ``results``."""
    loads = {"start": load_average()}
    started = time.perf_counter()
    scored: list[dict[str, Any]] = []
    ingest_s = 0.0
    recall_ms: list[float] = []
    async with opened(url, embedder) as handle:
        memory = Memory(handle.store)
        for conversation in conversations:
            agent = handle.agent(f"locomo-{conversation.sample_id}")
            began = time.perf_counter()
            ids = await _ingest(memory, agent, conversation, progress)
            ingest_s += time.perf_counter() - began
            handle.written += [(agent, record) for record in ids]
            turns = dict(zip(ids, (t.dia_id for t in conversation.turns), strict=True))
            for position, question in enumerate(conversation.questions, start=1):
                lists = {}
                for k in (5, 10):
                    began = time.perf_counter()
                    found = await memory.recall({"agent_id": agent, "query": question.text, "k": k})
                    if k == 10:
                        recall_ms.append((time.perf_counter() - began) * 1000)
                    lists[k] = [turns.get(hit.id, f"unknown:{hit.id}") for hit in found.results]
                scored.append(_score(conversation.sample_id, question, lists[5], lists[10]))
                if progress is not None:
                    progress(f"locomo {conversation.sample_id}: ask", position,
                             len(conversation.questions))  # fmt: skip
    loads["end"] = load_average()
    turn_count = sum(len(c.turns) for c in conversations)
    answerable = [s for s in scored if s["evidence"]]
    return {
        "store": handle.url,
        "data": {
            "file": data.name,
            "sha256": hashlib.sha256(data.read_bytes()).hexdigest(),
            "conversations": [c.sample_id for c in conversations],
            "turns": turn_count,
            "questions": len(scored),
            "without_evidence": len(scored) - len(answerable),
            "unknown_evidence": sum(len(s["unknown_evidence"]) for s in scored),
        },
        "categories": {str(number): name for number, name in CATEGORIES.items()},
        "headline_categories": list(HEADLINE_CATEGORIES),
        "held_back": HELD_BACK,
        "headline": _summary(s for s in answerable if s["category"] in HEADLINE_CATEGORIES),
        "held_out": (
            _summary(
                s
                for s in answerable
                if s["category"] in HEADLINE_CATEGORIES
                and s["conversation"] not in DEVELOPMENT_HALF
            )
            if any(c.sample_id not in DEVELOPMENT_HALF for c in conversations)
            else None
        ),
        "by_category": [
            {
                "category": number,
                "name": name,
                **_summary(s for s in answerable if s["category"] == number),
            }
            for number, name in CATEGORIES.items()
            if any(s["category"] == number for s in answerable)
        ],
        "by_conversation": [
            {
                "conversation": c.sample_id,
                "held_out": c.sample_id not in DEVELOPMENT_HALF,
                **_summary(
                    s
                    for s in answerable
                    if s["conversation"] == c.sample_id and s["category"] in HEADLINE_CATEGORIES
                ),
            }
            for c in conversations
        ],
        "ingest": {
            "seconds": round(ingest_s, 2),
            "turns_per_s": round(turn_count / ingest_s, 1) if ingest_s else None,
        },
        "recall_latency": percentiles(recall_ms),
        "load_average": loads,
        "seconds": round(time.perf_counter() - started, 2),
        "questions": scored,
    }


async def _ingest(
    memory: Memory, agent: str, conversation: Conversation, progress: Progress | None
) -> list[str]:
    """One episodic memory per turn, in the conversation's order; returns their ids."""
    requests = [
        {
            "agent_id": agent,
            "type": "episodic",
            "content": turn.content,
            "event_time": turn.event_time,
            "metadata": {"dia_id": turn.dia_id, "session": turn.session},
        }
        for turn in conversation.turns
    ]
    ids: list[str] = []
    step = 100
    for start in range(0, len(requests), step):
        written = await memory.remember_many(requests[start : start + step])
        ids += [answer.id for answer in written]
        if progress is not None:
            progress(f"locomo {conversation.sample_id}: remember", len(ids), len(requests))
    return ids


def _score(
    conversation: str, question: Question, top5: Sequence[str], top10: Sequence[str]
) -> dict[str, Any]:
    """One question's outcome: ids and dia_ids only, never the question's text (the data's
    licence keeps it out of committed reports)."""
    entry: dict[str, Any] = {
        "conversation": conversation,
        "index": question.index,
        "category": question.category,
        "evidence": sorted(question.evidence),
        "unknown_evidence": list(question.unknown_evidence),
        "returned_at_10": list(top10),
    }
    evidence = question.evidence
    if evidence:
        entry.update(
            recall_at_5=float(bool(evidence & set(top5[:5]))),
            recall_at_10=float(bool(evidence & set(top10[:10]))),
            all_at_5=float(evidence <= set(top5[:5])),
            all_at_10=float(evidence <= set(top10[:10])),
            mrr=reciprocal_rank(top10[:10], evidence),
        )
    return entry


_METRICS = ("recall_at_5", "recall_at_10", "all_at_5", "all_at_10", "mrr")


def _summary(entries: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Mean of each metric over the entries, and how many there were."""
    chosen = list(entries)
    out: dict[str, Any] = {"questions": len(chosen)}
    if chosen:
        out.update({name: round(mean(e[name] for e in chosen), 4) for name in _METRICS})
    return out
