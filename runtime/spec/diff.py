"""``spec diff``: what changed between two spec versions, and what each change breaks.

Every change is classified by **direction** and **kind**. A message's direction is read from
the spec itself: requests are closed ([validation.closed]: what clients send, so an older
store refuses anything new), responses are open ([versioning.open-responses]: what stores
send, so an older client must still accept it). The same edit is safe one way and breaking
the other: a loosened bound lets new clients send what old stores refuse (a request WARN)
and lets new stores send what old clients reject (a response ERR). Each rule has a stable id
(``request.bound.tightened``), a level (ERR breaks existing peers, WARN needs care, INFO is
safe) and the version bump it requires under docs/spec/v0.md#versioning.policy.

>>> report = diff(read_spec_dir(old_dir), read_spec_dir(new_dir))      # doctest: +SKIP
>>> report.required_bump                                                # doctest: +SKIP
'minor'
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mnemowire.errors import SpecError
from mnemowire.spec._diff_rules import BUMPS, LEVELS, RULES, Bump, Rule
from mnemowire.spec._diff_walk import Change, Walk, by_id, direction_of
from mnemowire.spec._loader import SpecFiles, read_spec_dir, version_key

__all__ = [
    "BUMPS",
    "LEVELS",
    "RULES",
    "Change",
    "DiffReport",
    "Rule",
    "allowed_bump",
    "declared_bump",
    "diff",
    "direction_of",
    "dumps",
    "read_version",
    "to_json",
]

#: [versioning.policy] "Breaking changes are allowed through v0.5": before 1.0 a minor bump may
#: break (semver's 0.y convention) while it reaches a version up to this one, no further
BREAKING_MINOR_THROUGH = (0, 5)
_VERSION = re.compile(r"v[0-9]+(?:\.[0-9]+)*")


@dataclass(frozen=True)
class DiffReport:
    """Every change from ``old`` to ``new``, and the bump they require."""

    old: SpecFiles
    new: SpecFiles
    changes: tuple[Change, ...] = field(default=())

    @property
    def required_bump(self) -> Bump:
        return max((c.rule.bump for c in self.changes), key=BUMPS.index, default="none")

    @property
    def declared_bump(self) -> Bump | None:
        """The bump NEW's version number declares over OLD's; None when it is not newer."""
        return declared_bump(self.old.version, self.new.version)

    @property
    def allowed_bump(self) -> Bump | None:
        """The most NEW's version number lets the changes require (see ``allowed_bump``)."""
        return allowed_bump(self.old.version, self.new.version)

    @property
    def bump_ok(self) -> bool:
        """NEW is newer and its version number allows the bump the changes need."""
        allowed = self.allowed_bump
        return allowed is not None and BUMPS.index(allowed) >= BUMPS.index(self.required_bump)

    def counts(self) -> dict[str, int]:
        return {level: sum(c.rule.level == level for c in self.changes) for level in LEVELS}

    def at_least(self, level: str) -> list[Change]:
        """The changes at ``level`` (ERR, WARN or INFO) or above."""
        floor = LEVELS.index(level)
        return [c for c in self.changes if LEVELS.index(c.rule.level) >= floor]


def declared_bump(old: str, new: str) -> Bump | None:
    """What going from version ``old`` to ``new`` declares: ``v0`` → ``v1`` major, ``v0`` →
    ``v0.1`` minor, ``v0.1`` → ``v0.1.1`` none (a patch); None when ``new`` is not newer."""
    before, after = version_key(old), version_key(new)
    width = max(len(before), len(after), 2)
    before += (0,) * (width - len(before))
    after += (0,) * (width - len(after))
    if after <= before:
        return None
    if after[0] != before[0]:
        return "major"
    return "minor" if after[1] != before[1] else "none"


def allowed_bump(old: str, new: str) -> Bump | None:
    """The most the changes from ``old`` to ``new`` may require: what the version number
    declares, except that before 1.0 a minor bump may break (``major``) when it reaches a
    version up to v0.5 (``v0.2`` -> ``v0.3``, ``v0`` -> ``v0.7``; not ``v0.5`` -> ``v0.6``).
    None when ``new`` is not newer."""
    declared = declared_bump(old, new)
    if declared == "minor" and version_key(old)[:2] < BREAKING_MINOR_THROUGH:
        return "major"
    return declared


def read_version(folder: Path) -> SpecFiles:
    """A spec version folder, its version the one its schemas' ``$id``s name
    (``https://mnemowire.dev/spec/v0.2/common.json``), so a draft diffs from any folder
    (``old/``, ``new/``); the folder's own name (``v0.2``) when no ``$id`` names one.
    SpecError when neither does, or the two disagree."""
    files = read_spec_dir(folder)
    ids = {_id_version(d) for d in files.documents.values()}
    named = sorted((v for v in ids if v is not None), key=version_key)
    called = folder.name if _VERSION.fullmatch(folder.name) else None
    if len(named) > 1:
        raise SpecError(f"its schemas' $ids name several versions ({', '.join(named)})")
    if named and called is not None and named[0] != called:
        raise SpecError(
            f"the folder is named {called}, but its schemas' $ids name {named[0]}: make them "
            f"agree (`mnemowire spec lint --dir {folder}` names each $id to change)"
        )
    version = named[0] if named else called
    if version is None:
        raise SpecError(
            f"cannot tell the spec version of {folder}: no $id names one "
            "(https://mnemowire.dev/spec/v0.2/common.json) and the folder is not named like one "
            "(v0.2)"
        )
    return dataclasses.replace(files, version=version)


def _id_version(document: Mapping[str, Any]) -> str | None:
    """The version an ``$id`` names: the folder its file sits in (``.../v0.2/common.json``)."""
    parts = urlsplit(str(document.get("$id", ""))).path.split("/")
    return parts[-2] if len(parts) >= 2 and _VERSION.fullmatch(parts[-2]) else None


def diff(old: SpecFiles, new: SpecFiles) -> DiffReport:
    """Compare every message of two spec versions (``common`` is compared through the
    messages that use it, in the direction each uses it)."""
    changes: list[Change] = []
    ids = (by_id(old), by_id(new))  # every $ref resolves among these, read once
    for message in sorted(set(old.messages) | set(new.messages)):
        if message not in new.documents:
            direction = direction_of(old.documents[message])
            changes.append(Change(RULES[f"{direction}.message.removed"], message, "", message))
        elif message not in old.documents:
            direction = direction_of(new.documents[message])
            changes.append(Change(RULES[f"{direction}.message.added"], message, "", message))
        else:
            changes.extend(Walk(old, new, message, ids).changes())
    return DiffReport(old, new, tuple(changes))


def to_json(report: DiffReport) -> dict[str, Any]:
    """The report as JSON, under spec/diff/report.schema.json."""
    return {
        "old": {"version": report.old.version, "digest": report.old.digest},
        "new": {"version": report.new.version, "digest": report.new.digest},
        "required_bump": report.required_bump,
        "declared_bump": report.declared_bump,
        "counts": report.counts(),
        "changes": [c.to_json() for c in report.changes],
    }


def dumps(report: DiffReport) -> str:
    return json.dumps(to_json(report), indent=2, ensure_ascii=False)
