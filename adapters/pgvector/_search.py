"""The two searches of a recall, as SQL, the count of the query's words that picks the rare
ones, and the agent sizes that set how rare a searched word must be.

Both searches run in one statement and return whole records (with their last recall time); the
store then ranks and fuses in Python (``mnemowire.fusion.rrf``).

Vector side: the k' nearest in scope by the IVFFlat index (``_vector_index``; with
``ivfflat.iterative_scan = relaxed_order`` it probes further cells while the filters reject too many
rows; the caller orders the candidates by exact distance). The index scan can still stop short (at
``ivfflat.max_probes``: a scope holding a sliver of the table); then, and only then, the same query
runs exactly, with an ORDER BY the index cannot serve. That branch is gated by a one-time filter on
the first branch's row count, so PostgreSQL skips it entirely when the index scan was complete.

Keyword side (``mnemowire.kit.keywords``): first ``held_counts`` counts how many of the
agent's visible records hold each of the query's words, as the agent's lexemes
(``_sql.lexemes_of``: one GIN posting list per agent and word, so it never reads another
agent's records), each count stopping past the rarity limit; ``rare_terms`` keeps the rare
ones, and the search statement returns every record in scope holding one, for
``rank_matches``. Counting in a statement of its own costs a round trip and saves more:
folded into the search, it made that statement take ~1.4 ms to plan on every recall. The
agent's size, which sets the limit, and each word's count are reused until this store changes
the agent's records, or for at most SIZE_TTL_SECONDS (``AgentSizes``): another process's
writes change which words count as rare a minute later at most. A word the keyword index's
statistics call common is not counted at all (GIN would read its whole posting list).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mnemowire.adapters.pgvector._sql import COLUMNS, VISIBLE_WORDS, Scope, agent_key, lexeme
from mnemowire.adapters.pgvector._vector_index import NAME as VECTOR_INDEX
from mnemowire.adapters.pgvector._vector_index import index_lists, nearest
from mnemowire.kit import rrf, searchable_text
from mnemowire.kit.keywords import rank_matches, rarity_limit, words
from mnemowire.kit.periods import by_period, happened_at, named_period
from mnemowire.kit.replies import asks, lend_to_replies, replies_in_time
from mnemowire.models import MemoryType, RecallRequest

__all__ = [
    "COUNT_QUERY",
    "RECALL_TRACKING_GRANULARITY_MS",
    "SIZE_TTL_SECONDS",
    "AgentSizes",
    "held_counts",
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
#: most word counts remembered, over all agents
MAX_WORDS = 200_000
#: a word the statistics estimate more than this many times the rarity limit of the agent's
#: records hold is common without being counted
COMMON_MARGIN = 10
#: autovacuum's defaults (autovacuum_analyze_threshold, autovacuum_analyze_scale_factor): the
#: rows that may change before a table is analyzed again
ANALYZE_THRESHOLD = 50
ANALYZE_SCALE_FACTOR = 0.1
_RECORD = f"{COLUMNS}, r.at AS last_recalled_at"
#: how many visible records hold each lexeme (parameters: the count's limit, the lexemes)
COUNT_QUERY = (
    "SELECT x, (SELECT count(*) FROM (SELECT FROM memories m "
    f"WHERE {VISIBLE_WORDS} @@ quote_literal(x)::tsquery LIMIT %s) AS held) "
    "FROM unnest(%s::text[]) AS x"
)


async def held_counts(
    conn: Any, agent_id: str, terms: Sequence[str], documents: int
) -> dict[str, int]:
    """How many of the agent's visible records hold each of ``terms``, counted on the keyword
    index (each count stops one past the rarity limit: counting further says nothing more)."""
    if not terms or documents == 0:
        return {}
    key = agent_key(agent_id)
    lexemes = {lexeme(key, term): term for term in terms}
    cursor = await conn.execute(COUNT_QUERY, (rarity_limit(documents) + 1, list(lexemes)))
    return {lexemes[found]: int(count) for found, count in await cursor.fetchall()}


def recall_query(
    scope: Scope, vector: Any, kept: Sequence[str], fetch: int
) -> tuple[str, list[Any]]:
    """Both searches in one statement. Each row is a record found by one side (``side``:
    vector or keyword; a record both found comes twice) with its ``distance`` to ``vector`` and
    whether the vector side had to search ``exact``ly; the keyword side returns the records in
    scope holding any of the ``kept`` words. The caller orders the vector side by (distance,
    id) and ranks the keyword side."""
    ctes = f"""ann AS MATERIALIZED (
            SELECT m.seq, m.embedding <=> %s AS distance FROM memories m WHERE {scope.sql}
            ORDER BY {nearest("m.embedding", "%s", len(vector))} LIMIT %s
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
    closest = f"""SELECT 'vector' AS side, c.distance, EXISTS (SELECT FROM exact) AS exact,
            {_RECORD}
        FROM chosen c JOIN memories m ON m.seq = c.seq LEFT JOIN recalls r ON r.memory = m.seq"""
    if not kept:
        return f"WITH {ctes} {closest}", args
    # the records in scope holding a kept word (each word is held by at most the rarity limit
    # of them)
    key = agent_key(scope.agent_id)
    args += [vector, " | ".join(_quoted(lexeme(key, word)) for word in kept), *scope.args]
    matched = f"""SELECT 'keyword', m.embedding <=> %s, false, {_RECORD}
        FROM memories m LEFT JOIN recalls r ON r.memory = m.seq
        WHERE {VISIBLE_WORDS} @@ %s::tsquery AND {scope.sql}"""
    return f"WITH {ctes} {closest} UNION ALL {matched}", args


def _quoted(word: str) -> str:
    """A lexeme as a tsquery operand (quoted: ``/`` and any other character stay literal)."""
    return "'" + word.replace("\\", "\\\\").replace("'", "''") + "'"


def keyword_matches(
    rows: Sequence[dict[str, Any]], held: Mapping[str, int], documents: int, fetch: int
) -> list[dict[str, Any]]:
    """The keyword side's records ranked by ``rank_matches`` (best first, at most ``fetch``);
    ``held`` counts the searched words. Which of them a record holds is read from its own
    text, with the same tokens the index was built from (the searched words are indexed words
    already, so the text's plain tokens say it, without sifting them again); records holding
    the same words rank by their cosine similarity to the query (one minus the row's
    ``distance``)."""
    matches = [
        (row["id"], term)
        for row in rows
        for term in held.keys() & set(words(searchable_text(row["type"], row["content"])))
    ]
    by_id = {row["id"]: row for row in rows}
    relevance = {i: 1.0 - float(row["distance"]) for i, row in by_id.items()}
    return [by_id[i] for i in rank_matches(matches, held, documents, relevance)][:fetch]


@dataclass(frozen=True)
class Searched:
    """What a recall's searches found: the vector side nearest first, the keyword side best
    first, and the words searched."""

    found: list[dict[str, Any]]
    matched: list[dict[str, Any]]
    terms: list[str]


@dataclass(frozen=True)
class Ranked:
    """A recall's answer: the records it read by id, their scores and relevance, and the ids
    of the best k, best first."""

    records: dict[str, dict[str, Any]]
    score: dict[str, float]
    relevance: dict[str, float]
    top: list[str]

    def top_records(self) -> list[dict[str, Any]]:
        return [self.records[i] for i in self.top]

    def hits(self) -> list[tuple[dict[str, Any], float, float]]:
        return [(self.records[i], self.score[i], self.relevance[i]) for i in self.top]


def replies_query(
    scope: Scope, vector: Any, user_id: str | None, questions: list[int]
) -> tuple[str, list[Any]]:
    """The reply of each question (by seq) of ``user_id``, when the recall's scope admits it,
    with its distance to ``vector`` ([recall.replies]): the next visible episodic record of
    the question's agent and user in write order (created_at, then seq)."""
    same_user = "n.user_id IS NULL" if user_id is None else "n.user_id = %s"
    # the next record's seq first, one step down memories_scope (agent, state, user, type,
    # created_at, seq), then that record, if in scope, with its distance
    sql = f"""WITH next AS MATERIALIZED (
            SELECT q.seq AS question, q.event_time AS question_time, (
                SELECT n.seq FROM memories n
                WHERE n.agent_id = %s AND n.state = 'active' AND {same_user}
                    AND n.type = %s AND (n.created_at, n.seq) > (q.created_at, q.seq)
                ORDER BY n.created_at, n.seq LIMIT 1
            ) AS reply
            FROM memories q WHERE q.seq = ANY(%s::bigint[])
        )
        SELECT x.question, x.question_time, 'reply' AS side, m.embedding <=> %s AS distance,
            false AS exact, {_RECORD}
        FROM next x JOIN memories m ON m.seq = x.reply LEFT JOIN recalls r ON r.memory = m.seq
        WHERE {scope.sql}"""
    user = [] if user_id is None else [user_id]
    return sql, [scope.agent_id, *user, MemoryType.EPISODIC.value, questions, vector, *scope.args]


async def replies(
    cursor: Any, scope: Scope, vector: Any, rows: Sequence[dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """The reply of each of ``rows`` that asks, by the question's id, read right after the
    searches on their connection (a statement of its own: the reply's scope is checked
    again there): one statement per user among them."""
    questions = {r["seq"]: r for r in rows if asks(r["type"], r["content"])}
    by_user: dict[str | None, list[int]] = {}
    for seq, row in sorted(questions.items()):
        by_user.setdefault(row["user_id"], []).append(seq)
    found: dict[str, dict[str, Any]] = {}
    for user_id, seqs in by_user.items():
        await cursor.execute(*replies_query(scope, vector, user_id, seqs))
        for row in await cursor.fetchall():
            if replies_in_time(row["question_time"], row["event_time"]):
                found[questions[row["question"]]["id"]] = row
    return found


async def rank(
    cursor: Any, scope: Scope, vector: Any, searched: Searched, req: RecallRequest
) -> Ranked:
    """Fuse the two lists (RRF), drop records under the relevance floor, apply demotion, rank
    by the calendar period the query names ([recall.named-period]), lend the replies of the
    best k that ask their share ([recall.replies], read through ``cursor``) and keep the best
    k (ties to the smaller id). Relevance is the cosine similarity, comparable across
    queries, unlike the fused score."""
    floor, found, matched = req.min_relevance, searched.found, searched.matched
    records = {r["id"]: r for r in (*found, *matched)}
    fused = rrf([[r["id"] for r in found], [r["id"] for r in matched]])
    relevance = {i: max(-1.0, min(1.0, 1.0 - r["distance"])) for i, r in records.items()}
    score = {
        i: fused[i] * records[i]["demote"] for i in fused if floor is None or relevance[i] >= floor
    }
    period = named_period(req.query)
    if period is not None:
        order = sorted(score, key=lambda i: (-score[i], i))
        when = {i: happened_at(records[i]) for i in order}
        score = by_period(order, when, period)
    best = sorted(score, key=lambda i: (-score[i], i))[: req.k]
    reply_of = {}
    for question, reply in (
        await replies(cursor, scope, vector, [records[i] for i in best])
    ).items():
        reach = max(-1.0, min(1.0, 1.0 - reply["distance"]))
        if floor is None or reach >= floor:
            records.setdefault(reply["id"], reply)
            relevance.setdefault(reply["id"], reach)
            reply_of[question] = reply["id"]
    demote = {i: records[i]["demote"] for i in reply_of.values()}
    score = lend_to_replies(score, reply_of, demote)
    top = sorted(score, key=lambda i: (-score[i], i))[: req.k]
    return Ranked(records, score, relevance, top)


def stale_records(records: list[dict[str, Any]], now: int) -> list[int]:
    """The records whose last recall time is older than the tracking granularity (seq order):
    recall tracking rewrites a record's time at most once a minute."""
    return sorted(
        r["seq"]
        for r in records
        if (r["last_recalled_at"] or 0) < now - RECALL_TRACKING_GRANULARITY_MS
    )


@dataclass
class AgentCounts:
    """One agent's visible-record count and the counts of the words recalls searched, valid
    together until the agent changes (``AgentSizes.changed``) or SIZE_TTL_SECONDS pass; read
    with them, the table's rows as the planner estimates them and the vector index's cells
    (None: no index yet), which set a search's probes."""

    size: int
    counted_at: float
    table_rows: float = 0.0
    lists: int | None = None
    words: dict[str, int] = field(default_factory=dict)


class AgentSizes:
    """How many visible records each agent has, which sets how rare a searched word must be
    (``rarity_limit``: one in 32 of them, at least 3 and at most 32), and how many hold each
    word its recalls searched. Counted on the indexes, reused until this store changes the
    agent or SIZE_TTL_SECONDS pass: queries repeat their words. Only the agent's own records
    are ever counted.

    A word the keyword index's statistics list as held by many times the limit of the agent's
    records (``COMMON_MARGIN``) is common without counting: GIN cannot stop a count early, so
    counting a word 100,000 records hold reads all of them (~12 ms), where a rare word costs
    ~0.1 ms. The statistics list agent-keyed lexemes, so they too speak of this agent's
    records only; sampled, they could call a rare word common only if ANALYZE's sample held
    it many times more often than the agent holds it.

    Each size count also says whether the table's planner statistics are missing or far behind
    (``stale``): one agent alone holding more visible records than the last ANALYZE saw rows
    plus what autovacuum's own rule lets change unanalyzed (50 + 10 % of them; none yet, for a
    new table).
    Without statistics the planner reads the table for every searched word, and autovacuum
    can take a minute to get there; the store analyzes at once instead."""

    def __init__(self) -> None:
        self._agents: dict[str, AgentCounts] = {}
        self._words = 0
        #: bumped by every change: a count that overlapped one is used once, not kept
        self._changes = 0
        #: agent lexeme -> visible records holding it, as the statistics estimate (common
        #: words only), and when that was read
        self._common: dict[str, float] = {}
        self._common_read_at = -SIZE_TTL_SECONDS
        #: set when a count found the statistics stale; the store clears it when it analyzes
        self.stale = False

    def expire(self) -> None:
        """Count again, and read the statistics again, at the next query (after a bulk
        import or an ANALYZE)."""
        self._changes += 1
        self._agents.clear()
        self._words = 0
        self._common_read_at = -SIZE_TTL_SECONDS

    def changed(self, agent_ids: Iterable[str]) -> None:
        """This store changed these agents' records: count them again at their next query
        (other processes' writes are seen within SIZE_TTL_SECONDS)."""
        self._changes += 1
        for agent_id in agent_ids:
            self._forget(agent_id)

    def _forget(self, agent_id: str) -> None:
        dropped = self._agents.pop(agent_id, None)
        if dropped is not None:
            self._words -= len(dropped.words)

    async def of(self, conn: Any, agent_id: str) -> AgentCounts:
        """The agent's counts, its size counted again when unknown or too old."""
        known = self._agents.get(agent_id)
        if known is not None and time.monotonic() - known.counted_at <= SIZE_TTL_SECONDS:
            return known
        changes = self._changes
        cursor = await conn.execute(
            "SELECT (SELECT count(*) FROM memories WHERE agent_id = %s AND state = 'active'), "
            "(SELECT reltuples FROM pg_class WHERE oid = 'memories'::regclass), "
            "(SELECT reloptions FROM pg_class WHERE oid = to_regclass(%s))",
            (agent_id, VECTOR_INDEX),
        )
        row = await cursor.fetchone()
        size = int(row[0]) if row is not None else 0
        analyzed_rows = max(float(row[1]), 0.0) if row is not None and row[1] is not None else 0.0
        # the table has grown past autovacuum's trigger when this agent alone outnumbers the
        # rows the last ANALYZE saw by more than the rule allows
        if size > analyzed_rows * (1 + ANALYZE_SCALE_FACTOR) + ANALYZE_THRESHOLD:
            self.stale = True
        lists = index_lists(row[2]) if row is not None else None
        counts = AgentCounts(size, time.monotonic(), max(analyzed_rows, float(size)), lists)
        if self._changes != changes:  # a write ended while counting: the count may predate it
            return counts
        self._forget(agent_id)
        if len(self._agents) >= MAX_SIZES:
            self._forget(next(iter(self._agents)))
        self._agents[agent_id] = counts
        return counts

    async def held(self, conn: Any, agent_id: str, terms: Sequence[str]) -> dict[str, int]:
        """How many of the agent's visible records hold each of ``terms`` (``held_counts``),
        counting only the words not counted since the agent last changed; a word the
        statistics call common is given as one past the limit, uncounted."""
        counts = await self.of(conn, agent_id)
        known = counts.words
        missing = [term for term in dict.fromkeys(terms) if term not in known]
        if not missing:
            return {term: known[term] for term in terms if term in known}
        limit = rarity_limit(counts.size)
        common = await self._common_words(conn)
        key = agent_key(agent_id)
        obvious = {
            term: limit + 1
            for term in missing
            if common.get(lexeme(key, term), 0.0) > COMMON_MARGIN * limit
        }
        changes = self._changes
        found = await held_counts(
            conn, agent_id, [term for term in missing if term not in obvious], counts.size
        )
        if self._changes == changes and self._agents.get(agent_id) is counts:
            if self._words + len(found) > MAX_WORDS:  # a bound, not an eviction policy
                for other in self._agents.values():
                    other.words.clear()
                self._words = 0
            self._words += len(found.keys() - known.keys())
            known.update(found)
        every = {**known, **found, **obvious}
        return {term: every[term] for term in terms if term in every}

    async def _common_words(self, conn: Any) -> dict[str, float]:
        """The keyword index's most common lexemes with the visible records estimated to hold
        each (the frequencies are shares of the non-NULL, so visible, rows), read at most
        once every SIZE_TTL_SECONDS."""
        if time.monotonic() - self._common_read_at <= SIZE_TTL_SECONDS:
            return self._common
        cursor = await conn.execute(
            "SELECT s.most_common_elems::text::text[], s.most_common_elem_freqs, s.null_frac, "
            "(SELECT reltuples FROM pg_class WHERE oid = 'memories'::regclass) "
            "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "JOIN pg_stats s ON s.schemaname = n.nspname AND s.tablename = c.relname "
            "WHERE c.oid = to_regclass('memories_search')"  # none while a bulk import defers it
        )
        row = await cursor.fetchone()
        self._common = {}
        if row is not None and row[0] is not None and row[3] is not None and row[3] > 0:
            visible = float(row[3]) * (1.0 - float(row[2] or 0.0))
            # zip stops at the elements: the last three frequencies are summary values
            self._common = {e: float(f) * visible for e, f in zip(row[0], row[1], strict=False)}
        self._common_read_at = time.monotonic()
        return self._common
