"""The two searches of a recall, as SQL, and the agent sizes that set how rare a searched word
must be.

Both searches run in one statement and return whole records (with their last recall time), so
a recall is one round trip; the store then ranks and fuses in Python (``mnemowire.fusion.rrf``).

Vector side: the k' nearest in scope by the HNSW index (``hnsw.iterative_scan = strict_order``
keeps scanning past rows the filters reject). The index scan can still stop early (at
``hnsw.max_scan_tuples``); then, and only then, the same query runs exactly, with an ORDER BY
the index cannot serve. That branch is gated by a one-time filter on the first branch's row
count, so PostgreSQL skips it entirely when the index scan was complete.

Keyword side (``mnemowire.adapters._keywords``): the query's words, as the agent's lexemes
(``_sql.lexemes_of``), are counted in the same statement, each count stopping past the rarity
limit (one GIN posting list per agent and word, so it never reads another agent's records); the
rare ones are kept by ``rare_terms``' rule (held by 1 to limit records, rarest first, at most
``MAX_TERMS``), and every record in scope holding one comes back with the kept words and their
counts, for ``rank_matches``. The agent's size, which sets the limit, is counted at most once
a minute per agent (``AgentSizes``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from mnemowire.adapters._common import searchable_text
from mnemowire.adapters._keywords import (
    MAX_TERMS,
    indexed_terms,
    keyword_terms,
    rank_matches,
    rarity_limit,
)
from mnemowire.adapters.pgvector._sql import COLUMNS, Scope, agent_key, lexeme
from mnemowire.fusion import rrf

__all__ = [
    "RECALL_TRACKING_GRANULARITY_MS",
    "SIZE_TTL_SECONDS",
    "AgentSizes",
    "keyword_matches",
    "rank",
    "recall_query",
    "stale_records",
]

#: how often, at most, recall tracking rewrites a record's last recall time
RECALL_TRACKING_GRANULARITY_MS = 60_000
#: how long an agent's visible-record count is reused before it is counted again
SIZE_TTL_SECONDS = 60.0
#: most agents whose size is remembered
MAX_SIZES = 10_000
_RECORD = f"{COLUMNS}, r.at AS last_recalled_at"


def recall_query(
    scope: Scope, vector: Any, query: str, documents: int, fetch: int
) -> tuple[str, list[Any]]:
    """Both searches in one statement (one round trip). Each row is a record found by one side
    (``side``: vector or keyword; a record both found comes twice) with its ``distance`` to
    ``vector`` and whether the vector side had to search ``exact``ly; keyword rows also carry
    ``kept`` (the searched lexemes) and ``held`` (how many of the agent's records hold each).
    The caller orders the vector side by (distance, id) and ranks the keyword side."""
    ctes = f"""ann AS MATERIALIZED (
            SELECT m.seq, m.embedding <=> %s AS distance FROM memories m WHERE {scope.sql}
            ORDER BY m.embedding <=> %s LIMIT %s
        ), exact AS MATERIALIZED (
            SELECT m.seq, m.embedding <=> %s AS distance FROM memories m
            WHERE {scope.sql} AND (SELECT count(*) FROM ann) < %s
            ORDER BY (m.embedding <=> %s) + 0 LIMIT %s
        ), chosen AS (
            SELECT seq, distance FROM exact
            UNION ALL
            SELECT seq, distance FROM ann WHERE NOT EXISTS (SELECT FROM exact)
        )"""
    args: list[Any] = [vector, *scope.args, vector, fetch, vector, *scope.args, fetch, vector]
    args.append(fetch)
    nearest = f"""SELECT 'vector' AS side, c.distance, NULL::text[] AS kept, NULL::int[] AS held,
            EXISTS (SELECT FROM exact) AS exact, {_RECORD}
        FROM chosen c JOIN memories m ON m.seq = c.seq LEFT JOIN recalls r ON r.memory = m.seq"""
    terms = keyword_terms(query)
    if not terms or documents == 0:
        return f"WITH {ctes} {nearest}", args
    key = agent_key(scope.agent_id)
    limit = rarity_limit(documents)
    # the rule of _keywords.rare_terms, in SQL (the key is common to every lexeme, so ordering
    # lexemes by code point orders their words by code point)
    ctes += f""", asked AS (
            SELECT x AS lexeme, quote_literal(x)::tsquery AS query FROM unnest(%s::text[]) AS x
        ), counted AS MATERIALIZED (
            SELECT a.lexeme, a.query, (SELECT count(*) FROM (SELECT FROM memories m
                WHERE m.state = 'active' AND m.search @@ a.query LIMIT %s) AS held) AS n
            FROM asked a
        ), kept AS MATERIALIZED (
            SELECT lexeme, n FROM counted WHERE n BETWEEN 1 AND %s
            ORDER BY n, lexeme COLLATE "C" LIMIT %s
        ), hits AS MATERIALIZED (
            SELECT m.seq FROM memories m
            WHERE m.search @@ (SELECT string_agg(quote_literal(lexeme), ' | ')::tsquery FROM kept)
            AND {scope.sql}
        )"""
    args += [[lexeme(key, t) for t in terms], limit + 1, limit, MAX_TERMS, *scope.args, vector]
    matched = f"""SELECT 'keyword', m.embedding <=> %s,
            (SELECT array_agg(lexeme ORDER BY lexeme) FROM kept),
            (SELECT array_agg(n::int ORDER BY lexeme) FROM kept), false, {_RECORD}
        FROM hits h JOIN memories m ON m.seq = h.seq LEFT JOIN recalls r ON r.memory = m.seq"""
    return f"WITH {ctes} {nearest} UNION ALL {matched}", args


def keyword_matches(
    rows: Sequence[dict[str, Any]], documents: int, fetch: int
) -> tuple[list[dict[str, Any]], list[str]]:
    """The keyword side's records ranked by ``rank_matches`` (best first, at most ``fetch``)
    and the words searched. Which kept words a record holds is read from its own text, with
    the same tokens the index was built from."""
    if not rows:
        return [], []
    first = rows[0]
    held = {
        lexeme.split("/", 1)[1]: int(n)
        for lexeme, n in zip(first["kept"], first["held"], strict=True)
    }
    matches = [
        (row["id"], term)
        for row in rows
        for term in held.keys() & set(indexed_terms(searchable_text(row["type"], row["content"])))
    ]
    by_id = {row["id"]: row for row in rows}
    return [by_id[i] for i in rank_matches(matches, held, documents)][:fetch], sorted(held)


def rank(
    found: list[dict[str, Any]],
    matched: list[dict[str, Any]],
    floor: float | None,
    k: int,
) -> tuple[dict[str, dict[str, Any]], dict[str, float], dict[str, float], list[str]]:
    """Fuse the two lists (RRF), drop records under the relevance floor, apply demotion and
    keep the best k (ties to the smaller id): (records, score, relevance, top ids). Relevance
    is the cosine similarity, comparable across queries, unlike the fused score."""
    records = {r["id"]: r for r in (*found, *matched)}
    fused = rrf([[r["id"] for r in found], [r["id"] for r in matched]])
    relevance = {i: max(-1.0, min(1.0, 1.0 - r["distance"])) for i, r in records.items()}
    score = {
        i: fused[i] * records[i]["demote"] for i in fused if floor is None or relevance[i] >= floor
    }
    top = sorted(score, key=lambda i: (-score[i], i))[:k]
    return records, score, relevance, top


def stale_records(records: list[dict[str, Any]], now: int) -> list[int]:
    """The records whose last recall time is older than the tracking granularity (seq order):
    recall tracking rewrites a record's time at most once a minute."""
    return sorted(
        r["seq"]
        for r in records
        if (r["last_recalled_at"] or 0) < now - RECALL_TRACKING_GRANULARITY_MS
    )


class AgentSizes:
    """How many visible records each agent has, which sets how rare a searched word must be
    (``rarity_limit``: it only moves past 30,000 records). Counted on the scope index at most
    once every SIZE_TTL_SECONDS per agent: milliseconds for a large agent, not worth paying
    on every recall. Only the agent's own count is ever used for it."""

    def __init__(self) -> None:
        self._sizes: dict[str, tuple[int, float]] = {}

    def expire(self) -> None:
        """Count again at the next query (after a bulk import)."""
        self._sizes.clear()

    async def of(self, conn: Any, agent_id: str) -> int:
        known = self._sizes.get(agent_id)
        if known is not None and time.monotonic() - known[1] <= SIZE_TTL_SECONDS:
            return known[0]
        cursor = await conn.execute(
            "SELECT count(*) FROM memories WHERE agent_id = %s AND state = 'active'", (agent_id,)
        )
        row = await cursor.fetchone()
        size = int(row[0]) if row is not None else 0
        if len(self._sizes) >= MAX_SIZES:
            self._sizes.pop(next(iter(self._sizes)))
        self._sizes[agent_id] = (size, time.monotonic())
        return size
