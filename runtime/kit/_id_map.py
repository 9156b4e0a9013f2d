"""A document store's id map: wire id -> the backend's id, in SQLite beside the backend's files,
with the review queue's rows and the audit log in the same database (one transaction over
all three)."""

from __future__ import annotations

import contextlib
import secrets
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mnemowire.kit._document_reviews import ReviewRows
from mnemowire.kit.audit import append_entry_sqlite, append_sqlite, create_sqlite, read_sqlite

__all__ = ["IdMap", "MappedId"]


@dataclass(frozen=True)
class MappedId:
    backend_id: str | None  # None once erased
    agent_id: str


class IdMap:
    """Wire id -> the backend's id, in SQLite beside the backend's files. Used from the store's
    one worker thread only (``check_same_thread`` is off because that thread is not the
    opener)."""

    def __init__(self, path: Path) -> None:
        self._path = Path(path)
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        # an erased record's words must not linger in freed pages: the review queue's copy
        # of a staged request is rewritten to ``{}`` on erasure (docs/threat-model.md#8)
        self._db.execute("PRAGMA secure_delete=ON")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS ids (id TEXT PRIMARY KEY, backend_id TEXT, "
            "agent_id TEXT NOT NULL)"
        )
        self._db.execute("CREATE INDEX IF NOT EXISTS ids_backend ON ids (backend_id)")
        self._db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BLOB)")
        #: the review queue (kit._document_reviews), in the same database
        self.reviews = ReviewRows(self._db)
        create_sqlite(self._db)  # the audit log, chained from its first entry

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction over the map, the queue and the audit log: what changes
        together commits together (another process on the file waits its turn)."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def audit(  # noqa: PLR0917 (one audit entry, field by field)
        self,
        at: int,
        operation: str,
        agent_id: str,
        ids: Sequence[str],
        request: Any,
        detail: Mapping[str, Any] | None = None,
    ) -> None:
        """Append an audit entry: in the transaction under way, else in one of its own (the
        chain's next number must be read and taken at once)."""
        if self._db.in_transaction:
            append_sqlite(self._db, at, operation, agent_id, ids, request, detail)
            return
        with self.transaction():
            append_sqlite(self._db, at, operation, agent_id, ids, request, detail)

    def append_entry(self, made: Mapping[str, Any]) -> None:
        """Append an entry already made (``kit.audit.entry``), in the transaction under way."""
        append_entry_sqlite(self._db, made)

    def audit_entries(self) -> list[dict[str, Any]]:
        return read_sqlite(self._db)

    def audit_head(self) -> str | None:
        """The digest of the chain's last entry (an archive's manifest names it)."""
        row = self._db.execute("SELECT digest FROM audit_log ORDER BY seq DESC LIMIT 1")
        found = row.fetchone()
        return None if found is None else str(found[0])

    def cursor_key(self) -> bytes:
        """The key list cursors are authenticated under: made once, kept with the map."""
        self._db.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES ('cursor_key', ?)",
            (secrets.token_bytes(32),),
        )
        row = self._db.execute("SELECT value FROM meta WHERE key = 'cursor_key'").fetchone()
        return bytes(row[0])

    def get(self, record_id: str) -> MappedId | None:
        row = self._db.execute(
            "SELECT backend_id, agent_id FROM ids WHERE id = ?", (record_id,)
        ).fetchone()
        return None if row is None else MappedId(row[0], row[1])

    def owners(self, backend_ids: Sequence[str]) -> dict[str, str]:
        """Backend id -> wire id, for the rows the map names (the others are not records)."""
        found: dict[str, str] = {}
        for start in range(0, len(backend_ids), 500):
            chunk = list(backend_ids[start : start + 500])
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT backend_id, id FROM ids WHERE backend_id IN ({marks})", chunk
            ).fetchall()
            found.update(dict(rows))
        return found

    def known(self, ids: Sequence[str]) -> tuple[dict[str, str], list[str]]:
        """Of ``ids``, those naming a row (each with its agent) and those erased."""
        held: dict[str, str] = {}
        erased: list[str] = []
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            marks = ",".join("?" * len(chunk))
            for record_id, backend_id, agent_id in self._db.execute(
                f"SELECT id, backend_id, agent_id FROM ids WHERE id IN ({marks})", chunk
            ):
                if backend_id is None:
                    erased.append(record_id)
                else:
                    held[record_id] = agent_id
        return held, erased

    def erased_after(self, agent_id: str, after: str, limit: int) -> list[tuple[str, str]]:
        """The agent's erased ids after ``after``, in id order, ``limit`` at most, each with
        its agent (an export's tombstones)."""
        rows = self._db.execute(
            "SELECT id, agent_id FROM ids WHERE agent_id = ? AND backend_id IS NULL AND id > ? "
            "ORDER BY id LIMIT ?",
            (agent_id, after, limit),
        )
        return [(r[0], r[1]) for r in rows]

    def erased_count(self, agent_id: str) -> int:
        row = self._db.execute(
            "SELECT count(*) FROM ids WHERE agent_id = ? AND backend_id IS NULL", (agent_id,)
        ).fetchone()
        return int(row[0])

    def agents_after(self, after: str, named: Sequence[str] | None, limit: int) -> list[str]:
        """The agents the map names after ``after`` (of ``named`` when given), in order."""
        only, args = "", [after]
        if named:
            only = f" AND agent_id IN ({','.join('?' * len(named))})"
            args += list(named)
        rows = self._db.execute(
            f"SELECT DISTINCT agent_id FROM ids WHERE agent_id > ?{only} ORDER BY 1 LIMIT ?",
            (*args, limit),
        )
        return [r[0] for r in rows]

    def tombstone(self, record_id: str, agent_id: str) -> str:
        """Keep ``record_id`` as erased (an imported tombstone): ``added``; ``known`` when the
        map erased it already; ``held`` when it names a row (left to the operator)."""
        mapped = self.get(record_id)
        if mapped is None:
            self._db.execute(
                "INSERT INTO ids (id, backend_id, agent_id) VALUES (?, NULL, ?)",
                (record_id, agent_id),
            )
            return "added"
        return "known" if mapped.backend_id is None else "held"

    def empty(self) -> bool:
        """Whether no id names a row (every record erased, or none written)."""
        row = self._db.execute("SELECT 1 FROM ids WHERE backend_id IS NOT NULL LIMIT 1")
        return row.fetchone() is None

    def put(self, record_id: str, backend_id: str, agent_id: str) -> None:
        self._db.execute(
            "INSERT INTO ids (id, backend_id, agent_id) VALUES (?, ?, ?)",
            (record_id, backend_id, agent_id),
        )

    def move(self, record_id: str, backend_id: str) -> None:
        """Point ``record_id`` at a new row (a backend that rewrites by adding a new row)."""
        self._db.execute("UPDATE ids SET backend_id = ? WHERE id = ?", (backend_id, record_id))

    def erase(self, record_id: str) -> None:
        """Keep the id, forget the row: an erased id is never reused."""
        self._db.execute("UPDATE ids SET backend_id = NULL WHERE id = ?", (record_id,))

    def close(self, *, delete: bool = False) -> None:
        """Close the map; ``delete`` removes its file too (a throwaway store's)."""
        self._db.close()
        if delete:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{self._path}{suffix}").unlink(missing_ok=True)
