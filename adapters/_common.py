"""Helpers every adapter shares: ids, the record <-> wire mapping, keyword terms."""

from __future__ import annotations

import re
from typing import Any

from mnemowire._ids import new_id

__all__ = ["STOPWORDS", "TYPE_FIELDS", "keyword_terms", "new_id", "record_fields"]

#: the type-specific fields of episodic and emotional memories, in spec order
TYPE_FIELDS = (
    "event_time",
    "location",
    "participants",
    "sentiment",
    "valence",
    "arousal",
    "emotion",
    "target",
)
#: optional record fields returned when stored (besides the type-specific ones)
_OPTIONAL = ("user_id", "source", "expires_at", "updated_at")
# Words so common that matching them says nothing; dropping them keeps keyword recall fast on
# large agents. English only: other languages keep every word (bm25 still discounts them).
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


def keyword_terms(text: str, limit: int = 32) -> list[str]:
    """Distinct lowercase words of a query worth matching, in order of appearance."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if len(word) > 1 and word not in STOPWORDS:
            seen.setdefault(word, None)
    return list(seen)[:limit]


def record_fields(record: dict[str, Any]) -> dict[str, Any]:
    """The wire fields of a stored record (a dict of column values) for a recall hit or a diff:
    the required ones always, the optional ones only when set."""
    out = {
        "id": record["id"],
        "type": record["type"],
        "content": record["content"],
        "metadata": record["metadata"],
        "created_at": record["created_at"],
        "confidence": record["confidence"],
    }
    for name in (*_OPTIONAL, *TYPE_FIELDS):
        if record.get(name) is not None:
            out[name] = record[name]
    return out
