"""The two searches of a recall, as SQL, and the word statistics that pick a query's rare words.

Both searches run in one statement and return whole records (with their last recall time), so
a recall is one round trip to search; the store then fuses in Python (``mnemowire.fusion.rrf``).

Vector side: the k' nearest in scope by the HNSW index (``hnsw.iterative_scan = strict_order``
keeps scanning past rows the filters reject). The index scan can still stop early (at
``hnsw.max_scan_tuples``); then, and only then, the same query runs exactly, with an ORDER BY
the index cannot serve. That branch is gated by a one-time filter on the first branch's row
count, so PostgreSQL skips it entirely when the index scan was complete.

Keyword side: records holding any of the query's rare words (a GIN index on the tsvector), best
``ts_rank`` first. As in the sqlite-vec store, a word is rare when at most
``max(RARE_DOCUMENTS, records / 10,000)`` active records hold it: what keyword search adds to
the vectors is exact matches on codes and unusual names, and a widely shared word fused with
equal weight outranks the answer (adapters/sqlite_vec/_keywords.py has the numbers).
The planner's statistics (``pg_stats.most_common_elems``, kept by ANALYZE and autovacuum) rule
out the common words for free; the others are counted on the GIN index, each count stopping
at the limit, and cached with the statistics.
"""

from __future__ import annotations

import time
from typing import Any

from mnemowire.adapters._common import RARE_DOCUMENTS, RARE_FRACTION, keyword_terms
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
    """Which words are rare in the store: PostgreSQL's column statistics, then exact counts."""

    def __init__(self) -> None:
        #: word -> fraction of records holding it, for the words the statistics list
        self.frequency: dict[str, float] = {}
        #: word -> active records holding it, counted up to ``limit + 1``
        self.documents: dict[str, int] = {}
        #: a word held by more active records than this is not searched
        self.limit = RARE_DOCUMENTS
        #: the table's size as the planner estimates it
        self.records = 0.0
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
            "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "LEFT JOIN pg_stats s ON s.schemaname = n.nspname AND s.tablename = c.relname "
            "AND s.attname = 'search' WHERE n.nspname = %s AND c.relname = 'memories'",
            (schema,),
        )
        row = await cursor.fetchone()
        self.frequency, self.documents = {}, {}
        self.records = max(float(row[2]), 0.0) if row is not None else 0.0  # -1: not analyzed
        self.limit = max(RARE_DOCUMENTS, int(self.records * RARE_FRACTION))
        if row is not None and row[0] is not None:
            # zip stops at the elements: the last three frequencies are summary values
            self.frequency = {e: float(f) for e, f in zip(row[0], row[1], strict=False)}
        self.read_at = time.monotonic()

    async def rare_terms(self, conn: Any, query: str) -> list[str]:
        """The query's words held by at most ``limit`` active records, rarest first."""
        terms = [t for t in keyword_terms(query) if len(t.encode("utf-8")) <= MAX_LEXEME_BYTES]
        listed = self.frequency  # the statistics list common words only, with their share
        candidates = [
            t for t in dict.fromkeys(terms) if listed.get(t, 0.0) * self.records <= self.limit
        ]
        held = {t: self.documents[t] for t in candidates if t in self.documents}
        unknown = [t for t in candidates if t not in held]
        if unknown:
            cursor = await conn.execute(
                "SELECT t, (SELECT count(*) FROM (SELECT FROM memories m WHERE m.state = "
                "'active' AND m.search @@ quote_literal(t)::tsquery LIMIT %s) AS held) "
                "FROM unnest(%s::text[]) AS t",
                (self.limit + 1, unknown),
            )
            held.update({t: int(n) for t, n in await cursor.fetchall()})
            self.documents.update(held)
        # A word no record holds is searched too: it matches nothing now, and it matches the
        # record that brings it, without waiting for the counts to be read again.
        kept = [t for t in candidates if held[t] <= self.limit]
        return sorted(kept, key=lambda t: (self.documents[t], t))[:MAX_TERMS]
