"""The sqlite-vec store's keyword index: a plain table of (token, record), a token being an
agent's word (64 bits of a BLAKE2b hash of agent id and word), searched as
``mnemowire.kit.keywords`` says (rare words of the agent's own records, idf ranking).

A plain table rather than FTS5, for three reasons. Erasure: FTS5 keeps a deleted document's
words in its segment b-trees until a merge rewrites them (``memories_fts_data`` still held every
word of a hard-deleted record after a checkpoint and 100 more writes), where a table row deleted
under ``secure_delete`` is zeroed in the page. Isolation: FTS5's document counts are the whole
table's, so one agent's words changed another's rarity; keyed by agent, every count here is the
agent's own and costs one b-tree range. And the same words as the PostgreSQL store, on every
SQLite (FTS5's secure-delete needs 3.42+; many Pythons ship older).

Tokens instead of (agent, word) pairs keep each row two integers: bulk loads write half as many
bytes (an agent id is repeated in every row otherwise), and the table never holds a word in
plain text. Two words of one agent whose tokens collide (1 in 2^64) would share a posting list:
one would look less rare than it is.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from mnemowire.adapters.sqlite_vec._vectors import similarities
from mnemowire.kit.keywords import (
    indexed_terms,
    keyword_terms,
    rank_matches,
    rare_terms,
    rarity_limit,
)

__all__ = [
    "add_record",
    "insert",
    "keyword_search",
    "remove_record",
    "rows_of",
    "token",
    "tokens",
]


def tokens(agent_id: str, terms: Sequence[str]) -> list[int]:
    """An agent's words as the index keys them: signed 64-bit integers (the agent's part of the
    hash is computed once and copied for each word)."""
    agent = hashlib.blake2b(agent_id.encode() + b"\0", digest_size=8)
    out = []
    for term in terms:
        digest = agent.copy()
        digest.update(term.encode())
        out.append(int.from_bytes(digest.digest(), "big", signed=True))
    return out


def token(agent_id: str, term: str) -> int:
    """One word of an agent as the index keys it."""
    return tokens(agent_id, [term])[0]


def rows_of(agent_id: str, rowid: int, text: str) -> list[tuple[int, int]]:
    """The index rows of a visible record's searchable text."""
    return [(key, rowid) for key in tokens(agent_id, indexed_terms(text))]


def insert(tx: Any, rows: Sequence[tuple[int, int]]) -> None:
    """Add index rows (``rows_of``), sorted by key for a bulk write."""
    tx.executemany("INSERT INTO keywords(token, record) VALUES (?, ?)", rows)


def add_record(tx: Any, agent_id: str, rowid: int, text: str) -> None:
    """Index a visible record's searchable text."""
    insert(tx, rows_of(agent_id, rowid, text))


def remove_record(tx: Any, rowid: int) -> None:
    """Take a record out of the index (hidden, changed or erased): every row it had."""
    tx.execute("DELETE FROM keywords WHERE record = ?", (rowid,))


def keyword_search(
    tx: Any,
    agent_id: str,
    documents: int,
    query: str,
    *,
    vector: Any,
    fetch: int,
    where: tuple[str, Sequence[Any]],
) -> list[int]:
    """In-scope rowids holding the query's rare words, best first (at most ``fetch``; records
    holding the same words ranked by their similarity to ``vector``, the query's embedding).

    ``documents`` is the agent's visible record count; ``where`` the recall scope as SQL over
    ``memories m`` and its arguments, applied to the matches (few: the words are rare).
    """
    terms = keyword_terms(query)
    if not terms or documents == 0:
        return []
    cap = rarity_limit(documents) + 1  # counting past the limit says nothing more
    asked = dict(zip(tokens(agent_id, terms), terms, strict=True))
    held = {
        asked[int(key)]: int(count)
        for key, count in tx.execute(
            "SELECT t.value, (SELECT count(*) FROM (SELECT 1 FROM keywords k "
            "WHERE k.token = t.value LIMIT ?)) FROM json_each(?) AS t",
            (cap, json.dumps(list(asked))),
        )
    }
    kept = rare_terms(held, documents)
    if not kept:
        return []
    wanted = dict(zip(tokens(agent_id, kept), kept, strict=True))
    matches = [
        (record, wanted[key])
        for record, key in tx.execute(
            f"SELECT record, token FROM keywords WHERE token IN ({','.join('?' * len(wanted))})",
            list(wanted),
        )
    ]
    records = list(dict.fromkeys(record for record, _ in matches))
    scope_sql, scope_args = where
    placeholders = ",".join("?" * len(records))
    in_scope = tx.execute(
        f"SELECT m.rowid, m.embedding FROM memories AS m NOT INDEXED "
        f"WHERE m.rowid IN ({placeholders}) AND {scope_sql}",
        [*records, *scope_args],
    ).fetchall()
    if not in_scope:
        return []
    similarity = similarities([row[1] for row in in_scope], vector)
    relevance = {row[0]: float(sim) for row, sim in zip(in_scope, similarity, strict=True)}
    ranked = rank_matches(
        [(record, term) for record, term in matches if record in relevance],
        held,
        documents,
        relevance,
    )
    return ranked[:fetch]
