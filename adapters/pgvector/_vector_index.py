"""The vector index: IVFFlat, sized for the table, built once it is worth it and rebuilt as
the table grows; the lists each search probes, set per connection.

Why IVFFlat and not HNSW (docs/adapters/pgvector.md#vector-index has the measurements): a
recall's query is a question, far from every stored sentence, and an HNSW graph walked from
such a point stops in the wrong neighbourhood; at 100k records pgvector's HNSW (m 16,
ef_construction 64, ef_search 100) found 0.59-0.61 of a question's exact top 10, and raising
ef_construction to 400 only 0.95 at a 130 s build. IVFFlat scans whole cells of the k-means
partition, so what it finds does not depend on where a walk starts: 0.97-0.98 in 7-9 ms of
search (one agent, or one among ten), built in a few seconds. Its cells are fixed when it is
built, from the rows there then, so:

- below INDEXED_FROM active records there is no vector index: the search is exact, and cheap;
- from there the index has ``lists_for(rows)`` cells, and is rebuilt (CONCURRENTLY, reads and
  writes go on) once the active records are GROWTH times as many as it was sized for: rows
  added later fall into cells trained without them, and the cells grow;
- a scope that holds a share of the table (one agent among ten) needs more cells probed for
  the same recall, since its k nearest lie further out (``probes_for``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from psycopg import sql

__all__ = [
    "ALL_CELLS",
    "DEFERRED_KEY",
    "GROWTH",
    "INDEXED_FROM",
    "LOCK",
    "IndexKeeper",
    "build_memory_mb",
    "build_missing",
    "configure",
    "index_lists",
    "index_statement",
    "lists_for",
    "nearest",
    "probes_for",
]

#: fewer active records than this are searched exactly (a scan of them costs ~1.5 ms)
INDEXED_FROM = 1_000
#: the index is rebuilt once the active records are this many times what it was sized for
GROWTH = 2
#: a search over the whole table probes one cell in PROBE_SHARE
PROBE_SHARE = 12
#: ... and never fewer cells than hold this many rows (a scan of them costs ~3 ms): a table of
#: a few thousand records is searched whole, exactly
MIN_SCANNED = 4_000
#: extra probes, as a share of the base, for each tenfold the scope narrows the table
FILTER_BOOST = 0.2
#: a filtered scan that found too few rows probes on, up to this many times its probes (then
#: the search runs exactly: ``_search.recall_query``)
MAX_PROBES_FACTOR = 4
#: the most probes pgvector takes (its most lists); a scan probes at most every cell, so this
#: is "every cell" for an index this process does not know of yet
ALL_CELLS = 32_768
#: how long closing the store waits for a running build (at 100k records: a few seconds)
CLOSE_GRACE_SECONDS = 60.0
NAME = "memories_embedding"
_NEXT = "memories_embedding_next"
_OLD = "memories_embedding_old"
#: the advisory lock whoever builds, drops or defers the vector index holds: one per schema
#: (the store's schema is first on the search path)
LOCK = "hashtextextended('mnemowire.pgvector:vector-index:' || current_schema(), 0)"
#: the mnemowire_meta key a bulk import sets while it defers the indexes (the background
#: build keeps off meanwhile; ``restore_indexes`` clears it)
DEFERRED_KEY = "indexes_deferred"

_log = logging.getLogger(__name__)


def lists_for(rows: int) -> int | None:
    """The cells of an index over ``rows`` active records (pgvector's advice, sqrt(rows)), or
    None when they are too few to index."""
    return None if rows < INDEXED_FROM else math.ceil(math.sqrt(rows))


def probes_for(lists: int, table_rows: float, share: float) -> int:
    """The cells a search probes in an index of ``lists`` cells over a table of ``table_rows``
    (the planner's estimate; 0 when unknown), for a scope holding ``share`` of them (1.0: the
    whole table)."""
    if table_rows <= 0:
        return lists
    narrowing = math.log10(1.0 / min(max(share, 1e-6), 1.0))
    wanted = math.ceil(lists / PROBE_SHARE * (1.0 + FILTER_BOOST * narrowing))
    floor = math.ceil(MIN_SCANNED * lists / table_rows)
    return min(lists, max(floor, wanted))


def index_statement(
    lists: int, dimension: int, *, name: str = NAME, concurrently: bool = False
) -> sql.Composed:
    """CREATE INDEX for the vector index with ``lists`` cells, over the active records'
    vectors in half precision (``nearest`` says why)."""
    return sql.SQL(
        "CREATE INDEX {}{} ON memories USING ivfflat "
        "((embedding::halfvec({})) halfvec_cosine_ops) WITH (lists = {}) WHERE state = 'active'"
    ).format(
        sql.SQL("CONCURRENTLY " if concurrently else ""),
        sql.Identifier(name),
        sql.Literal(dimension),
        sql.Literal(lists),
    )


def nearest(column: str, probe: str, dimension: int) -> str:
    """The ORDER BY expression the vector index serves: the cosine distance between
    half-precision copies of ``column`` and ``probe`` (SQL expressions of vectors). Half
    precision halves what a search reads (a probed cell's every vector: the whole cost of an
    IVFFlat scan), and the order it gives is near enough: every caller takes the rows it
    returns and orders them by their exact distance, computed from the full vectors."""
    return f"({column})::halfvec({dimension}) <=> ({probe})::halfvec({dimension})"


def build_memory_mb(lists: int, dimension: int) -> int:
    """maintenance_work_mem for building an index of ``lists`` cells: k-means keeps a sample
    of 50 rows per cell, each sample's distance to every centre and the centres' distances to
    one another in memory (pgvector's ivfbuild.c), or it refuses to build."""
    samples = 50 * lists
    needed = samples * (dimension * 4 + 8) + samples * lists * 4 + lists * lists * 4
    return max(64, min(4096, needed * 3 // 2 // 2**20 + 1))


def index_lists(reloptions: Sequence[str] | None) -> int | None:
    """The cells of the index whose pg_class.reloptions are given (None: no index, or an index
    of another kind)."""
    for option in reloptions or ():
        key, _, value = option.partition("=")
        if key == "lists":
            return int(value)
    return None


async def build_missing(conn: Any, dimension: int) -> bool:
    """Build the vector index in the caller's transaction (the table is locked against writes
    meanwhile: a first build, a bulk import's end) when it is missing and the active records
    are enough to index; whether it was built. Not while another process holds the build lock
    (a background build, whose index takes the name when it ends): waiting for it could
    deadlock, since a concurrent build waits for every transaction older than it, this one
    included."""
    cursor = await conn.execute(
        f"SELECT pg_try_advisory_xact_lock({LOCK}), to_regclass(%s) IS NULL", (NAME,)
    )
    locked, missing = await cursor.fetchone()
    if not (locked and missing):
        return False
    cursor = await conn.execute("SELECT count(*) FROM memories WHERE state = 'active'")
    lists = lists_for(int((await cursor.fetchone())[0]))
    if lists is None:
        return False
    await conn.execute(
        "SELECT set_config('maintenance_work_mem', %s, true)",
        (f"{build_memory_mb(lists, dimension)}MB",),
    )
    await conn.execute(index_statement(lists, dimension))
    return True


async def configure(conn: Any, fixed: int | None) -> None:
    """Set a new connection's probes for a search over the whole table (the index's cells as
    they are now, or ``fixed``): what the statements that search the index without asking
    ``IndexKeeper.before_search`` first (the duplicate check on write, a review's similar
    records) get. Needs the store's search_path set."""
    cursor = await conn.execute(
        "SELECT (SELECT reloptions FROM pg_class WHERE oid = to_regclass(%s)), "
        "(SELECT reltuples FROM pg_class WHERE oid = to_regclass('memories'))",
        (NAME,),
    )
    reloptions, rows = await cursor.fetchone()
    await _set_probes(conn, _probes(index_lists(reloptions), float(rows or 0), 1.0, fixed))


def _probes(
    lists: int | None, table_rows: float, share: float, fixed: int | None
) -> tuple[int, int]:
    """(probes, max_probes) for a search of an index of ``lists`` cells. None: no index as far
    as this process knows; one built since (by another process, or before the store's counts
    are read again) is then probed whole, exactly, rather than one cell of it, pgvector's
    default."""
    if lists is None:
        return ALL_CELLS, ALL_CELLS
    probes = min(lists, fixed) if fixed else probes_for(lists, table_rows, share)
    return probes, min(lists, MAX_PROBES_FACTOR * probes)


async def _set_probes(conn: Any, probes: tuple[int, int]) -> None:
    """``ivfflat.probes`` and ``ivfflat.max_probes`` for the connection's session."""
    await conn.execute(
        "SELECT set_config('ivfflat.probes', %s, false), "
        "set_config('ivfflat.max_probes', %s, false)",
        (str(probes[0]), str(probes[1])),
    )


class IndexKeeper:
    """Keeps the vector index sized for the table, in the background, and sets each search
    connection's probes. One per store; every process keeping the same schema takes a
    per-schema advisory lock to build, so only one builds at a time."""

    def __init__(
        self,
        db: Any,
        *,
        dimension: int,
        probes: int | None,
        built: Callable[[], None] = lambda: None,
    ) -> None:
        self._db = db
        self._dimension = dimension
        #: called once this process built an index: the store reads its cells again
        self._built = built
        #: a fixed probe count (the ``probes`` URL option) instead of ``probes_for``'s
        self._probes = probes
        #: what each pooled connection was last told: (probes, max_probes)
        self._told: weakref.WeakKeyDictionary[Any, tuple[int, int]] = weakref.WeakKeyDictionary()
        self._task: asyncio.Task[str | None] | None = None
        #: the table's estimated rows when ``soon`` last started a check, and the estimate
        #: under which no check starts again (one found no work: the estimate counts hidden
        #: records too, which the index leaves out)
        self._asked_at = 0.0
        self._quiet_below = 0.0

    async def before_search(
        self, conn: Any, lists: int | None, table_rows: float, scope_rows: int
    ) -> None:
        """Before a search on ``conn`` of a scope holding ``scope_rows`` records, in a table the
        planner estimates at ``table_rows`` whose index has ``lists`` cells (None: no index):
        start a build in the background if the table outgrew the index, and set the search's
        probes (a round trip only when they change)."""
        if self.due(table_rows, lists):
            self.soon(table_rows)
        wanted = _probes(lists, table_rows, scope_rows / max(table_rows, 1.0), self._probes)
        if self._told.get(conn) != wanted:
            await _set_probes(conn, wanted)
            self._told[conn] = wanted

    def due(self, table_rows: float, lists: int | None) -> bool:
        """Whether the table (its planner estimate, ``table_rows``) has outgrown the index of
        ``lists`` cells (None: no index), judged without a query; ``keep`` counts exactly."""
        if table_rows < self._quiet_below:
            return False
        if lists is None:
            return table_rows >= INDEXED_FROM
        return table_rows >= GROWTH * lists * lists

    def soon(self, table_rows: float) -> bool:
        """Start ``keep`` in the background, for a table estimated at ``table_rows``, unless it
        runs already; whether it started."""
        if self._task is not None and not self._task.done():
            return False
        self._asked_at = table_rows
        self._task = asyncio.create_task(self._keep_quietly(), name=f"keep {NAME}")
        return True

    async def _keep_quietly(self) -> str | None:
        """``keep`` in the background: a failure (a role that may not build, a bulk import
        that started building meanwhile) is logged, and the next check tries again."""
        try:
            return await self.keep()
        except Exception:
            _log.warning("could not build the vector index %s", NAME, exc_info=True)
            return None

    async def wait(self) -> str | None:
        """Wait for the background build, if any; what it did."""
        if self._task is None:
            return None
        return await self._task

    async def aclose(self) -> None:
        """Let a running build finish (up to CLOSE_GRACE_SECONDS) rather than throw it away: a
        short-lived process (one CLI command) would otherwise start a build on every recall
        and cancel it on exit, and its table would never get an index."""
        if self._task is None or self._task.done():
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._task), CLOSE_GRACE_SECONDS)
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task

    async def keep(self) -> str | None:
        """Build the index, or rebuild it with more cells, when the active records call for
        it; what was done (None: nothing, or another process holds the build lock). The new
        index is built CONCURRENTLY beside the old one and takes its name in one short
        transaction, so searches always have an index."""
        async with self._db.connection("vector_index") as conn:
            cursor = await conn.execute(
                f"SELECT pg_try_advisory_lock({LOCK}), "
                "EXISTS (SELECT FROM mnemowire_meta WHERE key = %s)",
                (DEFERRED_KEY,),
            )
            locked, deferred = await cursor.fetchone()
            if not locked:
                return None
            try:
                return None if deferred else await self._rebuild(conn)
            finally:
                await conn.execute(f"SELECT pg_advisory_unlock({LOCK})")

    async def _rebuild(self, conn: Any) -> str | None:
        cursor = await conn.execute(
            "SELECT count(*), to_regclass(%s) IS NOT NULL, "
            "(SELECT reloptions FROM pg_class WHERE oid = to_regclass(%s)) "
            "FROM memories WHERE state = 'active'",
            (NAME, NAME),
        )
        rows, exists, reloptions = await cursor.fetchone()
        current = index_lists(reloptions)
        wanted = lists_for(int(rows))
        grown = current is None or int(rows) >= GROWTH * current * current
        if wanted is None or not grown or wanted == current:
            self._quiet_below = self._asked_at * 1.1
            return None
        # a build killed before it took the name leaves an invalid index behind
        for leftover in (_NEXT, _OLD):
            await conn.execute(
                sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(sql.Identifier(leftover))
            )
        memory = f"{build_memory_mb(wanted, self._dimension)}MB"
        await conn.execute("SELECT set_config('maintenance_work_mem', %s, false)", (memory,))
        try:
            await conn.execute(
                index_statement(wanted, self._dimension, name=_NEXT, concurrently=True)
            )
        finally:
            await conn.execute("RESET maintenance_work_mem")
        async with conn.transaction():
            if exists:
                await conn.execute(
                    sql.SQL("ALTER INDEX {} RENAME TO {}").format(
                        sql.Identifier(NAME), sql.Identifier(_OLD)
                    )
                )
            await conn.execute(
                sql.SQL("ALTER INDEX {} RENAME TO {}").format(
                    sql.Identifier(_NEXT), sql.Identifier(NAME)
                )
            )
        await conn.execute(
            sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(sql.Identifier(_OLD))
        )
        self._built()
        was = "no index" if current is None else f"was {current} lists"
        return f"CREATE INDEX CONCURRENTLY {NAME} (ivfflat, lists = {wanted}; {rows} active, {was})"
