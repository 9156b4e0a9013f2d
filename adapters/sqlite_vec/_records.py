"""A record as the sqlite-vec store reads it back (the ``memories`` row as a dict, vectors as
float32 blobs), and the scope of a recall over ``memories m``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mnemowire.adapters.sqlite_vec._filters import DIALECT
from mnemowire.adapters.sqlite_vec._schema import user_key
from mnemowire.kit import RecordRows, cutoff, decode_json_columns, to_wire
from mnemowire.kit.sql import recall_scope
from mnemowire.models import RecallRequest

__all__ = ["COLUMNS", "M_COLUMNS", "RECORD_ROWS", "Scope", "record", "records"]

#: the columns a record is read back with, in ``record``'s order
COLUMNS = (
    "rowid, id, agent_id, user_id, type, content, metadata, confidence, source, created_at, "
    "updated_at, expires_at, event_time, location, participants, sentiment, valence, arousal, "
    "emotion, target, state, merged_into, demote, last_recalled_at, recall_count, version, seal"
)
_NAMES = tuple(c.strip() for c in COLUMNS.split(","))
#: the same columns of ``memories AS m``
M_COLUMNS = ", ".join(f"m.{name}" for name in _NAMES)
#: the columns holding JSON text
_JSON = ("metadata", "participants", "seal")
#: ``COLUMNS`` rows as the records get and list return
RECORD_ROWS = RecordRows(_NAMES, json_text=_JSON)


def record(row: Sequence[Any]) -> dict[str, Any]:
    """A ``COLUMNS`` row as a record: column values by name, JSON columns decoded."""
    return records([row])[0]


def records(rows: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
    """``COLUMNS`` rows as records, the JSON columns of the whole page decoded together
    (``kit.decode_json_columns``)."""
    out = [dict(zip(_NAMES, row, strict=True)) for row in rows]
    decode_json_columns(out, _JSON)
    return out


@dataclass(frozen=True)
class Scope:
    """Which records a recall may see, as values (for the in-memory index and vec0) and as the
    kit's WHERE clause over ``memories m`` (``mnemowire.kit.sql.recall_scope``)."""

    agent_id: str
    user_id: str | None
    types: tuple[str, ...]
    created_min: int | None
    now: int
    filter: dict[str, Any] | None
    sql: str
    args: tuple[Any, ...]

    @property
    def user_key(self) -> str | None:
        return None if self.user_id is None else user_key(self.user_id)

    @classmethod
    def of(cls, req: RecallRequest, now: int) -> Scope:
        wire = to_wire(req)
        spec_filter = wire.get("filter") or None
        clause = recall_scope(DIALECT, req, spec_filter, now)
        types = tuple(wire.get("types") or ())
        created_min = cutoff(now, req.fresher_than_days)
        return cls(
            req.agent_id,
            req.user_id,
            types,
            created_min,
            now,
            spec_filter,
            clause.sql,
            tuple(clause.args),
        )
