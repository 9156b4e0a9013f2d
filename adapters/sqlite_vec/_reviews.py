"""The sqlite-vec store's review queue: the kit's (``mnemowire.kit.sql_reviews``) over this
store's tables, run by ``kit.sql_steps.run`` inside the caller's transaction, and the vector
search a page's related records come from."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from mnemowire.adapters.sqlite_vec._filters import DIALECT
from mnemowire.adapters.sqlite_vec._records import M_COLUMNS, RECORD_ROWS, Scope, record
from mnemowire.adapters.sqlite_vec._search import nearest
from mnemowire.kit.sql_reviews import Nearest, ReviewTables
from mnemowire.models import RecallRequest

__all__ = ["QUEUE", "related"]

QUEUE = ReviewTables(
    dialect=DIALECT,
    columns=M_COLUMNS,
    records=RECORD_ROWS,
    stored=record,
    position="rowid",
    bind_json=json.dumps,
    read_json=json.loads,
)


def related(
    tx: Any, asked: Nearest, indexes: Any, accelerate_above: int
) -> list[tuple[str, float]]:
    """The agent's active records closest to a staged one (``Nearest``), in its user scope,
    by the store's own search."""
    (embedding,) = tx.execute(
        "SELECT embedding FROM memories WHERE id = ?", (asked.record_id,)
    ).fetchone()
    scope = Scope.of(
        RecallRequest(agent_id=asked.agent_id, user_id=asked.user_id, query="-", k=asked.k),
        asked.now,
    )
    vector = np.frombuffer(embedding, np.float32)
    found = nearest(tx, scope, vector, asked.k, indexes, accelerate_above)
    return [(row["id"], relevance) for row, relevance in found]
