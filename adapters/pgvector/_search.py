"""The two searches of a recall, as SQL, and the word statistics that pick a query's rare words.

Both searches run in one statement and return whole records (with their last recall time), so
a recall is one round trip to search; the store then fuses in Python (``mnemowire.fusion.rrf``).

Vector side: the k' nearest in scope by the HNSW index (``hnsw.iterative_scan = strict_order``
keeps scanning past rows the filters reject). The index scan can still stop early (at
``hnsw.max_scan_tuples``); then, and only then, the same query runs exactly, with an ORDER BY
the index cannot serve. That branch is gated by a one-time filter on the first branch's row
count, so PostgreSQL skips it entirely when the index scan was complete.

Keyword side: records holding any of the query's rare words (a GIN index on the tsvector), best
``ts_rank`` first. A word is common, and left out, when the planner's statistics for the
tsvector column (``pg_stats.most_common_elems``, refreshed by ANALYZE and autovacuum) put it in
more than max(256, 1%) of the records; an OR over common words would score most of the table.
"""

from __future__ import annotations

import time
from typing import Any

from mnemowire.adapters._common import keyword_terms
from mnemowire.adapters.pgvector._sql import COLUMNS, MAX_LEXEME_BYTES, Scope, tsquery_of
from mnemowire.fusion import rrf

__all__ = [
    "MAX_TERMS",
    "RECALL_TRACKING_GRANULARITY_MS",
    "STATS_TTL_SECONDS",
    "WordStats",
    "rank",
    "recall_query",
    "stale_records",
]

#: most words a keyword query keeps, rarest first
MAX_TERMS = 8
#: how often, at most, recall tracking rewrites a record's last recall time
RECALL_TRACKING_GRANULARITY_MS = 60_000
#: how long the table's word statistics are reused before they are read again
STATS_TTL_SECONDS = 60.0
_RECORD = f"{COLUMNS}, r.at AS last_recalled_at"


def recall_query(scope: Scope, vector: Any, terms: list[str], fetch: int) -> tuple[str, list[Any]]:
    """Both searches in one statement (one round trip). Each row is a record found by one side
    (``side``: vector or keyword; a record both found comes twice) with its ``distance`` to
    ``vector``, its keyword ``rank`` and whether the vector side had to search ``exact``ly.
    The caller orders each side: vector by (distance, id), keyword by (-rank, id)."""
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
    nearest = f"""SELECT 'vector' AS side, c.distance, 0.0::real AS rank,
            EXISTS (SELECT FROM exact) AS exact, {_RECORD}
        FROM chosen c JOIN memories m ON m.seq = c.seq LEFT JOIN recalls r ON r.memory = m.seq"""
    if not terms:
        return f"WITH {ctes} {nearest}", args
    query = tsquery_of(terms)
    ctes += f""", hits AS MATERIALIZED (
            SELECT m.seq, ts_rank(m.search, %s::tsquery, 1) AS rank FROM memories m
            WHERE m.search @@ %s::tsquery AND {scope.sql}
            ORDER BY rank DESC, m.id COLLATE "C" LIMIT %s
        )"""
    args += [query, query, *scope.args, fetch, vector]
    matched = f"""SELECT 'keyword', m.embedding <=> %s, h.rank, false, {_RECORD}
        FROM hits h JOIN memories m ON m.seq = h.seq LEFT JOIN recalls r ON r.memory = m.seq"""
    return f"WITH {ctes} {nearest} UNION ALL {matched}", args


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


class WordStats:
    """Which words are common in the store, from PostgreSQL's own column statistics."""

    def __init__(self) -> None:
        #: word -> fraction of records holding it, for the words the statistics list
        self.frequency: dict[str, float] = {}
        #: words above this fraction are common
        self.cutoff = 1.0
        self.read_at = -STATS_TTL_SECONDS

    @property
    def stale(self) -> bool:
        return time.monotonic() - self.read_at > STATS_TTL_SECONDS

    def expire(self) -> None:
        """Read the statistics again at the next query (after a bulk import)."""
        self.read_at = -STATS_TTL_SECONDS

    async def refresh(self, conn: Any, schema: str) -> None:
        cursor = await conn.execute(
            "SELECT s.most_common_elems::text::text[], s.most_common_elem_freqs, c.reltuples "
            "FROM pg_stats s JOIN pg_namespace n ON n.nspname = s.schemaname "
            "JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = s.tablename "
            "WHERE s.schemaname = %s AND s.tablename = 'memories' AND s.attname = 'search'",
            (schema,),
        )
        row = await cursor.fetchone()
        self.frequency, self.cutoff = {}, 1.0
        if row is not None and row[0] is not None:
            elems, freqs, documents = row
            # zip stops at the elements: the last three frequencies are summary values
            self.frequency = {e: float(f) for e, f in zip(elems, freqs, strict=False)}
            self.cutoff = max(256 / max(float(documents), 1.0), 0.01)
        self.read_at = time.monotonic()

    def rare_terms(self, query: str) -> list[str]:
        """The query's words worth a keyword search, rarest first (unknown words count as
        rarest: the statistics only list common ones)."""
        terms = [t for t in keyword_terms(query) if len(t.encode("utf-8")) <= MAX_LEXEME_BYTES]
        kept = [t for t in terms if self.frequency.get(t, 0.0) <= self.cutoff]
        return sorted(kept, key=lambda t: (self.frequency.get(t, 0.0), t))[:MAX_TERMS]
