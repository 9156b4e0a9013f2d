"""A round trip changes no answer: the project's quality corpora (dev and holdout) written with
all-MiniLM-L6-v2 into sqlite-vec, moved to PostgreSQL and back into a fresh sqlite-vec store
with ``migrate`` (the same embedder: vectors carried, never re-embedded), answer every query
with the same five records in the same order, so recall@5 is unchanged; and PostgreSQL, in
the middle, answers with recall@5 as high (its HNSW search is approximate, its order may
differ). The temporal queries are left out: the corpora date those memories with the
benchmark's clock, which a move keeps but this test does not set."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

import psycopg
import pytest
from psycopg import sql

from mnemowire.adapters.pgvector import PgVectorStore
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.bench.metrics import recall_at_k
from mnemowire.apps.bench.quality import load_corpus, load_queries
from mnemowire.embedders import Embedder, OnnxEmbedder
from mnemowire.layers.memory import Memory
from mnemowire.portability import migrate
from tests.models import shared_model_cache


async def _answers(memory: Memory, queries: Sequence[dict[str, object]]) -> list[list[str]]:
    return [
        [hit.id for hit in (await memory.recall({**query, "k": 5})).results] for query in queries
    ]


def _recall_at_5(
    answers: list[list[str]], labels: dict[str, str], relevant: list[frozenset[str]]
) -> float:
    scored = [
        recall_at_k([labels[i] for i in ids], wanted, 5)
        for ids, wanted in zip(answers, relevant, strict=True)
        if wanted
    ]
    return sum(scored) / len(scored)


async def _round_trip(corpus: str, embedder: Embedder, dsn: str) -> None:
    queries = [q for q in load_queries(corpus) if "fresher_than_days" not in q.recall]
    asked = [dict(q.recall) for q in queries]
    relevant = [q.relevant for q in queries]
    schema = f"t_{uuid.uuid4().hex[:12]}"
    try:
        async with Memory(SqliteVecStore(":memory:", embedder=embedder)) as source:
            labels = {
                (await source.remember(dict(item.remember))).id: item.label
                for item in load_corpus(corpus)
            }
            before = await _answers(source, asked)
            async with Memory(PgVectorStore(dsn, embedder=embedder, schema=schema)) as middle:
                there = await migrate(source, middle)
                assert there.faithful
                assert there.kept == {}  # the same embedder: every vector reused
                during = await _answers(middle, asked)
                async with Memory(SqliteVecStore(":memory:", embedder=embedder)) as back:
                    assert (await migrate(middle, back)).faithful
                    after = await _answers(back, asked)
        assert after == before, corpus
        kept = _recall_at_5(before, labels, relevant)
        assert _recall_at_5(after, labels, relevant) == kept
        assert _recall_at_5(during, labels, relevant) >= kept - 0.01, corpus
    finally:
        with psycopg.connect(dsn, autocommit=True) as connection:
            connection.execute(
                sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema))
            )


@pytest.mark.parametrize("corpus", ["dev", "holdout"])
async def test_a_round_trip_through_postgresql_changes_no_answer(
    corpus: str, pg_dsn: str, request: pytest.FixtureRequest
) -> None:
    embedder = OnnxEmbedder(cache_dir=shared_model_cache(request))
    embedder.export()  # a no-op once the tests have exported it on this machine
    await _round_trip(corpus, embedder, pg_dsn)
