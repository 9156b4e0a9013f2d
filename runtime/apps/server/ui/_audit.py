"""The audit page's work: the chain's verdict, kept between visits, and the entries it lists.

Digesting every entry on every visit held the event loop for the whole chain (seconds at
30,000 entries) and let any token make the server do it again and again. ``ChainCheck`` does
it in a worker thread, one check at a time, and remembers how far the chain held: the next
visit digests only the entries after that. It still reads every entry (the protocol gives the
log whole) and compares the ones checked before with a sha256 of them as they were (their
``repr``: 0.17 s for 30,000, against 1.3 s and more to digest them, docs/governance.md#ui.audit):
an entry changed among them, or a log now shorter, has the whole chain checked again, which
must then still pass through the head this server saw (as ``mnemowire audit verify --head``
does). So the kept position saves work and never hides a change; a log cut short or rewritten
whole while the server runs is found.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mnemowire.apps._times import when
from mnemowire.kit.audit import GENESIS, Verdict, verify

if TYPE_CHECKING:
    from hashlib import _Hash

__all__ = ["ChainCheck", "Line", "lines_of"]


class ChainCheck:
    """The audit log's verdict for one server, checked on from where it last held."""

    def __init__(self) -> None:
        self._waiting = asyncio.Lock()  # one worker thread at a time, the other visits wait
        self._checking = threading.Lock()  # a check its visitor left still owns the state
        self._checked = 0
        self._head = GENESIS
        self._seen = hashlib.sha256()  # over the first ``_checked`` entries as they were read

    async def verdict(self, entries: Sequence[Mapping[str, Any]]) -> Verdict:
        """The chain's verdict on ``entries`` (the whole log, oldest first), off the event
        loop; a visit during another's check waits for it and then checks only what is new."""
        async with self._waiting:
            return await asyncio.to_thread(self._check, entries)

    def _check(self, entries: Sequence[Mapping[str, Any]]) -> Verdict:
        with self._checking:
            seen = _fingerprint(hashlib.sha256(), entries[: self._checked])
            if self._checked <= len(entries) and seen.digest() == self._seen.digest():
                start = self._checked
                verdict = verify(entries[start:], since=(start, self._head))
            else:
                start, seen = 0, hashlib.sha256()
                verdict = verify(entries, head=self._head)
                if not verdict.ok:
                    return verdict  # what held stays kept: the next visit compares with it
            self._seen = _fingerprint(seen, entries[start : verdict.entries])
            self._checked, self._head = verdict.entries, verdict.head
            return verdict


def _fingerprint(seen: _Hash, entries: Sequence[Mapping[str, Any]]) -> _Hash:
    for entry in entries:
        seen.update(repr(entry).encode())
    return seen


@dataclass(frozen=True)
class Line:
    """An entry as the page lists it: text for every column, whatever the row holds."""

    seq: int
    at: str
    operation: str
    agent_id: str
    ids: list[str]
    detail: str


def lines_of(
    entries: Sequence[Mapping[str, Any]],
    sees: Callable[[str], bool],
    agent: str | None,
    before: int | None,
    limit: int,
) -> tuple[list[Line], int | None]:
    """The newest ``limit`` entries the session ``sees`` (of ``agent`` only, if given; older
    than ``before``, if given), and the ``seq`` to list older ones from (None: no more)."""
    shown = [
        entry
        for entry in reversed(entries)
        if sees(_text(entry.get("agent_id")))
        and (agent is None or entry.get("agent_id") == agent)
        and (before is None or int(entry["seq"]) < before)
    ]
    page = [_line(entry) for entry in shown[:limit]]
    return page, (page[-1].seq if len(shown) > limit else None)


def _line(entry: Mapping[str, Any]) -> Line:
    ids, detail = entry.get("ids"), entry.get("detail")
    if not (isinstance(ids, list) and all(isinstance(i, str) for i in ids)):
        ids = [_text(ids)]  # rewritten into something else: shown as it is
    return Line(
        seq=int(entry["seq"]),
        at=when(entry.get("at")),
        operation=_text(entry.get("operation")),
        agent_id=_text(entry.get("agent_id")),
        ids=ids,
        detail="" if not detail else _text(detail),
    )


def _text(value: Any) -> str:
    """A stored value as the page shows it: a string as it is, anything else as JSON (sorted
    keys, as Jinja's ``tojson``), a value JSON cannot hold as its ``repr``."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, default=repr)
