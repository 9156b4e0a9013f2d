"""The sqlite-vec store's keyword index: a plain table of (agent, word, record), searched as
``mnemowire.adapters._keywords`` says (rare words of the agent's own records, idf ranking).

A plain table rather than FTS5, for three reasons. Erasure: FTS5 keeps a deleted document's
words in its segment b-trees until a merge rewrites them (``memories_fts_data`` still held every
word of a hard-deleted record after a checkpoint and 100 more writes), where a table row deleted
under ``secure_delete`` is zeroed in the page. Isolation: FTS5's document counts are the whole
table's, so one agent's words changed another's rarity; keyed by agent, every count here is the
agent's own and costs one b-tree range. And the same tokens as the PostgreSQL store, on every
SQLite (FTS5's secure-delete needs 3.42+; many Pythons ship older).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from mnemowire.adapters._keywords import (
    indexed_terms,
    keyword_terms,
    rank_matches,
    rare_terms,
    rarity_limit,
)

__all__ = ["add_record", "keyword_search", "remove_record"]


def add_record(tx: Any, agent_id: str, rowid: int, text: str) -> None:
    """Index a visible record's searchable text."""
    tx.executemany(
        "INSERT OR IGNORE INTO keywords(agent_id, term, record) VALUES (?, ?, ?)",
        [(agent_id, term, rowid) for term in indexed_terms(text)],
    )


def remove_record(tx: Any, rowid: int) -> None:
    """Take a record out of the index (hidden, changed or erased): every row it had."""
    tx.execute("DELETE FROM keywords WHERE record = ?", (rowid,))


def keyword_search(
    tx: Any,
    agent_id: str,
    documents: int,
    query: str,
    fetch: int,
    *,
    where: tuple[str, Sequence[Any]],
) -> list[int]:
    """In-scope rowids holding the query's rare words, best first (at most ``fetch``).

    ``documents`` is the agent's visible record count; ``where`` the recall scope as SQL over
    ``memories m`` and its arguments, applied to the matches (few: the words are rare).
    """
    terms = keyword_terms(query)
    if not terms or documents == 0:
        return []
    cap = rarity_limit(documents) + 1  # counting past the limit says nothing more
    held = {
        term: int(count)
        for term, count in tx.execute(
            "SELECT t.value, (SELECT count(*) FROM (SELECT 1 FROM keywords k "
            "WHERE k.agent_id = ? AND k.term = t.value LIMIT ?)) FROM json_each(?) AS t",
            (agent_id, cap, json.dumps(terms, ensure_ascii=False)),
        )
    }
    kept = rare_terms(held, documents)
    if not kept:
        return []
    matches = tx.execute(
        f"SELECT record, term FROM keywords WHERE agent_id = ? "
        f"AND term IN ({','.join('?' * len(kept))})",
        [agent_id, *kept],
    ).fetchall()
    ranked = rank_matches(matches, held, documents)
    scope_sql, scope_args = where
    placeholders = ",".join("?" * len(ranked))
    in_scope = {
        r
        for (r,) in tx.execute(
            f"SELECT m.rowid FROM memories AS m NOT INDEXED WHERE m.rowid IN ({placeholders}) "
            f"AND {scope_sql}",
            [*ranked, *scope_args],
        )
    }
    return [r for r in ranked if r in in_scope][:fetch]
