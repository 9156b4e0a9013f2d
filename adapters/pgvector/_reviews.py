"""The pgvector store's review queue: the kit's (``mnemowire.kit.sql_reviews``) over this
store's schema, run by ``kit.sql_steps.arun`` inside the caller's transaction (under READ
COMMITTED a racing decision waits for the first, then finds the review ended), and the
vector search a page's related records come from."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from psycopg.types.json import Jsonb

from mnemowire.adapters.pgvector._filters import DIALECT
from mnemowire.adapters.pgvector._sql import COLUMNS, Scope
from mnemowire.adapters.pgvector._vector_index import nearest
from mnemowire.kit import RecordRows
from mnemowire.kit.sql_reviews import Nearest, ReviewTables
from mnemowire.models import RecallRequest

__all__ = ["QUEUE", "related", "stored"]

_NAMES = [name.strip().removeprefix("m.") for name in COLUMNS.split(",")]


def stored(row: Sequence[Any]) -> dict[str, Any]:
    """A ``COLUMNS`` row by column name (psycopg reads jsonb as Python values already)."""
    return dict(zip(_NAMES, row, strict=True))


QUEUE = ReviewTables(
    dialect=DIALECT,
    columns=COLUMNS,
    records=RecordRows(_NAMES),
    stored=stored,
    position="seq",
    bind_json=Jsonb,
    read_json=lambda value: value,
    lock_staged=" FOR NO KEY UPDATE",
)


async def related(conn: Any, asked: Nearest, *, dimension: int) -> list[tuple[str, float]]:
    """The agent's active records closest to a staged one (``Nearest``), in its user scope,
    by cosine distance in SQL (the nearest by the vector index, ordered exactly)."""
    request = RecallRequest(agent_id=asked.agent_id, user_id=asked.user_id, query="-", k=asked.k)
    scope = Scope.of(request, {}, asked.now)
    cursor = await conn.execute(
        f"SELECT m.id, 1 - (m.embedding <=> s.embedding) FROM memories s "
        f"CROSS JOIN LATERAL (SELECT m.id, m.embedding FROM memories m WHERE {scope.sql} "
        f"ORDER BY {nearest('m.embedding', 's.embedding', dimension)} LIMIT %s) m "
        "WHERE s.id = %s ORDER BY m.embedding <=> s.embedding, m.id",
        [*scope.args, asked.k, asked.record_id],
    )
    return [(record_id, float(similarity)) for record_id, similarity in await cursor.fetchall()]
