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

A store keeping its log in SQLite writes it with ``append_sqlite`` and reads it with
``read_sqlite`` (sqlite-vec in its database, the document stores in their id map's).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import rfc8785

from mnemowire.kit._basics import digest

__all__ = [
    "ENTRY_FIELDS",
    "GENESIS",
    "Verdict",
    "append_sqlite",
    "chain_digest",
    "create_sqlite",
    "entry",
    "export_lines",
    "read_sqlite",
    "verify",
]

#: the previous digest of the first entry
GENESIS = "0" * 64
#: what an entry holds, in the order a store's audit table keeps it
ENTRY_FIELDS = ("seq", "at", "operation", "agent_id", "ids", "request_sha256", "detail")


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
    delete must leave no content behind)."""
    return {
        "at": at,
        "operation": operation,
        "agent_id": agent_id,
        "ids": list(ids),
        "request_sha256": digest(request),
        "detail": dict(detail) if detail else None,
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


def verify(rows: Iterable[Mapping[str, Any]], *, head: str | None = None) -> Verdict:
    """Check a chain in ``seq`` order (each row an entry with its ``digest``). ``head``: a
    digest kept from earlier; the chain must pass through it (else it was truncated or
    rewritten since)."""
    previous, count, seen_head = GENESIS, 0, head is None
    for row in rows:
        seq = int(row["seq"])
        problem = None
        if seq != count + 1:
            what = "missing or moved" if seq > count + 1 else "out of order or repeated"
            problem = f"entry {count + 1} is {what} (entry {count} is followed by {seq})"
        elif row.get("digest") != chain_digest(previous, row):
            problem = (
                f"entry {seq} does not match its digest: it was changed, or an entry before it was"
            )
        if problem is not None:
            return Verdict(False, count, previous, seq, problem)
        previous, count = str(row["digest"]), count + 1
        seen_head = seen_head or previous == head
    if not seen_head:
        return Verdict(
            False, count, previous, None,
            f"the chain does not pass through the head {head}: entries after it were removed "
            "or the log was rewritten",
        )  # fmt: skip
    return Verdict(True, count, previous)


def export_lines(rows: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    """JSON Lines: every entry with its digest, then ``{"head": ..., "entries": n}``."""
    head, count = GENESIS, 0
    for row in rows:
        line = {**_entry(row), "digest": row.get("digest")}
        yield json.dumps(line, ensure_ascii=False, separators=(",", ":"))
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
    last = tx.execute("SELECT seq, digest FROM audit_log ORDER BY seq DESC LIMIT 1").fetchone()
    seq, previous = (1, GENESIS) if last is None else (last[0] + 1, last[1])
    written = {"seq": seq, **entry(at, operation, agent_id, ids, request, detail)}
    tx.execute(
        "INSERT INTO audit_log(seq, at, operation, agent_id, ids, request_sha256, detail, digest) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            seq,
            at,
            operation,
            agent_id,
            json.dumps(written["ids"]),
            written["request_sha256"],
            json.dumps(written["detail"]) if written["detail"] else None,
            chain_digest(previous, written),
        ),
    )


def read_sqlite(connection: Any) -> list[dict[str, Any]]:
    """A SQLite ``audit_log``, oldest first: each row an entry with its ``digest`` (None for
    a row written before its store kept the chain)."""
    rows = connection.execute(
        f"SELECT {', '.join(ENTRY_FIELDS)}, digest FROM audit_log ORDER BY seq"
    ).fetchall()
    entries = []
    for row in rows:
        found = dict(zip(ENTRY_FIELDS, row[:-1], strict=True))
        found["ids"] = json.loads(found["ids"])
        found["detail"] = json.loads(found["detail"]) if found["detail"] else None
        entries.append({**found, "digest": row[-1]})
    return entries
