"""The audit log as a hash chain: each entry's digest covers the entry and the digest before it,
so changing, removing, adding or reordering an entry breaks every digest after it.

An entry is the audit row a store writes with each mutation (``seq``, ``at``, ``operation``,
``agent_id``, ``ids``, ``request_sha256``, ``detail``), never a record's content (a hard delete
must leave none behind). Its digest is ``sha256(previous digest || RFC 8785 JSON of the
entry)``, the first entry's previous digest being ``GENESIS``. ``seq`` is in the digest, so an
entry moved to another place no longer matches; numbering gaps are refused outright.

A chain proves its own consistency, not its completeness: whoever can rewrite the whole file
can compute a new chain. So ``export`` ends with the head digest, and anyone who kept an
earlier head can check that today's chain still passes through it (``verify(..., head=)``): a
truncated or rewritten history no longer does.

Reading and verifying never fail on what someone wrote into a log: a row that is not JSON, or
holds what RFC 8785 cannot take (an integer past 2**53, a BLOB), is where its chain breaks, and
``verify`` names it like any other change.

A store keeping its log in SQLite writes it with ``append_sqlite`` and reads it with
``read_sqlite`` (sqlite-vec in its database, the document stores in their id map's).
"""

from __future__ import annotations

import contextvars
import hashlib
import json
from collections.abc import Awaitable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import rfc8785

from mnemowire.kit._basics import digest

__all__ = [
    "ENTRY_FIELDS",
    "GENESIS",
    "UNREADABLE",
    "Verdict",
    "append_entry_sqlite",
    "append_sqlite",
    "as_caller",
    "chain_digest",
    "create_sqlite",
    "entry",
    "export_lines",
    "read_sqlite",
    "stored_entry",
    "verify",
]

#: the previous digest of the first entry
GENESIS = "0" * 64
#: what an entry holds, in the order a store's audit table keeps it
ENTRY_FIELDS = ("seq", "at", "operation", "agent_id", "ids", "request_sha256", "detail")
#: the key ``stored_entry`` marks an entry with whose stored JSON is not JSON, saying why
UNREADABLE = "unreadable"


T = TypeVar("T")
#: the credential a transport authenticated the operation under way by (a token's name)
_CALLER: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "mnemowire_audit_caller", default=None
)


async def as_caller(name: str, work: Awaitable[T]) -> T:
    """``work``, with every audit entry it writes naming ``name`` as its ``detail.caller``:
    the credential (a token's name, never the token) a transport let the write through by,
    so an operator can tell which credential an agent's write came through. Stores need no
    part in it: the entry is made where the context holds the name (worker threads run in a
    copy of the caller's context)."""
    token = _CALLER.set(name)
    try:
        return await work
    finally:
        _CALLER.reset(token)


def entry(  # noqa: PLR0917 (one audit entry, field by field)
    at: int,
    operation: str,
    agent_id: str,
    ids: Sequence[str],
    request: Any,
    detail: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """An audit entry but its place in the chain (``seq``, the store's to give): what was
    done, to whose records, and a digest of the request, never the request itself (a hard
    delete must leave no content behind), and who called (``detail.caller``, within
    :func:`as_caller`)."""
    described = dict(detail or {})
    caller = _CALLER.get()
    if caller is not None:
        described["caller"] = caller
    return {
        "at": at,
        "operation": operation,
        "agent_id": agent_id,
        "ids": list(ids),
        "request_sha256": digest(request),
        "detail": described or None,
    }


def _entry(row: Mapping[str, Any]) -> dict[str, Any]:
    return {field: row.get(field) for field in ENTRY_FIELDS}


def chain_digest(previous: str, entry: Mapping[str, Any]) -> str:
    """The digest of ``entry`` following ``previous`` in the chain."""
    body = rfc8785.dumps(_entry(entry))
    return hashlib.sha256(bytes.fromhex(previous) + body).hexdigest()


@dataclass(frozen=True)
class Verdict:
    """What ``verify`` found: ``ok``, the entries read and the head digest they end in; when
    not ok, the first entry that breaks the chain (``first_bad``, its ``seq``) and why."""

    ok: bool
    entries: int
    head: str
    first_bad: int | None = None
    problem: str | None = None

    def report(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None or k == "first_bad"}


def verify(
    rows: Iterable[Any], *, head: str | None = None, since: tuple[int, str] | None = None
) -> Verdict:
    """Check a chain in ``seq`` order (each row an entry with its ``digest``). ``head``: a
    digest kept from earlier; the chain must pass through it (else it was truncated or
    rewritten since). ``since``: the number of entries before ``rows`` and the digest they end
    in, verified earlier, for ``rows`` to go on from (only the caller can tell that those
    entries are still what was verified). A row that is not an entry, or holds what the
    digest cannot take, breaks the chain there like any other change: never an exception."""
    count, previous = since or (0, GENESIS)
    seen_head = head is None or (since is not None and previous == head)
    for row in rows:
        broken = _break(row, count + 1, previous)
        if broken is not None:
            return Verdict(False, count, previous, *broken)
        previous, count = str(row["digest"]), count + 1
        seen_head = seen_head or previous == head
    if not seen_head:
        return Verdict(
            False, count, previous, None,
            f"the chain does not pass through the head {head}: entries after it were removed "
            "or the log was rewritten",
        )  # fmt: skip
    return Verdict(True, count, previous)


def _break(row: Any, place: int, previous: str) -> tuple[int, str] | None:
    """Where (a ``seq``) and why ``row``, read at ``place`` after ``previous``, breaks the
    chain; None when it holds."""
    if not isinstance(row, Mapping):
        return place, f"entry {place} is not an entry (a JSON object with its seq and digest)"
    seq = row.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool):
        return place, f"entry {place} has no whole-number seq ({seq!r}): it was changed"
    if seq != place:
        what = "missing or moved" if seq > place else "out of order or repeated"
        return seq, f"entry {place} is {what} (entry {place - 1} is followed by {seq})"
    if row.get(UNREADABLE):
        return seq, f"entry {seq} cannot be read: {row[UNREADABLE]}: it was changed"
    try:
        expected = chain_digest(previous, row)
    except (rfc8785.CanonicalizationError, RecursionError) as exc:
        # what a database column holds and RFC 8785 cannot: an integer past 2**53 (bigint,
        # jsonb), an infinity, a SQLite BLOB
        said = str(exc) if len(str(exc)) <= 80 else f"{str(exc)[:80]}…"
        return seq, f"entry {seq} cannot be digested ({type(exc).__name__}: {said}): it was changed"
    if row.get("digest") != expected:
        return seq, (
            f"entry {seq} does not match its digest: it was changed, or an entry before it was"
        )
    return None


def export_lines(rows: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    """JSON Lines: every entry with its digest, then ``{"head": ..., "entries": n}``. A value
    JSON cannot hold (a SQLite BLOB written behind the store's back) is exported as its
    ``repr``, so the export still breaks at that entry when verified."""
    head, count = GENESIS, 0
    for row in rows:
        line = {**_entry(row), "digest": row.get("digest")}
        yield json.dumps(line, ensure_ascii=False, separators=(",", ":"), default=repr)
        head, count = str(row.get("digest")), count + 1
    yield json.dumps({"head": head, "entries": count})


def create_sqlite(connection: Any) -> None:
    """The ``audit_log`` table, chained from its first entry, where there is none yet;
    triggers refuse an UPDATE or DELETE of an entry (append-only, short of rewriting the
    file, which ``verify(..., head=)`` finds)."""
    connection.execute(
        "CREATE TABLE IF NOT EXISTS audit_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
        "at INTEGER NOT NULL, operation TEXT NOT NULL, agent_id TEXT NOT NULL, ids TEXT NOT "
        "NULL, request_sha256 TEXT NOT NULL, detail TEXT, digest TEXT)"
    )
    for change in ("UPDATE", "DELETE"):
        connection.execute(
            f"CREATE TRIGGER IF NOT EXISTS audit_log_append_only_{change.lower()} BEFORE "
            f"{change} ON audit_log BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END"
        )


def append_sqlite(  # noqa: PLR0917 (one audit_log row, column by column)
    tx: Any,
    at: int,
    operation: str,
    agent_id: str,
    ids: Sequence[str],
    request: Any,
    detail: Mapping[str, Any] | None = None,
) -> None:
    """Append an entry (``entry``) to a SQLite ``audit_log``, chained to the one before. The
    caller's transaction must hold the write lock (``BEGIN IMMEDIATE`` or a write before),
    so no other entry comes between the read of the last one and this one."""
    append_entry_sqlite(tx, entry(at, operation, agent_id, ids, request, detail))


def append_entry_sqlite(tx: Any, made: Mapping[str, Any]) -> None:
    """Append an entry already made by ``entry`` (``append_sqlite``'s second half: a caller
    writing several entries of one request digests the request once)."""
    last = tx.execute("SELECT seq, digest FROM audit_log ORDER BY seq DESC LIMIT 1").fetchone()
    seq, previous = (1, GENESIS) if last is None else (last[0] + 1, last[1])
    written = {"seq": seq, **made}
    tx.execute(
        "INSERT INTO audit_log(seq, at, operation, agent_id, ids, request_sha256, detail, digest) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            seq,
            written["at"],
            written["operation"],
            written["agent_id"],
            json.dumps(written["ids"]),
            written["request_sha256"],
            json.dumps(written["detail"]) if written["detail"] else None,
            chain_digest(previous, written),
        ),
    )


def read_sqlite(connection: Any) -> list[dict[str, Any]]:
    """A SQLite ``audit_log``, oldest first: each row an entry with its ``digest`` (None for
    a row written before its store kept the chain), read by ``stored_entry``. The caller's
    thread holds ``connection`` for the call (a store's one worker)."""
    query = f"SELECT {', '.join(ENTRY_FIELDS)}, digest FROM audit_log ORDER BY seq"
    try:
        rows = connection.execute(query).fetchall()
    except Exception as exc:
        if "UTF-8" not in str(exc):  # the driver's decoding alone, never an interrupt
            raise
        # text that is not UTF-8, written behind the store's back: read again, decoding
        # leniently (a Python decoder on every value would slow every read by half)
        factory = connection.text_factory
        connection.text_factory = _text
        try:
            rows = connection.execute(query).fetchall()
        finally:
            connection.text_factory = factory
    return [stored_entry(row) for row in rows]


class _Garbled(str):
    """Stored text that was not UTF-8, its bad bytes replaced (U+FFFD)."""


def _text(raw: bytes) -> str:
    try:
        return raw.decode()
    except UnicodeDecodeError:
        return _Garbled(raw.decode(errors="replace"))


def stored_entry(row: Sequence[Any]) -> dict[str, Any]:
    """The entry a stored row holds (``ENTRY_FIELDS`` then ``digest``; ``ids`` and
    ``detail`` JSON text). A column rewritten behind the triggers' back into what is not JSON
    or not UTF-8 is kept as read and the entry marked ``UNREADABLE`` with why, for ``verify``
    to name: reading a log never fails on what someone wrote into it."""
    found = dict(zip(ENTRY_FIELDS, row[:-1], strict=True))
    problems = [
        f"its {name} is not UTF-8 text"
        for name, value in zip((*ENTRY_FIELDS, "digest"), row, strict=True)
        if isinstance(value, _Garbled)
    ]
    for column in ("ids", "detail"):
        if column == "detail" and not found[column]:
            found[column] = None  # no detail: stored as NULL
            continue
        try:
            found[column] = json.loads(found[column])
        except (TypeError, ValueError, RecursionError) as exc:
            are = "are" if column == "ids" else "is"
            problems.append(f"its {column} {are} not JSON ({type(exc).__name__})")
    if problems:
        found[UNREADABLE] = "; ".join(problems)
    return {**found, "digest": row[-1]}
