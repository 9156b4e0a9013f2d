"""Retrieval quality of one store on the bundled corpus, and what a relevance floor does.

Every memory is written through the Memory facade (validated both ways, as applications do),
backdated by its ``age_days`` when the store takes the benchmark's clock. Each query is then
asked twice: with k = 5, the spec's default and what clients ask for (recall@1, recall@5,
precision@5, and whether a no-match probe came back empty), and with k = 10 (recall@10, MRR and
nDCG@10). A store's top 5 can differ slightly from the first five of its top 10 (it over-fetches
in proportion to k), so each metric comes from the answer a client asking for that k gets.

The floor sweep repeats every k = 5 query with ``min_relevance`` at each floor of a grid, using
the query's vector embedded once (``QueryEmbedding``), and records mean recall@5 over the labelled
queries and the share of no-match probes answered empty. The recommended floor is fixed by a
rule chosen before measuring: the highest floor whose recall@5 is within ``max_recall_loss``
of the recall@5 without a floor.

A diagnostic comes with it: every query asked once more of the store's vector search alone
(``vector_only``), so a hybrid store's keyword half can be seen helping or hurting; not for a
store that takes no query vector (its search embeds the query text itself).
"""

from __future__ import annotations

import functools
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mnemowire.apps.bench._stores import BenchClock, OpenedStore, opened
from mnemowire.apps.bench._timing import load_average
from mnemowire.apps.bench.metrics import (
    FloorPoint,
    empty_rate,
    mean,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
    recommend_floor,
)
from mnemowire.apps.bench.quality._data import (
    CLASSES,
    CorpusMemory,
    LabelledQuery,
    load_corpus,
    load_queries,
)
from mnemowire.embedders import Embedder, Vectors
from mnemowire.layers.memory import Memory
from mnemowire.protocol import QueryEmbedding

__all__ = ["DEFAULT_FLOORS", "MAX_RECALL_LOSS", "corpus_summary", "run_quality", "transfer"]

Progress = Callable[[str, int, int], None]
#: relevance floors swept (cosine similarity), 0.00 to 0.80 in steps of 0.05
DEFAULT_FLOORS = tuple(round(0.05 * i, 2) for i in range(17))
#: the recommendation rule: the most no-match protection that costs at most this much recall@5
MAX_RECALL_LOSS = 0.02
RULE = (
    "the highest floor whose mean recall@5 on the labelled queries is within "
    "max_recall_loss of the recall@5 without a floor"
)


def corpus_summary(
    corpus: Sequence[CorpusMemory], queries: Sequence[LabelledQuery]
) -> dict[str, Any]:
    """What the corpus holds, for the report's config."""
    users = {(m.remember["agent_id"], m.remember.get("user_id")) for m in corpus}
    return {
        "memories": len(corpus),
        "agents": len({m.remember["agent_id"] for m in corpus}),
        "users": len({m.remember["user_id"] for m in corpus if "user_id" in m.remember}),
        "scopes": len(users),
        "by_type": dict(sorted(Counter(str(m.remember["type"]) for m in corpus).items())),
        "queries": len(queries),
        "by_class": {c: sum(q.query_class == c for q in queries) for c in CLASSES},
    }


async def run_quality(
    url: str,
    embedder: Embedder,
    *,
    corpus_name: str = "dev",
    floors: Sequence[float] = DEFAULT_FLOORS,
    max_recall_loss: float = MAX_RECALL_LOSS,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Measure one store on one corpus; returns its entry of the report's ``stores`` list."""
    corpus, queries = load_corpus(corpus_name), load_queries(corpus_name)
    started = time.perf_counter()
    loads = {"start": load_average()}
    clock = BenchClock()
    async with opened(url, embedder, clock=clock) as handle:
        memory = Memory(handle.store)
        labels = await _ingest(memory, handle, clock, corpus, progress)
        ingest_s = time.perf_counter() - started
        asked, skipped = _askable(queries, handle.backdates)
        ask = functools.partial(_answers, memory, handle, asked, labels=labels, progress=progress)
        answers = await ask(floor=None, stage="recall")
        overall, classes = _summarise(answers)
        # each query embedded once, exactly as the store embeds it, for the diagnostic and sweep
        vectors = [embedder.embed([str(q.recall["query"])])[0] for q in asked]
        declared = {str(c) for c in handle.store.capabilities().capabilities}
        # a store that embeds the query text itself would search for "?": no diagnostic
        alone = None
        if "query_vector" in declared:
            alone = await ask(floor=None, stage="vector search", vectors=vectors, embedder=embedder)
        floor = None
        if "relevance" in declared and floors:
            curve = await _sweep(
                handle, embedder, asked, vectors=vectors, labels=labels, floors=floors,
                progress=progress,
            )  # fmt: skip
            chosen = recommend_floor(
                [
                    FloorPoint(p["floor"], p["recall_at_5"], p.get("no_match_empty", 0.0))
                    for p in curve
                ],
                baseline=overall["recall_at_5"],
                max_recall_loss=max_recall_loss,
            )
            recommended = None
            if chosen is not None:
                at_overall, at_classes = _summarise(
                    await ask(floor=chosen.floor, stage="recall with floor")
                )
                recommended = {"floor": chosen.floor, "overall": at_overall, "classes": at_classes}
            floor = {
                "curve": curve,
                "rule": RULE,
                "max_recall_loss": max_recall_loss,
                "recommended": recommended,
            }
        health = await handle.store.health()
    loads["end"] = load_average()
    return {
        "store": handle.url,
        "corpus": corpus_name,
        "backdated": handle.backdates,
        "health": health.details or {},
        "load_average": loads,
        "ingest_seconds": round(ingest_s, 2),
        "seconds": round(time.perf_counter() - started, 2),
        "overall": overall,
        "classes": classes,
        "skipped": skipped,
        "floor": floor,
        "vector_only": (
            None
            if alone is None
            else dict(zip(("overall", "classes"), _summarise(alone), strict=True))
        ),
        "queries": [answer.report() for answer in answers],
    }


async def _ingest(
    memory: Memory,
    handle: OpenedStore,
    clock: BenchClock,
    corpus: Sequence[CorpusMemory],
    progress: Progress | None,
) -> dict[str, str]:
    """Write the corpus; returns record id -> label."""
    labels: dict[str, str] = {}
    try:
        for done, item in enumerate(corpus, start=1):
            clock.age_days = item.age_days
            request = {**item.remember, "agent_id": handle.agent(item.remember["agent_id"])}
            stored = await memory.remember(request)
            labels[stored.id] = item.label
            handle.written.append((request["agent_id"], stored.id))
            if progress is not None:
                progress(f"quality ({handle.url}): remember", done, len(corpus))
    finally:
        clock.age_days = 0.0
    return labels


def _askable(
    queries: Sequence[LabelledQuery], backdates: bool
) -> tuple[list[LabelledQuery], list[dict[str, Any]]]:
    """The queries this store can be scored on: temporal ones need backdated memories."""
    if backdates:
        return list(queries), []
    temporal = [q for q in queries if "fresher_than_days" in q.recall]
    skipped = [
        {
            "class": "temporal",
            "queries": len(temporal),
            "reason": "the store takes no clock, so memories cannot be written in the past",
        }
    ]
    return [q for q in queries if "fresher_than_days" not in q.recall], skipped


class _Answer:
    """One query's two answers (k = 5 and k = 10) as labels, and its scores."""

    def __init__(
        self,
        query: LabelledQuery,
        top5: list[tuple[str, float | None]],
        top10: list[tuple[str, float | None]],
    ) -> None:
        self.query = query
        self.top5 = top5
        self.top10 = top10

    def scores(self) -> dict[str, float]:
        relevant = self.query.relevant
        five = [label for label, _ in self.top5]
        ten = [label for label, _ in self.top10]
        return {
            "recall_at_1": recall_at_k(five, relevant, 1),
            "recall_at_5": recall_at_k(five, relevant, 5),
            "recall_at_10": recall_at_k(ten, relevant, 10),
            "precision_at_5": precision_at_k(five, relevant, 5),
            "mrr": reciprocal_rank(ten, relevant),
            "ndcg_at_10": ndcg_at_k(ten, relevant, 10),
        }

    def report(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "id": self.query.id,
            "class": self.query.query_class,
            "query": self.query.recall["query"],
            "relevant": sorted(self.query.relevant),
            "returned": [label for label, _ in self.top5],
            "relevance": [relevance for _, relevance in self.top5],
            "returned_at_10": [label for label, _ in self.top10],
        }
        if not self.query.no_match:
            entry["recall_at_5"] = round(self.scores()["recall_at_5"], 4)
        return entry


async def _answers(
    memory: Memory,
    handle: OpenedStore,
    queries: Sequence[LabelledQuery],
    *,
    labels: Mapping[str, str],
    floor: float | None,
    progress: Progress | None,
    stage: str,
    vectors: Sequence[Vectors] | None = None,
    embedder: Embedder | None = None,
) -> list[_Answer]:
    """Ask every query with k = 5 and k = 10 through the facade; with ``vectors`` (one per
    query, from ``embedder``), ask the store's vector search alone instead: the query text
    becomes "?", which has no keyword to match, and the vector carries the meaning."""
    out = []
    for index, query in enumerate(queries):
        request = {**query.recall, "agent_id": handle.agent(query.recall["agent_id"])}
        if floor is not None:
            request["min_relevance"] = floor
        lists = []
        for k in (5, 10):
            if vectors is not None and embedder is not None:
                found = await memory.recall(
                    {**request, "query": "?", "k": k},
                    query_vector=QueryEmbedding(embedder.name, vectors[index]),
                )
            else:
                found = await memory.recall({**request, "k": k})
            # an id the corpus did not write (another run's, another agent's) is never relevant
            lists.append(
                [(labels.get(h.id, f"unknown:{h.id}"), h.relevance) for h in found.results]
            )
        out.append(_Answer(query, lists[0], lists[1]))
        if progress is not None:
            progress(f"quality: {stage}", index + 1, len(queries))
    return out


def _summarise(answers: Sequence[_Answer]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Mean scores over the labelled queries (overall and per class), and no-match handling."""
    labelled = [a for a in answers if not a.query.no_match]
    probes = [a for a in answers if a.query.no_match]

    def summary(group: Sequence[_Answer]) -> dict[str, Any]:
        scored = [a.scores() for a in group]
        out: dict[str, Any] = {"queries": len(group)}
        for name in scored[0]:
            out[name] = round(mean(s[name] for s in scored), 4)
        return out

    overall = summary(labelled)
    if probes:
        overall["no_match_empty"] = round(empty_rate(len(a.top5) for a in probes), 4)
        overall["no_match_probes"] = len(probes)
    classes = []
    for name in CLASSES:
        group = [a for a in answers if a.query.query_class == name]
        if not group:
            continue
        if name == "no_match":
            rate = empty_rate(len(a.top5) for a in group)
            classes.append({"class": name, "queries": len(group), "no_match_empty": round(rate, 4)})
        else:
            classes.append({"class": name, **summary(group)})
    return overall, classes


async def _sweep(
    handle: OpenedStore,
    embedder: Embedder,
    queries: Sequence[LabelledQuery],
    *,
    vectors: Sequence[Vectors],
    labels: Mapping[str, str],
    floors: Sequence[float],
    progress: Progress | None,
) -> list[dict[str, Any]]:
    """recall@5 and no-match handling at each floor (k = 5, the query embedded once)."""
    curve = []
    total = len(floors) * len(queries)
    done = 0
    memory = Memory(handle.store)
    for floor in floors:
        recalled: list[float] = []
        labelled_counts: list[int] = []
        probe_counts: list[int] = []
        for query, vector in zip(queries, vectors, strict=True):
            request = {
                **query.recall,
                "agent_id": handle.agent(query.recall["agent_id"]),
                "k": 5,
                "min_relevance": floor,
            }
            found = await memory.recall(request, query_vector=QueryEmbedding(embedder.name, vector))
            returned = [labels.get(h.id, f"unknown:{h.id}") for h in found.results]
            if query.no_match:
                probe_counts.append(len(returned))
            else:
                recalled.append(recall_at_k(returned, query.relevant, 5))
                labelled_counts.append(len(returned))
            done += 1
            if progress is not None:
                progress("quality: floor sweep", done, total)
        point: dict[str, Any] = {
            "floor": floor,
            "recall_at_5": round(mean(recalled), 4),
            "labelled_empty": round(empty_rate(labelled_counts), 4),
        }
        if probe_counts:
            point["no_match_empty"] = round(empty_rate(probe_counts), 4)
        curve.append(point)
    return curve


def transfer(runs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each store's floor tuned on one corpus, judged on each other: the recall@5 it costs there
    (from that corpus's own sweep, which has every floor of the grid) against the rule's allowed
    loss. A recommendation holds only if it holds where it was not tuned."""
    out = []
    for tuned in runs:
        chosen = (tuned["floor"] or {}).get("recommended")
        if chosen is None:
            continue
        for judged in runs:
            if judged["store"] != tuned["store"] or judged["corpus"] == tuned["corpus"]:
                continue
            if judged["floor"] is None:
                continue
            point = next(
                (p for p in judged["floor"]["curve"] if p["floor"] == chosen["floor"]), None
            )
            if point is None:
                continue
            baseline = judged["overall"]["recall_at_5"]
            loss = round(baseline - point["recall_at_5"], 4)
            out.append(
                {
                    "store": tuned["store"],
                    "tuned_on": tuned["corpus"],
                    "floor": chosen["floor"],
                    "judged_on": judged["corpus"],
                    "recall_at_5": baseline,
                    "recall_at_5_with_floor": point["recall_at_5"],
                    "loss": loss,
                    "no_match_empty": point.get("no_match_empty"),
                    "holds": loss <= judged["floor"]["max_recall_loss"],
                }
            )
    return out
