"""The quality corpus and queries: valid under the spec, shaped as the issue asks, and loaded by
rules that catch labelling mistakes."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from mnemowire import spec
from mnemowire.apps.bench.quality import (
    CLASSES,
    CORPORA,
    CorpusError,
    load_corpus,
    load_queries,
    parse_corpus,
    parse_queries,
)


def test_the_holdout_shares_nothing_with_the_corpus_it_checks() -> None:
    """Other agents, other people, other words: a floor tuned on one says something about the
    other only if they are independent."""
    dev, holdout = load_corpus("dev"), load_corpus("holdout")
    assert len(holdout) >= 300
    assert not {m.remember["agent_id"] for m in dev} & {m.remember["agent_id"] for m in holdout}
    dev_users = {m.remember.get("user_id") for m in dev} - {None}
    assert not dev_users & ({m.remember.get("user_id") for m in holdout} - {None})
    assert not {m.remember["content"] for m in dev} & {m.remember["content"] for m in holdout}
    dev_queries = {str(q.recall["query"]) for q in load_queries("dev")}
    assert not dev_queries & {str(q.recall["query"]) for q in load_queries("holdout")}


@pytest.mark.parametrize("name", CORPORA)
def test_every_request_is_valid_under_the_spec(name: str) -> None:
    corpus, queries = load_corpus(name), load_queries(name)
    for memory in corpus:
        assert spec.validate("remember.request", dict(memory.remember)) is None, memory.label
    for query in queries:
        assert spec.validate("recall.request", dict(query.recall)) is None, query.id


def test_the_corpus_has_the_promised_shape() -> None:
    corpus = load_corpus()
    assert len(corpus) >= 300
    assert len({m.remember["agent_id"] for m in corpus}) >= 3
    assert len({m.remember["user_id"] for m in corpus if "user_id" in m.remember}) >= 12
    share = Counter(m.remember["type"] for m in corpus)
    # realistic proportions: facts first, then events, a long tail of feelings and procedures
    assert share["semantic"] > share["episodic"] > share["emotional"] > 0
    assert share["procedural"] >= 15
    words = [
        len(m.remember["content"].split()) for m in corpus if m.remember["type"] != "procedural"
    ]
    assert min(words) <= 4
    assert max(words) >= 80
    for memory in corpus:
        if memory.remember["type"] == "procedural":
            assert spec.validate("remember.request", dict(memory.remember)) is None


@pytest.mark.parametrize("name", CORPORA)
def test_the_queries_cover_every_class(name: str) -> None:
    queries = load_queries(name)
    labelled = [q for q in queries if not q.no_match]
    assert len(labelled) >= 120
    assert sum(q.no_match for q in queries) >= 20
    counts = Counter(q.query_class for q in queries)
    assert set(counts) == set(CLASSES)
    assert all(len(q.relevant) >= 2 for q in queries if q.query_class == "multi_hit")
    assert all("types" in q.recall for q in queries if q.query_class == "type_filtered")
    assert all("user_id" in q.recall for q in queries if q.query_class == "user_scoped")
    assert all("user_id" not in q.recall for q in queries if q.query_class == "agent_wide")
    assert all("fresher_than_days" in q.recall for q in queries if q.query_class == "temporal")


def test_temporal_queries_have_something_to_leave_out() -> None:
    """Each temporal query's scope holds a memory its freshness window excludes, so the window
    is doing work (a superseded fact, an older event)."""
    corpus = load_corpus()
    for query in load_queries():
        window = query.recall.get("fresher_than_days")
        if window is None:
            continue
        scope = [
            m
            for m in corpus
            if m.remember["agent_id"] == query.recall["agent_id"]
            and query.recall.get("user_id") in (None, m.remember.get("user_id"))
        ]
        assert any(m.age_days >= window for m in scope), query.id


MEMORY = {"agent_id": "a", "user_id": "u", "type": "semantic", "content": "Ana likes tea."}


def _corpus(*lines: object) -> str:
    return "\n".join(json.dumps(line) for line in lines)


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["{nope"], "not JSON"),
        ([[1]], "expected a JSON object"),
        ([{"label": "m1", "remember": MEMORY}], "missing"),
        ([{"label": "m1", "age_days": 1, "remember": MEMORY, "extra": 1}], "unknown"),
        ([{"label": "", "age_days": 1, "remember": MEMORY}], "labels are unique"),
        ([{"label": "m1", "age_days": -1, "remember": MEMORY}], "age_days"),
        ([{"label": "m1", "age_days": True, "remember": MEMORY}], "age_days"),
        ([{"label": "m1", "age_days": 1, "remember": {**MEMORY, "type": "fact"}}], "not a valid"),
    ],
)
def test_bad_corpus_lines_are_refused(lines: list[object], message: str) -> None:
    text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines)
    with pytest.raises(CorpusError, match=message):
        parse_corpus(text)


def test_duplicate_labels_are_refused() -> None:
    line = {"label": "m1", "age_days": 1, "remember": MEMORY}
    with pytest.raises(CorpusError, match=r"corpus.jsonl:2: labels are unique"):
        parse_corpus(_corpus(line, line))


CORPUS = parse_corpus(
    _corpus(
        {"label": "tea", "age_days": 40, "remember": MEMORY},
        {"label": "other", "age_days": 1, "remember": {**MEMORY, "agent_id": "b"}},
        {"label": "felt", "age_days": 1, "remember": {**MEMORY, "type": "emotional"}},
    )
)
RECALL = {"agent_id": "a", "query": "what does Ana drink?"}


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"id": "q1", "class": "exact", "relevant": ["tea"]}, "missing"),
        ({"id": "q1", "class": "fuzzy", "relevant": ["tea"], "recall": RECALL}, "class 'fuzzy'"),
        ({"id": "q1", "class": "exact", "relevant": "tea", "recall": RECALL}, "list of distinct"),
        ({"id": "q1", "class": "exact", "relevant": [], "recall": RECALL}, "no_match probes"),
        ({"id": "q1", "class": "no_match", "relevant": ["tea"], "recall": RECALL}, "no_match"),
        ({"id": "q1", "class": "exact", "relevant": ["tea"], "recall": {"query": "x"}}, "valid"),
        (
            {"id": "q1", "class": "exact", "relevant": ["tea"], "recall": {**RECALL, "k": 3}},
            "sets",
        ),
        ({"id": "q1", "class": "exact", "relevant": ["nope"], "recall": RECALL}, "unknown label"),
        ({"id": "q1", "class": "exact", "relevant": ["other"], "recall": RECALL}, "another agent"),
        (
            {
                "id": "q1",
                "class": "exact",
                "relevant": ["tea"],
                "recall": {**RECALL, "user_id": "v"},
            },
            "another user",
        ),
        (
            {
                "id": "q1",
                "class": "exact",
                "relevant": ["tea"],
                "recall": {**RECALL, "types": ["emotional"]},
            },
            "a type the query leaves out",
        ),
        (
            {
                "id": "q1",
                "class": "temporal",
                "relevant": ["tea"],
                "recall": {**RECALL, "fresher_than_days": 30},
            },
            "older than fresher_than_days",
        ),
    ],
)
def test_bad_queries_are_refused(query: dict[str, object], message: str) -> None:
    with pytest.raises(CorpusError, match=message):
        parse_queries(_corpus(query), CORPUS)


def test_a_good_query_loads() -> None:
    line = {"id": "q1", "class": "paraphrase", "relevant": ["tea"], "recall": RECALL, "note": "n"}
    query, probe = parse_queries(
        _corpus(line, {**line, "id": "q2", "class": "no_match", "relevant": []}), CORPUS
    )
    assert (query.id, query.relevant, query.note) == ("q1", frozenset({"tea"}), "n")
    assert (query.no_match, probe.no_match) == (False, True)
    with pytest.raises(CorpusError, match="ids are unique"):
        parse_queries(_corpus(line, line), CORPUS)
