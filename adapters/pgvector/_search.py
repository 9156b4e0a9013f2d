"""The two searches of a recall, as SQL, and the word statistics that pick a query's rare words.

Both searches return whole records (with their last recall time), so a recall needs no third
query to fetch them: the store sends both in one pipeline, fuses, and is done.

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

__all__ = ["MAX_TERMS", "STATS_TTL_SECONDS", "WordStats", "keyword_query", "vector_query"]

#: most words a keyword query keeps, rarest first
MAX_TERMS = 8
#: how long the table's word statistics are reused before they are read again
STATS_TTL_SECONDS = 60.0
_RECORD = f"{COLUMNS}, r.at AS last_recalled_at"


def vector_query(scope: Scope, vector: Any, fetch: int) -> tuple[str, list[Any]]:
    """Records nearest to ``vector`` in scope, with ``distance``; nearest first after sorting
    by (distance, id)."""
    sql = f"""WITH ann AS MATERIALIZED (
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
        )
        SELECT {_RECORD}, c.distance, EXISTS (SELECT FROM exact) AS exact
        FROM chosen c JOIN memories m ON m.seq = c.seq LEFT JOIN recalls r ON r.memory = m.seq"""
    args = [vector, *scope.args, vector, fetch, vector, *scope.args, fetch, vector, fetch]
    return sql, args


def keyword_query(scope: Scope, terms: list[str], vector: Any, fetch: int) -> tuple[str, list[Any]]:
    """Records in scope holding any of ``terms``, best ts_rank first, ties by id; with their
    ``distance`` to ``vector`` too (every hit reports its relevance)."""
    query = tsquery_of(terms)
    sql = f"""WITH hits AS MATERIALIZED (
            SELECT m.seq, ts_rank(m.search, %s::tsquery, 1) AS rank FROM memories m
            WHERE m.search @@ %s::tsquery AND {scope.sql}
            ORDER BY rank DESC, m.id COLLATE "C" LIMIT %s
        )
        SELECT {_RECORD}, m.embedding <=> %s AS distance FROM hits h
        JOIN memories m ON m.seq = h.seq LEFT JOIN recalls r ON r.memory = m.seq
        ORDER BY h.rank DESC, m.id COLLATE "C\""""
    return sql, [query, query, *scope.args, fetch, vector]


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
