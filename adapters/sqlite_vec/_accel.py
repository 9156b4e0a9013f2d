"""An in-process vector index per agent, kept in step with the database.

sqlite-vec's vec0 scans every vector of a partition on each query, and reads whole chunks of
1024 slots even for a small agent: ~0.5-0.9 ms at 100 rows, ~0.85 ms at 1k, ~2.5 ms at 4k,
~100 ms at 100k on this project's 2-core machines (measured for this module). The store instead
keeps each recalled agent's vectors in one float32 matrix (a matrix-vector product over 100
rows takes microseconds), within a memory budget (:class:`IndexCache`); an agent that does not
fit is searched by vec0. Every filter becomes a boolean mask applied before the top k.

Up to ``COARSE_ABOVE`` candidates the search is exact: one matrix-vector product. Past it, the
product reads the whole matrix (154 MB at 100k x 384, ~9-11 ms on these machines), so a coarse
pass ranks the candidates by the Hamming distance between sign bits (1 bit per dimension, kept
beside the vectors: 4.8 MB at 100k) and only a shortlist of ``max(SHORTLIST, 100 · k)`` is
re-scored exactly. The store's recall@10 against exact search is measured by
``mnemowire bench scale`` (docs/benchmarks.md) and tested on clustered data.

The database stays the source of truth. Each write transaction appends to ``vec_changes``
(which records entered or left the vector index); before searching, the index applies the
changes after the last sequence number it saw, so writes from other connections and processes
are seen at the next query. If the change log has been pruned past that point it reloads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from mnemowire.adapters.sqlite_vec._schema import user_key

__all__ = [
    "COARSE_ABOVE",
    "SHORTLIST",
    "AgentIndex",
    "Hit",
    "IndexCache",
    "load_rows",
    "sign_codes",
]

#: more candidates than this are ranked by sign bits first, then a shortlist exactly
COARSE_ABOVE = 16_384
#: the least records re-scored exactly after the coarse pass
SHORTLIST = 4_000
#: rows allocated for a new index (it doubles as it grows)
MIN_CAPACITY = 64
#: what one entry of ``AgentIndex.position`` costs (a dict slot and two ints), roughly
_POSITION_BYTES = 100

Hit = tuple[int, float]  # (record rowid, cosine distance)
_ROW_QUERY = (
    "SELECT rowid, embedding, user_id, type, created_at, expires_at FROM memories "
    "WHERE agent_id = ? AND state = 'active'"
)


@dataclass
class AgentIndex:
    """One agent's visible vectors and the columns recall filters on."""

    agent_id: str
    dimension: int
    last_seq: int = 0
    size: int = 0
    rowids: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    vectors: npt.NDArray[np.float32] = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    users: npt.NDArray[np.object_] = field(default_factory=lambda: np.zeros(0, object))
    types: npt.NDArray[np.object_] = field(default_factory=lambda: np.zeros(0, object))
    created: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    expires: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    alive: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, bool))
    #: sign bits of each vector, one row of 64-bit words per word position (column-major, so
    #: each word position is one contiguous array for the Hamming pass)
    codes: npt.NDArray[np.uint64] = field(default_factory=lambda: np.zeros((0, 0), np.uint64))
    position: dict[int, int] = field(default_factory=dict)

    def reload(self, connection: Any, never: int) -> None:
        """Rebuild from the database (inside the caller's read transaction)."""
        seq = connection.execute("SELECT coalesce(max(seq), 0) FROM vec_changes").fetchone()[0]
        rows = connection.execute(_ROW_QUERY, (self.agent_id,)).fetchall()
        self.size = 0
        self.position = {}
        self._reserve(max(len(rows), MIN_CAPACITY))
        self._append(rows, never)
        self.last_seq = int(seq)

    def catch_up(self, connection: Any, never: int) -> None:
        """Apply the changes since ``last_seq``; reload if the log no longer reaches back."""
        floor = connection.execute(
            "SELECT value FROM mnemowire_meta WHERE key = 'vec_changes_floor'"
        ).fetchone()
        if floor is not None and self.last_seq < int(floor[0]):
            self.reload(connection, never)
            return
        changes = connection.execute(
            "SELECT seq, record, added FROM vec_changes WHERE agent_id = ? AND seq > ? "
            "ORDER BY seq",
            (self.agent_id, self.last_seq),
        ).fetchall()
        if not changes:
            return
        for _, record, _ in changes:  # every touched record leaves; current live rows re-enter
            pos = self.position.pop(record, None)
            if pos is not None:
                self.alive[pos] = False
        touched = sorted({record for _, record, _ in changes})
        placeholders = ",".join("?" * len(touched))
        rows = connection.execute(
            f"{_ROW_QUERY} AND rowid IN ({placeholders})", (self.agent_id, *touched)
        ).fetchall()
        self._append(rows, never)
        self.last_seq = int(changes[-1][0])
        if self.size > 1024 and self.alive[: self.size].sum() < self.size * 0.75:
            self._compact()

    def search(
        self,
        query: npt.NDArray[np.float32],
        k: int,
        *,
        user_key: str | None,
        types: list[str] | None,
        created_min: int | None,
        now: int,
        only: set[int] | None = None,
    ) -> list[Hit]:
        """The k nearest visible records passing every filter, nearest first (exact up to
        ``COARSE_ABOVE`` candidates, a re-scored shortlist past it)."""
        n = self.size
        if n == 0 or k <= 0:
            return []
        mask = self.alive[:n] & (self.expires[:n] > now)
        if user_key is not None:
            mask &= self.users[:n] == user_key
        if types:
            mask &= np.isin(self.types[:n], types)
        if created_min is not None:
            mask &= self.created[:n] >= created_min
        if only is not None:
            mask &= np.isin(self.rowids[:n], np.fromiter(only, np.int64, len(only)))
        candidates = np.flatnonzero(mask)
        if candidates.size == 0:
            return []
        if candidates.size > COARSE_ABOVE:
            candidates = self._shortlist(query, mask, max(SHORTLIST, 100 * k))
        similarity = (
            self.vectors[candidates] @ query
            if candidates.size < n // 2
            else ((self.vectors[:n] @ query)[candidates])
        )
        take = min(k, candidates.size)
        kth = np.partition(similarity, candidates.size - take)[candidates.size - take]
        top = np.flatnonzero(similarity >= kth)  # ties at the cut all stay in, then rowid decides
        order = top[np.lexsort((self.rowids[candidates[top]], -similarity[top]))][:take]
        return [(int(self.rowids[candidates[i]]), float(1.0 - similarity[i])) for i in order]

    def _shortlist(
        self, query: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_], size: int
    ) -> npt.NDArray[np.intp]:
        """The candidates whose sign bits differ least from the query's: at least ``size`` of
        them (all those tied at the cut come too)."""
        n = self.size
        code = sign_codes(query.reshape(1, -1))[0]
        distance = np.zeros(n, np.uint16)
        for word in range(self.codes.shape[0]):
            distance += np.bitwise_count(self.codes[word, :n] ^ code[word])
        beyond = 64 * self.codes.shape[0] + 1  # more than any real distance
        distance[~mask] = beyond
        # a histogram finds the cut in one pass; an argpartition of n costs several times more
        counts = np.cumsum(np.bincount(distance, minlength=beyond + 1)[:beyond])
        cut = int(np.searchsorted(counts, min(size, int(counts[-1]))))
        return np.flatnonzero(distance <= cut)

    @property
    def nbytes(self) -> int:
        """Memory held, capacity included (what the cache's budget counts)."""
        arrays = (self.rowids, self.vectors, self.users, self.types, self.created, self.expires)
        held = sum(a.nbytes for a in arrays) + self.alive.nbytes + self.codes.nbytes
        return held + _POSITION_BYTES * len(self.position)

    # -- storage -----------------------------------------------------------------------------

    def _reserve(self, capacity: int) -> None:
        if capacity <= len(self.rowids):
            return
        old = len(self.rowids)
        grow = max(capacity, 2 * old)

        def extend(array: Any, shape: tuple[int, ...], dtype: Any) -> Any:
            fresh = np.zeros(shape, dtype)
            fresh[:old] = array[:old]
            return fresh

        self.rowids = extend(self.rowids, (grow,), np.int64)
        vectors = np.zeros((grow, self.dimension), np.float32)
        if old:
            vectors[:old] = self.vectors[:old]
        self.vectors = vectors
        self.users = extend(self.users, (grow,), object)
        self.types = extend(self.types, (grow,), object)
        self.created = extend(self.created, (grow,), np.int64)
        self.expires = extend(self.expires, (grow,), np.int64)
        self.alive = extend(self.alive, (grow,), bool)
        codes = np.zeros((_words(self.dimension), grow), np.uint64)
        if old:
            codes[:, :old] = self.codes[:, :old]
        self.codes = codes

    def _append(self, rows: list[Any], never: int) -> None:
        self._reserve(self.size + len(rows))
        start = self.size
        for rowid, blob, user_id, kind, created_at, expires_at in rows:
            i = self.size
            self.rowids[i] = rowid
            self.vectors[i] = np.frombuffer(blob, np.float32)
            self.users[i] = user_key(user_id)
            self.types[i] = kind
            self.created[i] = created_at
            self.expires[i] = never if expires_at is None else expires_at
            self.alive[i] = True
            self.position[int(rowid)] = i
            self.size += 1
        if self.size > start:
            self.codes[:, start : self.size] = sign_codes(self.vectors[start : self.size]).T

    def _compact(self) -> None:
        keep = np.flatnonzero(self.alive[: self.size])
        for name in ("rowids", "vectors", "users", "types", "created", "expires", "alive"):
            array = getattr(self, name)
            setattr(self, name, array[keep].copy())
        self.codes = self.codes[:, keep].copy()
        self.size = len(keep)
        self.position = {int(r): i for i, r in enumerate(self.rowids[: self.size])}
        self._reserve(max(self.size, MIN_CAPACITY))


def _words(dimension: int) -> int:
    return (dimension + 63) // 64


def sign_codes(vectors: npt.NDArray[np.float32]) -> npt.NDArray[np.uint64]:
    """Each row's sign bits packed into 64-bit words (padding bits are 0 for every row, so
    they never count in a Hamming distance)."""
    rows, dimension = vectors.shape
    packed = np.zeros((rows, _words(dimension) * 8), np.uint8)
    bits = np.packbits(vectors > 0, axis=1)
    packed[:, : bits.shape[1]] = bits
    return packed.view(np.uint64)


def load_rows(connection: Any, agent_id: str, dimension: int, never: int) -> AgentIndex:
    """A fresh index for ``agent_id`` (inside the caller's read transaction)."""
    index = AgentIndex(agent_id, dimension, vectors=np.zeros((0, dimension), np.float32))
    index.reload(connection, never)
    return index


def _slot_bytes(dimension: int) -> int:
    """What one reserved row of an index holds: a vector, its sign bits, the filter columns."""
    return 4 * dimension + 8 * _words(dimension) + 8 * 5 + 1


class IndexCache:
    """The agents' indexes, the least recently searched dropped once they hold more than
    ``budget`` bytes. An agent whose index alone would not fit gets none (the store falls back
    to vec0), so the budget bounds what a store holds however many agents it serves."""

    def __init__(self, dimension: int, budget: int, never: int) -> None:
        self.dimension = dimension
        self.budget = budget
        self._never = never
        #: least recently used first (dicts keep insertion order; a hit re-inserts)
        self._indexes: dict[str, AgentIndex] = {}
        self._used = 0

    @property
    def agents(self) -> int:
        return len(self._indexes)

    @property
    def used(self) -> int:
        """Bytes held by the cached indexes."""
        return self._used

    def holds(self, agent_id: str, *, at_most: int) -> bool:
        """Whether ``agent_id`` has an index of at most ``at_most`` rows (the LRU order is left
        as it is: this is a question, not a use)."""
        index = self._indexes.get(agent_id)
        return index is not None and index.size <= at_most

    def get(self, connection: Any, agent_id: str, visible: int) -> AgentIndex | None:
        """``agent_id``'s index, up to date with the database (inside the caller's read
        transaction), or None when it cannot fit in the budget."""
        index = self._indexes.pop(agent_id, None)
        if index is None:
            needed = max(visible, MIN_CAPACITY) * _slot_bytes(self.dimension)
            if needed + visible * _POSITION_BYTES > self.budget:
                return None
            index = load_rows(connection, agent_id, self.dimension, self._never)
        else:
            self._used -= index.nbytes
            index.catch_up(connection, self._never)
        if index.nbytes > self.budget:  # grew past the budget on its own
            return None
        self._indexes[agent_id] = index
        self._used += index.nbytes
        while self._used > self.budget:
            oldest = next(iter(self._indexes))
            self._used -= self._indexes.pop(oldest).nbytes
        return index
