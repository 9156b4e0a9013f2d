"""The rules ``spec diff`` classifies changes by: an id, a level and the bump it requires.

Most kinds of change either narrow what a schema accepts (a bound tightened, a value removed,
a condition added) or widen it, and the direction decides what that does: a narrowed request
refuses older clients (ERR), a widened one only reaches stores of the new version (WARN); a
narrowed response is still accepted by older clients (INFO), a widened one may not be (ERR).
Those rules are derived from that one table; the rest (fields, enumerations, messages, ...)
are written out, since each direction says something of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

__all__ = ["BUMPS", "DIRECTIONS", "LEVELS", "RULES", "Bump", "Direction", "Level", "Rule"]

Level = Literal["ERR", "WARN", "INFO"]
Bump = Literal["none", "minor", "major"]
Direction = Literal["request", "response"]
#: least to most severe
LEVELS: tuple[Level, ...] = ("INFO", "WARN", "ERR")
BUMPS: tuple[Bump, ...] = ("none", "minor", "major")
DIRECTIONS: tuple[Direction, ...] = ("request", "response")


@dataclass(frozen=True)
class Rule:
    """One kind of change in one direction: a stable id, how bad it is, what it requires."""

    id: str
    level: Level
    bump: Bump
    why: str


Effect = Literal["narrows", "widens", "unproven"]
#: kind -> (what it does to the accepted values, what those values are)
_BY_EFFECT: dict[str, tuple[Effect, str]] = {
    "type.narrowed": ("narrows", "values"),
    "type.widened": ("widens", "a type"),
    "type.changed": ("unproven", "values"),
    "bound.tightened": ("narrows", "values"),
    "bound.loosened": ("widens", "values"),
    "pattern.added": ("narrows", "text"),
    "pattern.removed": ("widens", "text"),
    "pattern.changed": ("unproven", "text"),
    "format.added": ("narrows", "text"),
    "format.removed": ("widens", "text"),
    "format.changed": ("unproven", "text"),
    "const.changed": ("unproven", "values"),
    "required.added": ("narrows", "messages"),
    "required.removed": ("widens", "messages without the field"),
    "additional-properties.closed": ("narrows", "extra fields"),
    "additional-properties.opened": ("widens", "fields"),
    "alternative.added": ("widens", "what an added anyOf alternative allows"),
    "alternative.removed": ("narrows", "messages"),
    "condition.added": ("narrows", "messages"),
    "condition.removed": ("widens", "what the lifted condition refused"),
}
#: (direction, effect) -> (level, bump, why)
_EFFECTS: dict[tuple[Direction, Effect], tuple[Level, Bump, str]] = {
    ("request", "narrows"): ("ERR", "major", "older clients' {what} may be refused"),
    ("request", "widens"): ("WARN", "minor", "new clients may send {what} older stores refuse"),
    ("request", "unproven"): (
        "ERR", "major", "older clients' {what} may be refused (not proven compatible)"
    ),
    ("response", "narrows"): ("INFO", "minor", "older clients accept every value sent"),
    ("response", "widens"): ("ERR", "major", "new stores may send {what} older clients reject"),
    ("response", "unproven"): (
        "ERR", "major", "new stores may send {what} older clients reject (not proven compatible)"
    ),
}  # fmt: skip
#: rules that say something of their own, per direction
_OWN: list[tuple[str, Level, Bump, str]] = [
    ("request.property.added.optional", "WARN", "minor",
     "older stores refuse it (requests are closed): send it only to stores of this version"),
    ("request.property.added.required", "ERR", "major",
     "every older client's request now lacks it and is refused"),
    ("request.property.removed", "ERR", "major",
     "older clients that send it are refused (requests are closed)"),
    ("request.enum.appended", "WARN", "minor",
     "older stores refuse the new value: send it only to stores of this version"),
    ("request.enum.inserted", "WARN", "minor",
     "a new value, not at the end: older stores refuse it, and bindings change order"),
    ("request.enum.removed", "ERR", "major", "older clients that send it are refused"),
    ("request.default.changed", "ERR", "major",
     "an older client leaving the field out now asks for something else"),
    ("response.property.added.optional", "INFO", "minor",
     "older clients ignore fields they do not know"),
    ("response.property.added.required", "INFO", "minor",
     "older clients ignore fields they do not know"),
    ("response.property.added.closed", "ERR", "major",
     "the object is closed: an older client's schema rejects the field it does not know"),
    ("response.property.added.embedded-request", "ERR", "major",
     "older clients read the embedded request under its closed schema and reject the field; "
     "v0.1 lifted seal out the same way ([compat.review])"),
    ("response.property.removed.optional", "WARN", "minor",
     "older clients reading it find it missing (allowed: it was optional)"),
    ("response.property.removed.required", "ERR", "major",
     "older clients expect it in every answer"),
    ("response.enum.appended", "ERR", "major",
     "older clients reject the new value (this enumeration is closed)"),
    ("response.enum.appended.open", "INFO", "minor",
     "older clients keep values they do not know (an open enumeration)"),
    ("response.enum.inserted", "ERR", "major",
     "older clients reject the new value (this enumeration is closed)"),
    ("response.enum.inserted.open", "WARN", "minor",
     "older clients keep the new value (open), but generated bindings change order"),
    ("response.enum.removed", "INFO", "minor", "stores no longer send it"),
    ("response.default.changed", "WARN", "minor",
     "a field left out now means something else to clients reading it"),
]  # fmt: skip
#: rules the same in both directions
_BOTH: list[tuple[str, Level, Bump, str]] = [
    ("message.added", "INFO", "minor",
     "a new message: send it only to stores that declare this version"),
    ("message.removed", "ERR", "major", "older peers still send or expect it"),
    ("condition.added.new-field", "INFO", "minor",
     "it applies only to messages carrying a field this version adds, which no older peer sends"),
    ("enum.reordered", "INFO", "none", "same values; generated bindings reorder"),
    ("ref.changed", "INFO", "none",
     "now named through another definition; what it accepts is compared beside"),
    ("composition.changed", "ERR", "major",
     "oneOf alternatives changed in number: a new one may overlap, not proven safe"),
    ("keyword.changed", "ERR", "major",
     "a keyword the diff cannot prove compatible changed: review it"),
    ("annotation.changed", "INFO", "none", "documentation only (description, title, examples)"),
    ("deprecated.added", "INFO", "minor", "deprecated: still accepted, on its way out"),
]  # fmt: skip


def _rules() -> dict[str, Rule]:
    rules = [Rule(*row) for row in _OWN]
    for direction in DIRECTIONS:
        for kind, (effect, what) in _BY_EFFECT.items():
            level, bump, why = _EFFECTS[direction, effect]
            rules.append(Rule(f"{direction}.{kind}", level, bump, why.format(what=what)))
        rules += [Rule(f"{direction}.{kind}", level, bump, why) for kind, level, bump, why in _BOTH]
    return {rule.id: rule for rule in sorted(rules, key=lambda r: r.id)}


#: every rule, by id
RULES: Mapping[str, Rule] = _rules()
