"""Keyword search over FTS5 that stays fast on large agents.

FTS5 scores every document matching any query word before it can sort, so an OR of common
words over 100k documents costs hundreds of milliseconds. Common words also carry almost no
signal (a low inverse document frequency) and the vector search already covers meaning; what
keyword search adds is exact matches on rare words: names, codes, part numbers. So the query
keeps its rarest words, those in at most ``max(256, 1% of documents)`` documents (document
frequencies are cached and refreshed as the index grows), and a query made only of common words
has no keyword side.

The top candidates are read from FTS5 alone, then checked against the recall scope; only if
too few survive the scope does the search fall back to scoring every match inside a join.
Either way the answer is the exact bm25 order of in-scope documents over the kept words.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from mnemowire.adapters._common import keyword_terms

__all__ = ["KeywordIndex"]

#: most words kept per query, rarest first
MAX_TERMS = 8
#: how much deeper than needed the FTS-only pass reads before checking the scope
DEPTH = 8
#: document frequencies are re-read after this long, or when the index grew by a tenth
DF_TTL_SECONDS = 60.0


class KeywordIndex:
    """Keyword search with a per-connection cache of document frequencies."""

    def __init__(self) -> None:
        self._df: dict[str, int] = {}
        self._documents = 0
        self._read_at = 0.0

    def search(
        self, tx: Any, query: str, fetch: int, *, token: str, where: tuple[str, Sequence[Any]]
    ) -> list[int]:
        """In-scope rowids best matching the query's rare words, best bm25 first.

        ``token`` is the agent's scope token in the index; ``where`` the scope as SQL over
        ``memories m`` and its arguments.
        """
        scope_sql, scope_args = where
        terms = self._rare(tx, keyword_terms(query))
        if not terms:
            return []
        words = " OR ".join(f'"{term}"' for term in terms)  # \w+ terms: nothing to escape
        match = f'scope : "{token}" AND content : ({words})'
        depth = fetch * DEPTH
        ranked = [
            r
            for (r,) in tx.execute(
                "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? "
                "ORDER BY bm25(memories_fts, 1.0, 0.0), rowid LIMIT ?",
                (match, depth),
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
        if len(in_scope) >= fetch or len(ranked) < depth:
            return [r for r in ranked if r in in_scope][:fetch]
        rows = tx.execute(  # the scope is narrow: score every match inside the join
            "SELECT m.rowid FROM memories_fts JOIN memories m ON m.rowid = memories_fts.rowid "
            f"WHERE memories_fts MATCH ? AND {scope_sql} "
            "ORDER BY bm25(memories_fts, 1.0, 0.0), m.rowid LIMIT ?",
            [match, *scope_args, fetch],
        )
        return [rowid for (rowid,) in rows]

    def _rare(self, tx: Any, terms: list[str]) -> list[str]:
        if not terms:
            return []
        self._refresh(tx)
        limit = max(256, self._documents // 100)
        missing = [t for t in terms if t not in self._df]
        for term in missing:
            row = tx.execute(
                "SELECT doc FROM temp.memories_vocab WHERE term = ?", (term,)
            ).fetchone()
            self._df[term] = int(row[0]) if row else 0
        kept = [t for t in terms if 0 < self._df[t] <= limit]
        return sorted(kept, key=lambda t: (self._df[t], t))[:MAX_TERMS]

    def _refresh(self, tx: Any) -> None:
        documents = tx.execute("SELECT coalesce(sum(visible), 0) FROM agent_stats").fetchone()[0]
        stale = time.monotonic() - self._read_at > DF_TTL_SECONDS
        if stale or abs(documents - self._documents) > max(64, self._documents // 10):
            self._df.clear()
            self._documents = int(documents)
            self._read_at = time.monotonic()
