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
    "chain_digest",
    "entry",
    "export_lines",
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
