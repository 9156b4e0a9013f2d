"""SQL building blocks of the pgvector store: the recall scope, the record columns, and the
keyword side (a tsvector built in Python and sent in PostgreSQL's binary format).

The keyword index holds the same words as the sqlite-vec store (``mnemowire.kit.keywords``
decides which), not PostgreSQL's text-search parser's: a query word matches a stored word
exactly when the two are the same string, on every server and locale. Each lexeme is the word
behind its agent's key (``agent_key``: 16 hex digits of a SHA-256 of the agent id), so the GIN
index keeps one posting list per agent and word: how many records hold a word is counted over
the agent's own records (docs/threat-model.md: another agent's words must not move this
agent's scores), and counting it never walks another agent's postings. Lexemes carry no
positions: nothing ranks by them.

The index holds the words of visible records only, as the expression ``VISIBLE_WORDS`` (NULL for
a record that is not active), not as a partial index ``WHERE state = 'active'``: a query on the
expression can be served by no other index, so the planner takes the GIN index even when the
table has no statistics yet. With a partial index and a just-written table it chose the scope
index on ``state`` and read every active record of every agent for each searched word.
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass
from typing import Any

from psycopg.adapt import Dumper
from psycopg.pq import Format

from mnemowire.adapters.pgvector._filters import DIALECT
from mnemowire.kit.keywords import indexed_terms
from mnemowire.kit.sql import recall_scope
from mnemowire.models import RecallRequest

__all__ = [
    "COLUMNS",
    "VISIBLE_WORDS",
    "Lexemes",
    "LexemesDumper",
    "Scope",
    "agent_key",
    "lexeme",
    "lexemes_of",
]

#: the record columns read back for results and diffs (``m`` is ``memories``)
COLUMNS = (
    "m.seq, m.id, m.agent_id, m.user_id, m.type, m.content, m.metadata, m.confidence, m.source, "
    "m.created_at, m.updated_at, m.expires_at, m.event_time, m.location, m.participants, "
    "m.sentiment, m.valence, m.arousal, m.emotion, m.target, m.state, m.merged_into, m.demote, "
    "m.version, m.seal"
)
#: a record's keyword index entry while it is visible (``memories_search`` indexes exactly this
#: expression; a query must spell it the same way, with ``m`` for ``memories``, to use it). An
#: expression, not a partial index: a query on it can use no other index, where with a partial
#: GIN index and no statistics yet PostgreSQL counted words by reading the agent's rows through
#: the btree. Written through (``fastupdate = off``): GIN's pending list of recent inserts is
#: read in full by every search until a VACUUM merges it, which made each word's count cost
#: ~0.3 ms on a 310-record store and led the planner to a sequential scan instead.
VISIBLE_WORDS = "(CASE WHEN m.state = 'active' THEN m.search END)"
#: bytes of all lexemes of one tsvector together (PostgreSQL's tsvector.h), with room to spare
MAX_TOTAL_BYTES = (1 << 20) - 1 - 1024
_TSVECTOR_OID = 3614


class Lexemes(list[str]):
    """A tsvector as Python: its lexemes, without positions. Sent in binary."""


class LexemesDumper(Dumper):
    """psycopg dumper for :class:`Lexemes` in tsvector's binary wire format (``tsvectorrecv``:
    count, then per lexeme its NUL-terminated text and a position count of 0)."""

    format = Format.BINARY
    oid = _TSVECTOR_OID

    def dump(self, obj: Any) -> bytes:
        out = bytearray(struct.pack("!i", len(obj)))
        for lexeme in obj:
            out += lexeme.encode("utf-8") + b"\0" + struct.pack("!H", 0)
        return bytes(out)


def agent_key(agent_id: str) -> str:
    """The prefix of an agent's lexemes. Migration 2 computes the same in SQL:
    ``left(encode(sha256(convert_to(agent_id, 'UTF8')), 'hex'), 16)``."""
    return hashlib.sha256(agent_id.encode("utf-8")).hexdigest()[:16]


def lexeme(key: str, term: str) -> str:
    """One indexed word of the agent whose key is ``key``."""
    return f"{key}/{term}"


def lexemes_of(agent_id: str, text: str) -> Lexemes:
    """The keyword index entry of a record of ``agent_id`` whose searchable text is ``text``
    (words past tsvector's size limit are not indexed; the vector side still sees them)."""
    key = agent_key(agent_id)
    out = Lexemes()
    total = 0
    for term in indexed_terms(text):
        entry = lexeme(key, term)
        total += len(entry.encode("utf-8"))
        if total > MAX_TOTAL_BYTES:
            break
        out.append(entry)
    return out


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
        clause = recall_scope(DIALECT, req, payload.get("filter"), now)
        return cls(req.agent_id, now, clause.sql, tuple(clause.args))
