"""The SQLite connection of a sqlite-vec store: opening and configuring the file, checking its
layout and embedder, transactions, backend errors as mnemowire errors, interrupting a step
whose caller gave up, and checkpointing the WAL after an erasure."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

from mnemowire.adapters.sqlite_vec._driver import Driver, connect
from mnemowire.adapters.sqlite_vec._schema import MIGRATIONS, migrate
from mnemowire.embedders import Embedder
from mnemowire.errors import ConfigError, MnemowireError, StoreError, UnavailableError

__all__ = ["BUSY_TIMEOUT_MS", "CACHE_KIB", "SCRUB_WAIT_MS", "Database", "Job"]

#: what the connection waits for another connection's lock, in ms (inline recall waits for none)
BUSY_TIMEOUT_MS = 10_000
#: what an erasure's WAL checkpoint waits for other connections' readers, in ms
SCRUB_WAIT_MS = 250
#: SQLite's page cache per connection, in KiB
CACHE_KIB = 32_768


class Database:
    """One connection to the store's file, used by one operation at a time (``lock``)."""

    def __init__(self, path: str, name: str, driver: Driver, embedder: Embedder) -> None:
        self.path = path
        self.name = name
        self.driver = driver
        self.lock = threading.RLock()
        self.closed = False
        #: an erasure whose WAL checkpoint could not finish yet (see ``scrub``)
        self.scrub_pending = False
        with self.errors():
            self.connection = connect(driver, path)
            self._configure(embedder)

    def keep_versions(self, limit: int) -> None:
        """The operator's bound on each record's history ([history.bound]): kept in the file,
        where the trigger that trims it reads it, so every process writing the file keeps
        the same bound. Written only when it changes (an open takes no write lock)."""
        with self.errors():
            with self.transaction(write=False) as tx:
                row = tx.execute(
                    "SELECT value FROM mnemowire_meta WHERE key = 'history_limit'"
                ).fetchone()
            if row is not None and int(row[0]) == limit:
                return
            with self.transaction() as tx:
                tx.execute(
                    "INSERT OR REPLACE INTO mnemowire_meta(key, value) VALUES ('history_limit', ?)",
                    (str(limit),),
                )

    def close(self) -> None:
        with self.lock:
            if not self.closed:
                self.closed = True
                self.connection.close()

    def is_busy(self, exc: BaseException) -> bool:
        """Whether ``exc`` says another connection holds the lock this one waited for."""
        return isinstance(exc, self.driver.module.OperationalError) and (
            "locked" in str(exc) or "busy" in str(exc)
        )

    @contextlib.contextmanager
    def errors(self) -> Iterator[None]:
        """Backend exceptions become mnemowire errors here, and only here."""
        try:
            yield
        except MnemowireError:
            raise
        except self.driver.module.OperationalError as exc:
            if self.is_busy(exc):
                raise UnavailableError(
                    f"{self.name}: database is locked by another writer; retry ({exc})"
                ) from exc
            raise StoreError(f"{self.name}: {exc}") from exc
        except self.driver.module.DatabaseError as exc:
            raise StoreError(f"{self.name}: {exc}") from exc

    @contextlib.contextmanager
    def waiting(self, ms: int) -> Iterator[None]:
        """Wait at most ``ms`` for another connection's lock inside the block (0: never)."""
        self.connection.execute(f"PRAGMA busy_timeout = {ms}")
        try:
            yield
        finally:
            self.connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")

    @contextlib.contextmanager
    def transaction(self, write: bool = True) -> Iterator[Any]:
        """One transaction: IMMEDIATE for writes (the write lock is taken up front, so two
        writers never deadlock upgrading), deferred for reads (a consistent WAL snapshot)."""
        db = self.connection
        db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def scrub(self) -> None:
        """After an erasure: checkpoint the write-ahead log into the file and truncate it, so the
        erased bytes leave the WAL too (``secure_delete`` zeroes them in every page written
        after the delete; the WAL still holds the page versions written before it). A reader in
        another connection can keep the checkpoint from finishing: then it is retried after
        every later write until it does (docs/adapters/sqlite-vec.md, "Erasure")."""
        if self.path == ":memory:":
            return
        with self.waiting(SCRUB_WAIT_MS):
            busy, _, _ = self.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        self.scrub_pending = bool(busy)

    def _configure(self, embedder: Embedder) -> None:
        db = self.connection
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if self.path != ":memory:":
            db.execute("PRAGMA journal_mode = WAL")  # a no-op, taking no lock, once it is WAL
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("PRAGMA secure_delete = ON")  # erased content is overwritten, not left behind
        # 32 MiB of page cache instead of 2: the keyword index takes ~11 rows a record, and
        # with the default a 100k-record bulk load spent its time re-reading evicted pages
        db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        # A file already at the current layout opens in a read transaction: it must not wait
        # for another process's long write (WAL readers never do). Only a new or older file
        # takes the write lock, and checks again under it.
        with self.transaction(write=False) as tx:
            current = self._layout(tx, embedder)
        if current:
            return
        with self.transaction() as tx:
            migrate(tx, embedder.dimension)
            if not self._layout(tx, embedder):
                tx.executemany(
                    "INSERT INTO mnemowire_meta(key, value) VALUES (?, ?)",
                    [("embedder", embedder.name), ("dimension", str(embedder.dimension))],
                )

    def _layout(self, tx: Any, embedder: Embedder) -> bool:
        """Whether the file is at the current layout with this store's embedder recorded
        (ConfigError when it was made with another embedder, or by a newer mnemowire)."""
        known = tx.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'mnemowire_meta'"
        ).fetchone()
        if known is None:
            return False
        stored = dict(tx.execute("SELECT key, value FROM mnemowire_meta").fetchall())
        version = int(stored.get("schema_version", 0))
        if version > len(MIGRATIONS):
            raise ConfigError(
                f"{self.path} has layout version {version}, made by a newer mnemowire than this "
                f"one (which knows {len(MIGRATIONS)}); upgrade mnemowire to open it"
            )
        if "embedder" in stored and (stored["embedder"], int(stored["dimension"])) != (
            embedder.name,
            embedder.dimension,
        ):
            raise ConfigError(
                f"{self.path} was made with embedder {stored['embedder']} "
                f"({stored['dimension']}-d); this store was opened with "
                f"{embedder.name} ({embedder.dimension}-d). Open it with the same "
                "embedder, or use another file."
            )
        return version == len(MIGRATIONS) and "embedder" in stored


class Job:
    """One database step on its way through the store's worker thread: waiting for the store,
    running, done or cancelled. Its state changes under a lock of its own, so a cancellation
    interrupts the SQL only of the step that is running, never of the next one."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._state = "waiting"

    def start(self) -> bool:
        """Called by the worker holding the store: False if the caller gave up meanwhile."""
        with self._guard:
            if self._state == "cancelled":
                return False
            self._state = "running"
            return True

    def finish(self) -> None:
        with self._guard:
            self._state = "done"

    def cancel(self, connection: Any) -> None:
        with self._guard:
            if self._state == "running":
                connection.interrupt()
            if self._state != "done":
                self._state = "cancelled"
