"""The quality corpus and its labelled queries (package data), checked as they load.

``corpus.jsonl``: one memory per line, ``{"label", "age_days", "remember"}``: a stable label,
how many days before the run the memory is written (for ``fresher_than_days``), and a spec
remember request. ``queries.jsonl``: one query per line, ``{"id", "class", "relevant",
"recall", "note"?}``: a spec recall request, its class and the labels of the memories that
answer it (none for a no-match probe). The benchmark sets ``k`` and ``min_relevance`` itself,
so a query's request carries neither. Loading refuses anything the spec refuses, and any label
a query could not see (another agent, user or type, or too old for its freshness window), so a
labelling mistake fails loudly instead of lowering a score.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from mnemowire import spec

__all__ = [
    "CLASSES",
    "CORPORA",
    "CorpusError",
    "CorpusMemory",
    "LabelledQuery",
    "load_corpus",
    "load_queries",
    "parse_corpus",
    "parse_queries",
]

#: query classes, in the order reports list them
CLASSES = (
    "exact",
    "paraphrase",
    "multi_hit",
    "type_filtered",
    "user_scoped",
    "agent_wide",
    "temporal",
    "no_match",
)
_BENCHMARK_SETS = ("k", "min_relevance")
#: the bundled corpora: ``dev`` (a family household, a travel desk, an IT helpdesk), on which the
#: stores and the keyword rules were built, and ``holdout``, written afterwards by someone who
#: had not seen it (a vet clinic, an allotment society, a youth orchestra, a bicycle co-op), on
#: which nothing was tuned: a recommendation tuned on one must hold on the other
CORPORA = {"dev": "", "holdout": "holdout/"}


class CorpusError(ValueError):
    """The corpus or the queries break a rule above; the message names the line."""


@dataclass(frozen=True)
class CorpusMemory:
    """One memory: its label, its age when the benchmark writes it, and the remember request."""

    label: str
    age_days: float
    remember: Mapping[str, Any]


@dataclass(frozen=True)
class LabelledQuery:
    """One query: its class, the labels that answer it and the recall request."""

    id: str
    query_class: str
    relevant: frozenset[str]
    recall: Mapping[str, Any]
    note: str | None = None

    @property
    def no_match(self) -> bool:
        return not self.relevant


def _lines(text: str, source: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{source}:{number}"
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise CorpusError(f"{where}: not JSON ({exc})") from exc
        if not isinstance(value, dict):
            raise CorpusError(f"{where}: expected a JSON object")
        out.append((where, value))
    return out


def _keys(where: str, value: Mapping[str, Any], required: set[str], optional: set[str]) -> None:
    missing = required - set(value)
    unknown = set(value) - required - optional
    if missing or unknown:
        raise CorpusError(f"{where}: missing {sorted(missing)}, unknown {sorted(unknown)}")


def _valid(where: str, message: str, request: Any) -> None:
    envelope = spec.validate(message, request)
    if envelope is not None:
        raise CorpusError(f"{where}: not a valid {message}: {envelope['details']}")


def parse_corpus(text: str, source: str = "corpus.jsonl") -> tuple[CorpusMemory, ...]:
    """Memories from JSON Lines, each validated against the spec."""
    memories: dict[str, CorpusMemory] = {}
    for where, value in _lines(text, source):
        _keys(where, value, {"label", "age_days", "remember"}, set())
        label, age = value["label"], value["age_days"]
        if not isinstance(label, str) or not label or label in memories:
            raise CorpusError(f"{where}: labels are unique non-empty strings ({label!r})")
        if isinstance(age, bool) or not isinstance(age, int | float) or age < 0:
            raise CorpusError(f"{where}: age_days is a number of days >= 0")
        _valid(where, "remember.request", value["remember"])
        memories[label] = CorpusMemory(label, float(age), value["remember"])
    return tuple(memories.values())


def parse_queries(
    text: str, corpus: tuple[CorpusMemory, ...], source: str = "queries.jsonl"
) -> tuple[LabelledQuery, ...]:
    """Queries from JSON Lines, validated against the spec and against the corpus."""
    by_label = {memory.label: memory for memory in corpus}
    queries: dict[str, LabelledQuery] = {}
    for where, value in _lines(text, source):
        _keys(where, value, {"id", "class", "relevant", "recall"}, {"note"})
        ident, kind, relevant = value["id"], value["class"], value["relevant"]
        if not isinstance(ident, str) or not ident or ident in queries:
            raise CorpusError(f"{where}: ids are unique non-empty strings ({ident!r})")
        if kind not in CLASSES:
            raise CorpusError(f"{where}: class {kind!r} is not one of {', '.join(CLASSES)}")
        if not isinstance(relevant, list) or len(set(relevant)) != len(relevant):
            raise CorpusError(f"{where}: relevant is a list of distinct labels")
        if (kind == "no_match") != (not relevant):
            raise CorpusError(f"{where}: no_match probes, and only they, have no relevant labels")
        request = value["recall"]
        _valid(where, "recall.request", request)
        fixed = [name for name in _BENCHMARK_SETS if name in request]
        if fixed:
            raise CorpusError(f"{where}: the benchmark sets {fixed} itself; leave them out")
        for label in relevant:
            memory = by_label.get(label)
            if memory is None:
                raise CorpusError(f"{where}: unknown label {label!r}")
            reason = _unseen(request, memory)
            if reason:
                raise CorpusError(f"{where}: {label} cannot be recalled by this query: {reason}")
        note = value.get("note")
        queries[ident] = LabelledQuery(ident, kind, frozenset(relevant), request, note)
    return tuple(queries.values())


def _unseen(request: Mapping[str, Any], memory: CorpusMemory) -> str | None:
    """Why ``memory`` is outside the query's scope (docs/spec/v0.md#recall.scope), or None."""
    stored = memory.remember
    if stored["agent_id"] != request["agent_id"]:
        return "another agent"
    if "user_id" in request and stored.get("user_id") != request["user_id"]:
        return "another user"
    if request.get("types") and stored["type"] not in request["types"]:
        return "a type the query leaves out"
    window = request.get("fresher_than_days")
    if window is not None and memory.age_days >= window:
        return "older than fresher_than_days"
    return None


def _package_text(corpus: str, name: str) -> str:
    if corpus not in CORPORA:
        raise CorpusError(f"no corpus {corpus!r}; the bundled ones are {', '.join(CORPORA)}")
    folder = resources.files("mnemowire.apps.bench.quality")
    return folder.joinpath(CORPORA[corpus] + name).read_text(encoding="utf-8")


@functools.cache
def load_corpus(corpus: str = "dev") -> tuple[CorpusMemory, ...]:
    """A bundled corpus (validated once per process)."""
    return parse_corpus(_package_text(corpus, "corpus.jsonl"), f"{corpus}/corpus.jsonl")


@functools.cache
def load_queries(corpus: str = "dev") -> tuple[LabelledQuery, ...]:
    """A bundled corpus's labelled queries (validated once per process)."""
    return parse_queries(
        _package_text(corpus, "queries.jsonl"), load_corpus(corpus), f"{corpus}/queries.jsonl"
    )
