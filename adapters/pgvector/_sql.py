"""SQL building blocks of the pgvector store: the recall scope, the record columns, and the
full-text side (a tsvector built in Python and sent in PostgreSQL's binary format).

The full-text index is built from the same tokens the query side uses
(:func:`mnemowire.adapters._common.words` / ``keyword_terms``), not from PostgreSQL's text-search
parser: a query word then matches a stored word exactly when the two are the same string, on
every server and locale, and stopwords never enter the index at all. A record's tsvector holds
each kept word with its positions; queries are an OR of the query's rare words.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from psycopg.adapt import Dumper
from psycopg.pq import Format

from mnemowire.adapters._common import STOPWORDS, cutoff, words
from mnemowire.adapters.pgvector._filters import compile_filter
from mnemowire.models import RecallRequest

__all__ = [
    "COLUMNS",
    "Lexemes",
    "LexemesDumper",
    "Scope",
    "lexemes_of",
    "tsquery_of",
]

#: the record columns read back for results and diffs (``m`` is ``memories``)
COLUMNS = (
    "m.seq, m.id, m.agent_id, m.user_id, m.type, m.content, m.metadata, m.confidence, m.source, "
    "m.created_at, m.updated_at, m.expires_at, m.event_time, m.location, m.participants, "
    "m.sentiment, m.valence, m.arousal, m.emotion, m.target, m.state, m.merged_into, m.demote"
)
#: tsvector limits (PostgreSQL's tsvector.h): bytes per lexeme, positions per lexeme, the
#: largest position, and bytes of all lexemes together
MAX_LEXEME_BYTES = 2047
MAX_POSITIONS = 256
MAX_POSITION = 16383
MAX_TOTAL_BYTES = (1 << 20) - 1
_TSVECTOR_OID = 3614


class Lexemes(dict[str, list[int]]):
    """A tsvector as Python: word -> ascending positions (1-based). Sent in binary."""


class LexemesDumper(Dumper):
    """psycopg dumper for :class:`Lexemes` in tsvector's binary wire format (``tsvectorrecv``:
    count, then per lexeme its NUL-terminated text, position count and positions)."""

    format = Format.BINARY
    oid = _TSVECTOR_OID

    def dump(self, obj: Any) -> bytes:
        out = bytearray(struct.pack("!i", len(obj)))
        for word, positions in obj.items():
            out += word.encode("utf-8") + b"\0"
            out += struct.pack(f"!H{len(positions)}H", len(positions), *positions)
        return bytes(out)


def lexemes_of(text: str) -> Lexemes:
    """The indexed words of ``text`` and their positions: every word ``keyword_terms`` could
    ask for (two characters or more, not a stopword), within PostgreSQL's tsvector limits
    (words past them are not indexed; the vector side still sees the whole text)."""
    out = Lexemes()
    total = 0
    for position, word in enumerate(words(text), start=1):
        if len(word) < 2 or word in STOPWORDS:
            continue
        positions = out.get(word)
        if positions is None:
            size = len(word.encode("utf-8"))
            if size > MAX_LEXEME_BYTES or total + size > MAX_TOTAL_BYTES - 1024:
                continue
            total += size
            out[word] = positions = []
        spot = min(position, MAX_POSITION)
        if len(positions) < MAX_POSITIONS and (not positions or positions[-1] < spot):
            positions.append(spot)
    return out


def tsquery_of(terms: list[str]) -> str:
    """A tsquery (text form) matching any of ``terms`` as exact lexemes. Terms are ``\\w+``
    words (no quotes or backslashes), so quoting them is enough."""
    return " | ".join(f"'{term}'" for term in terms)


@dataclass(frozen=True)
class Scope:
    """Which records a recall may see, as a WHERE clause over ``memories m`` and its
    parameters (docs/spec/v0.md#recall.scope and #recall.visibility)."""

    agent_id: str
    now: int
    sql: str
    args: tuple[Any, ...]

    @classmethod
    def of(cls, req: RecallRequest, payload: dict[str, Any], now: int) -> Scope:
        """``payload`` is the request as wire JSON: the filter is read from it so numbers keep
        the JSON type the client sent."""
        sql = (
            "m.agent_id = %s AND m.state = 'active' AND (m.expires_at IS NULL OR m.expires_at > %s)"
        )
        args: list[Any] = [req.agent_id, now]
        if req.user_id is not None:
            sql += " AND m.user_id = %s"
            args.append(req.user_id)
        types = list(payload.get("types") or ())
        if types:
            sql += " AND m.type = ANY(%s)"
            args.append(types)
        created_min = cutoff(now, req.fresher_than_days)
        if created_min is not None:
            sql += " AND m.created_at >= %s"
            args.append(created_min)
        spec_filter = payload.get("filter")
        if spec_filter:
            filter_sql, filter_args = compile_filter(spec_filter)
            sql += f" AND {filter_sql}"
            args.extend(filter_args)
        return cls(req.agent_id, now, sql, tuple(args))
