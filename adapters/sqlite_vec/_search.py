"""The sqlite-vec store's recall: the nearest vectors (the in-memory index, an exact scan of a
filtered set, or vec0) and the rare-word keyword matches among the records in scope, fused by
Reciprocal Rank Fusion, re-checked against the scope, and ranked with each record's demote
factor and relevance."""

from __future__ import annotations

from typing import Any

import numpy as np

from mnemowire.adapters.sqlite_vec import _keywords
from mnemowire.adapters.sqlite_vec._accel import IndexCache
from mnemowire.adapters.sqlite_vec._records import M_COLUMNS, Scope, records
from mnemowire.adapters.sqlite_vec._vectors import blob, similarities
from mnemowire.kit import rrf, search_depth
from mnemowire.kit.periods import by_period, named_period
from mnemowire.kit.replies import asks, lend_to_replies, replies_in_time
from mnemowire.models import MemoryType

__all__ = ["Ranked", "nearest", "search"]

#: the records of a recall, best first, each with its score and relevance
Ranked = list[tuple[dict[str, Any], float, float]]


def search(  # noqa: PLR0917 (a recall's parts, as the store has them)
    tx: Any,
    scope: Scope,
    vector: Any,
    query: str,
    k: int,
    min_relevance: float | None,
    indexes: IndexCache,
    accelerate_above: int,
) -> Ranked:
    """The best ``k`` visible records in ``scope`` for ``query`` (embedded as ``vector``),
    none below ``min_relevance``; ties go to the older record."""
    fetch = search_depth(k, query)
    documents = _visible(tx, scope.agent_id)
    closest = _vector_search(tx, scope, vector, fetch, documents, indexes, accelerate_above)
    keywords = _keywords.keyword_search(
        tx,
        scope.agent_id,
        documents,
        query,
        vector=vector,
        fetch=fetch,
        where=(scope.sql, scope.args),
    )
    fused = rrf([closest, keywords])
    candidates = _candidates(tx, list(fused), scope, vector)
    score = {
        rowid: fused[rowid] * demote
        for rowid, (demote, relevance, _) in candidates.items()
        if min_relevance is None or relevance >= min_relevance
    }
    period = named_period(query)
    if period is not None:  # [recall.named-period]
        order = sorted(score, key=lambda rowid: (-score[rowid], rowid))
        score = by_period(order, {r: candidates[r][2] for r in order}, period)
    score = _with_replies(tx, scope, vector, score, candidates, k=k, floor=min_relevance)
    top = sorted(score, key=lambda rowid: (-score[rowid], rowid))[:k]
    rows = _rows(tx, top, scope)
    return [(rows[r], score[r], candidates[r][1]) for r in top if r in rows]


def nearest(  # noqa: PLR0917 (a search's parts, as the store has them)
    tx: Any, scope: Scope, vector: Any, k: int, indexes: IndexCache, accelerate_above: int
) -> list[tuple[dict[str, Any], float]]:
    """The ``k`` visible records in ``scope`` closest to ``vector`` by embedding alone, closest
    first, with their cosine similarity: what a review's diff shows beside a staged record."""
    rowids = _vector_search(
        tx, scope, vector, k, _visible(tx, scope.agent_id), indexes, accelerate_above
    )
    candidates = _candidates(tx, rowids, scope, vector)
    ordered = sorted(candidates, key=lambda rowid: (-candidates[rowid][1], rowid))[:k]
    rows = _rows(tx, ordered, scope)
    return [(rows[r], candidates[r][1]) for r in ordered if r in rows]


def _visible(tx: Any, agent_id: str) -> int:
    """The agent's count of visible records (what sizes its searches)."""
    row = tx.execute("SELECT visible FROM agent_stats WHERE agent_id = ?", (agent_id,)).fetchone()
    return 0 if row is None else int(row[0])


def _vector_search(  # noqa: PLR0917
    tx: Any,
    scope: Scope,
    vector: Any,
    fetch: int,
    documents: int,
    indexes: IndexCache,
    accelerate_above: int,
) -> list[int]:
    """Record rowids nearest to ``vector`` among those in scope, nearest first."""
    if documents == 0:
        return []
    index = None
    if documents >= accelerate_above:
        index = indexes.get(tx, scope.agent_id, documents)
    if index is not None:
        only = None
        if scope.filter:
            only = {
                r
                for (r,) in tx.execute(
                    f"SELECT m.rowid FROM memories m WHERE {scope.sql}", scope.args
                )
            }
        hits = index.search(
            vector,
            fetch,
            user_key=scope.user_key,
            types=list(scope.types),
            created_min=scope.created_min,
            now=scope.now,
            only=only,
        )
        return [rowid for rowid, _ in hits]
    if scope.filter:  # exact over the (small) filtered set: vec0 has no metadata column
        rows = tx.execute(
            f"SELECT m.rowid, m.embedding FROM memories m WHERE {scope.sql}", scope.args
        ).fetchall()
        if not rows:
            return []
        similarity = similarities([b for _, b in rows], vector)
        rowids = np.array([rowid for rowid, _ in rows], np.int64)
        order = np.lexsort((rowids, -similarity))[:fetch]
        return [int(rowids[i]) for i in order]
    sql = (
        "SELECT rowid, distance FROM memories_vec WHERE embedding MATCH ? AND k = ? "
        "AND agent_id = ? AND expires_at > ?"
    )
    args: list[Any] = [blob(vector), fetch, scope.agent_id, scope.now]
    if scope.user_key is not None:
        sql += " AND user_key = ?"
        args.append(scope.user_key)
    if scope.types:
        sql += f" AND type IN ({','.join('?' * len(scope.types))})"
        args.extend(scope.types)
    if scope.created_min is not None:
        sql += " AND created_at >= ?"
        args.append(scope.created_min)
    found = tx.execute(sql, args).fetchall()
    return [rowid for rowid, _ in sorted(found, key=lambda row: (row[1], row[0]))]


def _candidates(
    tx: Any, rowids: list[int], scope: Scope, vector: Any
) -> dict[int, tuple[float, float, int]]:
    """(demote factor, relevance, time) of each candidate still in scope (the scope is
    re-checked here). Relevance is the cosine similarity of query and memory: vectors are unit
    length, so a dot product. Time is when it happened: ``event_time``, else ``created_at``."""
    if not rowids:
        return {}
    placeholders = ",".join("?" * len(rowids))
    rows = tx.execute(
        f"SELECT m.rowid, m.demote, coalesce(m.event_time, m.created_at), m.embedding "
        f"FROM memories AS m NOT INDEXED WHERE m.rowid IN ({placeholders}) AND {scope.sql}",
        [*rowids, *scope.args],
    ).fetchall()
    if not rows:
        return {}
    relevance = similarities([row[3] for row in rows], vector)
    return {
        rowid: (demote, max(-1.0, min(1.0, float(sim))), when)
        for (rowid, demote, when, _), sim in zip(rows, relevance, strict=True)
    }


def _with_replies(
    tx: Any,
    scope: Scope,
    vector: Any,
    score: dict[int, float],
    candidates: dict[int, tuple[float, float, int]],
    *,
    k: int,
    floor: float | None,
) -> dict[int, float]:
    """``score`` with each of the best ``k`` candidates that asks lending a share to its reply
    ([recall.replies]). A reply that was no candidate joins ``candidates`` if the recall's
    scope admits it (checked there); a reply lends nothing below the relevance ``floor``."""
    best = sorted(score, key=lambda rowid: (-score[rowid], rowid))[:k]
    if not best:
        return score
    placeholders = ",".join("?" * len(best))
    asking = tx.execute(
        f"SELECT rowid, user_id, created_at, event_time, type, content FROM memories "
        f"NOT INDEXED WHERE rowid IN ({placeholders}) AND type = ?",
        [*best, MemoryType.EPISODIC.value],
    ).fetchall()
    reply_of: dict[int, int] = {}
    for rowid, user_id, created_at, event_time, kind, content in asking:
        if not asks(kind, content):
            continue
        reply = tx.execute(  # the next visible episodic record of its agent and user
            "SELECT rowid, event_time FROM memories WHERE agent_id = ? AND state = 'active' "
            "AND user_id IS ? AND type = ? AND (created_at, rowid) > (?, ?) "
            "ORDER BY created_at, rowid LIMIT 1",
            (scope.agent_id, user_id, MemoryType.EPISODIC.value, created_at, rowid),
        ).fetchone()
        if reply is not None and replies_in_time(event_time, reply[1]):
            reply_of[rowid] = reply[0]
    joining = [r for r in dict.fromkeys(reply_of.values()) if r not in candidates]
    candidates.update(_candidates(tx, joining, scope, vector))
    reply_of = {
        question: reply
        for question, reply in reply_of.items()
        if reply in candidates and (floor is None or candidates[reply][1] >= floor)
    }
    demote = {reply: candidates[reply][0] for reply in reply_of.values()}
    return lend_to_replies(score, reply_of, demote)


def _rows(tx: Any, rowids: list[int], scope: Scope) -> dict[int, dict[str, Any]]:
    """Full records for rowids, re-checked against the scope (belt and braces)."""
    if not rowids:
        return {}
    placeholders = ",".join("?" * len(rowids))
    rows = tx.execute(
        f"SELECT {M_COLUMNS} FROM memories AS m NOT INDEXED "
        f"WHERE m.rowid IN ({placeholders}) AND {scope.sql}",
        [*rowids, *scope.args],
    ).fetchall()
    return {fields["rowid"]: fields for fields in records(rows)}
