"""Keyword search over FTS5 for what embeddings miss: words almost no memory holds.

Keyword search earns its place in a recall by exact matches on rare words: invoice numbers,
part codes, unusual names. A word many memories share (a user's name, "birthday", "laptop")
adds no evidence the vector search lacks, and fused with equal weight it pushes every memory
holding it above the one that answers the question: on the quality benchmark's corpus, keeping
every word up to 1% of documents cost recall@5 3 points against the vector search alone
(0.925 vs 0.956), while keeping only words held by at most 3 documents cost nothing. So a query
keeps its words held by at most ``max(RARE_DOCUMENTS, documents / 10,000)`` documents (document
frequencies are cached and refreshed as the index grows); a query without one has no keyword
side. Rare words also keep the search fast: FTS5 scores every document matching any query
word before it can sort.

Every match of the kept words is read from FTS5 (few, since the words are rare), then checked
against the recall scope, so the answer is the exact bm25 order of in-scope documents over the
kept words, and an agent's size does not enter the cost: the first version also matched the
agent's scope token inside FTS5, which walked the agent's whole posting list (6 ms a query at
100k memories).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from mnemowire.adapters._common import RARE_DOCUMENTS, RARE_FRACTION, keyword_terms

__all__ = ["KeywordIndex"]

#: most words kept per query, rarest first
MAX_TERMS = 8
#: most matches read (the best by bm25): rare words have few, unless their cached document
#: frequencies went stale within DF_TTL_SECONDS
MAX_MATCHES = 4096
#: document frequencies are re-read after this long, or when the index grew by a tenth
DF_TTL_SECONDS = 60.0
#: most words remembered as held by no document (queries may bring any number of new words)
MAX_ABSENT = 10_000


class KeywordIndex:
    """Keyword search with a per-connection cache of document frequencies."""

    def __init__(self) -> None:
        self._df: dict[str, int] = {}
        self._documents = 0
        self._read_at = 0.0
        #: words no document held at keyword-index version ``_absent_at``: a lookup of a word
        #: fts5vocab does not have costs ~50 µs, and most queries bring one
        self._absent: set[str] = set()
        self._absent_at: int | None = None

    def search(
        self, tx: Any, query: str, fetch: int, *, where: tuple[str, Sequence[Any]]
    ) -> list[int]:
        """In-scope rowids best matching the query's rare words, best bm25 first.

        ``where`` is the recall scope as SQL over ``memories m`` and its arguments. The kept
        words are rare in the whole store, so all their matches (at most ``MAX_TERMS`` times
        the rarity limit) are read from FTS5 and then checked against the scope: no posting
        list of a whole agent is ever walked.
        """
        scope_sql, scope_args = where
        terms = self._rare(tx, keyword_terms(query))
        if not terms:
            return []
        words = " OR ".join(f'"{term}"' for term in terms)  # \w+ terms: nothing to escape
        ranked = [
            r
            for (r,) in tx.execute(
                "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? "
                "ORDER BY bm25(memories_fts, 1.0, 0.0), rowid LIMIT ?",
                (f"content : ({words})", MAX_MATCHES),
            )
        ]
        if not ranked:
            return []
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

    def _rare(self, tx: Any, terms: list[str]) -> list[str]:
        if not terms:
            return []
        self._refresh(tx)
        limit = max(RARE_DOCUMENTS, int(self._documents * RARE_FRACTION))
        held = {t: self._df[t] for t in terms if t in self._df}
        unknown = [t for t in terms if t not in held]
        if unknown:
            self._check_absent(tx)
        for term in unknown:
            if term in self._absent:
                held[term] = 0
                continue
            row = tx.execute(
                "SELECT doc FROM temp.memories_vocab WHERE term = ?", (term,)
            ).fetchone()
            held[term] = int(row[0]) if row else 0
            if held[term]:
                self._df[term] = held[term]
            elif len(self._absent) < MAX_ABSENT:
                self._absent.add(term)
        kept = [t for t in terms if 0 < held[t] <= limit]
        return sorted(kept, key=lambda t: (held[t], t))[:MAX_TERMS]

    def _check_absent(self, tx: Any) -> None:
        """Forget the absent words once anything entered or left the keyword index.

        Every write to ``memories_fts`` appends to ``vec_changes`` in the same transaction
        (``SqliteVecStore._index_add``/``_index_remove``), so its AUTOINCREMENT counter is a
        version of the keyword index, in this process or any other."""
        row = tx.execute("SELECT seq FROM sqlite_sequence WHERE name = 'vec_changes'").fetchone()
        version = int(row[0]) if row else 0
        if version != self._absent_at:
            self._absent.clear()
            self._absent_at = version

    def _refresh(self, tx: Any) -> None:
        documents = tx.execute("SELECT coalesce(sum(visible), 0) FROM agent_stats").fetchone()[0]
        stale = time.monotonic() - self._read_at > DF_TTL_SECONDS
        if stale or abs(documents - self._documents) > max(64, self._documents // 10):
            self._df.clear()
            self._documents = int(documents)
            self._read_at = time.monotonic()
