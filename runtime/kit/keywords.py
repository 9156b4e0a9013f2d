"""Keyword search, as every store in this repository means it: which words are indexed, which
of a query's words are searched, and how matches rank. Each store keeps the index in its own
backend (a table keyed by agent in SQLite, agent-prefixed lexemes in PostgreSQL); the rules are
written once, here.

Keyword search earns its place in a recall by exact matches on rare words: invoice numbers,
part codes, unusual names, the one turn of a long conversation that names "pottery". A word
many memories share (a user's name, "birthday", "laptop") adds no evidence the vector search
lacks, and fused with equal weight it pushes every memory holding it above the one that
answers the question: on the quality benchmark's corpus, letting every word in cost recall@5 3
points against the vector search alone (0.925 vs 0.956). So a query keeps its words held by at
most ``max(RARE_DOCUMENTS, min(documents * RARE_FRACTION, RARE_CEILING))`` of the agent's
records.

Rarity is relative to the agent's size: a word 15 turns of a 600-turn conversation hold is as
telling as one 3 of a hundred memories hold. With an absolute 3 (until 30,000 records), LoCoMo's
development half found an evidence turn in the top 10 for 0.709 of its questions; with 1/32,
0.785, while the project's two corpora (agents of 84-135 records) kept their recall@5. In a
study over the same rankings without the period and reply rules (0.662 at an absolute 3), one
in 40 to one in 16 gave 0.725-0.736 and one in 64 0.712, so 1/32 is no knife-edge. The ceiling
bounds the keyword side's matches at any scale (MAX_TERMS words, each held by at most
RARE_CEILING records).

**Only the agent's own data counts** (docs/threat-model.md, "Cross-tenant reads"): how many
records hold a word, and how many records there are, are the agent's visible records, never
the store's. Counted over the whole store, another agent storing memories with the same words
would change which words stay rare for this agent, and so its scores: a side channel telling one
tenant what another writes. Matches are ranked by the summed inverse document frequency of the
rare words they hold (BM25's idf, over the agent's records); records holding the same words
tie, and go by their cosine similarity to the query, then by the store's record order (on
LoCoMo, ties by meaning rather than age put 4 more questions' evidence in the top 5). For
words this rare, term frequency and length normalisation add nothing (BM25's saturation and
length terms lowered LoCoMo's recall@10 slightly in the study).
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Iterable, Mapping
from typing import TypeVar

__all__ = [
    "MAX_QUERY_TERMS",
    "MAX_TERMS",
    "MAX_TERM_BYTES",
    "RARE_CEILING",
    "RARE_DOCUMENTS",
    "RARE_FRACTION",
    "STOPWORDS",
    "indexed_terms",
    "keyword_terms",
    "rank_matches",
    "rare_terms",
    "rarity_limit",
    "words",
]

Key = TypeVar("Key", bound=Hashable)

#: the fewest, and the share of an agent's records, a word may be held by and still be searched
RARE_DOCUMENTS = 3
RARE_FRACTION = 1 / 32
#: the most records a searched word may be held by, however many the agent has: it bounds the
#: keyword side's matches (MAX_TERMS times this) at any scale
RARE_CEILING = 32
#: most of a query's words looked up, and most searched (the rarest)
MAX_QUERY_TERMS = 32
MAX_TERMS = 8
#: longest word indexed, in UTF-8 bytes: PostgreSQL's lexeme limit (2047) less the agent key
#: its lexemes carry (17 bytes), so both stores index the same words
MAX_TERM_BYTES = 2030
# Words so common that matching them says nothing; dropping them keeps the index small. English
# only: other languages keep every word (rarity still drops their common ones).
STOPWORDS = frozenset(
    {
        "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "from", "has", "have", "he",
        "her", "his", "i", "in", "is", "it", "its", "me", "my", "of", "on", "or", "our", "she",
        "so", "that", "the", "their", "them", "they", "this", "to", "was", "we", "were", "what",
        "when", "where", "which", "who", "will", "with", "you", "your", "do", "does", "did", "how",
        "about",
    }
)  # fmt: skip
_WORD = re.compile(r"\w+", re.UNICODE)


def words(text: str) -> list[str]:
    """Every word of ``text``, lowercased, in order: the tokens both sides of search see."""
    return _WORD.findall(text.lower())


#: a word of at most this many characters is surely within MAX_TERM_BYTES (4 bytes a character)
_SURELY_SHORT = MAX_TERM_BYTES // 4


def _kept(words: Iterable[str]) -> list[str]:
    """The distinct words worth indexing or searching, in order of first appearance."""
    return [
        w
        for w in dict.fromkeys(words)
        if len(w) > 1
        and w not in STOPWORDS
        and (len(w) <= _SURELY_SHORT or len(w.encode("utf-8")) <= MAX_TERM_BYTES)
    ]


def indexed_terms(text: str) -> list[str]:
    """The distinct words of a record's searchable text that the keyword index holds."""
    return _kept(words(text))


def keyword_terms(text: str) -> list[str]:
    """Distinct words of a query worth looking up, in order of appearance (at most
    ``MAX_QUERY_TERMS``): the same words ``indexed_terms`` would index."""
    return _kept(words(text))[:MAX_QUERY_TERMS]


def rarity_limit(documents: int) -> int:
    """How many of an agent's ``documents`` visible records a searched word may be held by."""
    return max(RARE_DOCUMENTS, min(int(documents * RARE_FRACTION), RARE_CEILING))


def rare_terms(held: Mapping[str, int], documents: int) -> list[str]:
    """The words to search: held by at least one and at most ``rarity_limit`` of the agent's
    records (``held`` may stop counting past the limit), rarest first, at most MAX_TERMS."""
    limit = rarity_limit(documents)
    kept = [t for t, n in held.items() if 0 < n <= limit]
    return sorted(kept, key=lambda t: (held[t], t))[:MAX_TERMS]


def rank_matches(
    matches: Iterable[tuple[Key, str]],
    held: Mapping[str, int],
    documents: int,
    relevance: Mapping[Key, float],
) -> list[Key]:
    """Records holding searched words, best first: each scores the sum over the words it holds
    of ``ln(1 + (N - n + 0.5) / (n + 0.5))`` (N the agent's records, n those holding the word).
    Records holding the same words tie; the one closer in meaning to the query (``relevance``:
    its cosine similarity) goes first, then the smaller key (the store's record order)."""
    scores: dict[Key, list[float]] = {}
    for record, term in matches:
        n = held[term]
        scores.setdefault(record, []).append(math.log1p((documents - n + 0.5) / (n + 0.5)))
    total = {record: math.fsum(parts) for record, parts in scores.items()}
    return sorted(total, key=lambda record: (-total[record], -relevance[record], record))
