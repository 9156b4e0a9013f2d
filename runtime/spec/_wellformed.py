"""What every message must be before its schema is read: a JSON value, of bounded depth, whose
text every store can keep (docs/spec/v0.md#messages.wellformed).

JSON Schema takes these for granted, and the validators do not check them: jsonschema-rs calls a
string with a lone surrogate valid, cannot read bytes or a non-string key at all, and a value
nested thousands of levels deep exhausts the stack of whatever encodes it next. Three rules, each
reported like a schema rule with a path:

- ``json``: the value is not JSON (NaN, an infinity, bytes, a set, a non-string object key);
- ``maxDepth``: objects and arrays nest deeper than the message's limit;
- ``text``: a string or key holds U+0000 (PostgreSQL cannot store it as text, so one store would
  refuse what another keeps) or a lone surrogate (no UTF-8 encoding exists for it).

The walk is iterative and first runs without tracking paths; only a message that breaks a rule is
walked again to say where, so a valid message pays for one pass.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

from mnemowire.spec._refs import pointer

__all__ = ["MAX_DEPTH", "MAX_REQUEST_DEPTH", "WELLFORMED_RULES", "wellformed_problems"]

#: how deep a request may nest (the message itself is level 1): a store must be able to answer
#: with what it was given, and a response wraps a request's metadata two or three levels deeper
MAX_REQUEST_DEPTH = 32
#: how deep any other message may nest
MAX_DEPTH = 64
#: the rules this module reports (bindings in other languages implement them too)
WELLFORMED_RULES = ("json", "maxDepth", "text")

_SURROGATE = re.compile("[\ud800-\udfff]")
Detail = dict[str, str]


def _clean(text: str) -> bool:
    return "\x00" not in text and (text.isascii() or _SURROGATE.search(text) is None)


def _is_ok(value: Any, depth: int, limit: int) -> bool:
    """The fast pass: True when nothing below is broken (no paths kept). Recursive, but never
    deeper than ``limit``; written for speed, since it runs on every message (~25 µs for a
    20-hit recall response): scalars are tested inline, by exact type, in each loop."""
    kind = type(value)
    if kind is dict:
        if depth > limit:
            return False
        for key, member in value.items():
            if type(key) is not str or "\x00" in key or not (key.isascii() or _clean(key)):
                return False
            kind = type(member)
            if kind is str:
                if "\x00" in member or not (member.isascii() or _clean(member)):
                    return False
            elif kind is int or kind is bool or member is None:
                continue
            elif kind is float:
                if member - member != 0.0:  # NaN and the infinities
                    return False
            elif not _is_ok(member, depth + 1, limit):
                return False
        return True
    if kind is list or kind is tuple:
        if depth > limit:
            return False
        if len(value) > 8 and type(value[0]) is float and _finite_floats(value):
            return True  # a vector: one C-level pass instead of a Python loop
        for member in value:
            kind = type(member)
            if kind is str:
                if "\x00" in member or not (member.isascii() or _clean(member)):
                    return False
            elif kind is int or kind is bool or member is None:
                continue
            elif kind is float:
                if member - member != 0.0:
                    return False
            elif not _is_ok(member, depth + 1, limit):
                return False
        return True
    if kind is str:
        return "\x00" not in value and (value.isascii() or _clean(value))
    if kind is int or kind is bool or value is None:
        return True
    if kind is float:
        return bool(value - value == 0.0)
    return False  # subclasses and foreign types: the slow pass says what they are


def _finite_floats(values: list[Any] | tuple[Any, ...]) -> bool:
    """Whether every member is a finite float (False also when some are not floats: the loop
    then looks at each): fsum is nan or infinite when a member is, and raises when a partial
    sum overflows."""
    if set(map(type, values)) != {float}:
        return False
    try:
        total = math.fsum(values)
    except (OverflowError, ValueError):
        return False
    return total - total == 0.0


def wellformed_problems(value: Any, limit: int) -> list[Detail]:
    """Every ``json``, ``maxDepth`` and ``text`` problem of ``value``, each with its path; ``[]``
    when it is a JSON value nesting at most ``limit`` levels with clean text."""
    if _is_ok(value, 1, limit):
        return []
    return list(_problems(value, limit))


def _problems(value: Any, limit: int) -> Iterator[Detail]:
    stack: list[tuple[Any, int, tuple[str | int, ...]]] = [(value, 1, ())]
    too_deep: list[str] = []
    while stack:
        item, depth, path = stack.pop()
        if isinstance(item, str):
            problem = _text_problem(item)
            if problem:
                yield _detail(path, "text", problem)
        elif isinstance(item, bool | int) or item is None:
            continue
        elif isinstance(item, float):
            if not math.isfinite(item):
                name = "NaN" if math.isnan(item) else ("Infinity" if item > 0 else "-Infinity")
                yield _detail(path, "json", f"{name} is not a JSON number; send a finite number")
        elif isinstance(item, dict | list | tuple):
            if depth > limit:
                too_deep.append(pointer(path))
                continue
            if isinstance(item, dict):
                for key, member in item.items():
                    if not isinstance(key, str):
                        yield _detail(
                            (*path, str(key)),
                            "json",
                            f"object keys must be strings, not {type(key).__name__} {key!r}",
                        )
                        continue
                    problem = _text_problem(key)
                    if problem:
                        yield _detail((*path, key), "text", f"the key {problem}")
                    stack.append((member, depth + 1, (*path, key)))
            else:
                stack.extend(
                    (member, depth + 1, (*path, index)) for index, member in enumerate(item)
                )
        elif isinstance(item, bytes | bytearray):
            yield _detail(path, "json", "bytes are not JSON; decode them to a string first")
        else:
            yield _detail(path, "json", f"a {type(item).__name__} is not a JSON value")
    if too_deep:  # one report, at the first such place in path order (any language agrees)
        message = f"nests deeper than {limit} levels of objects and arrays"
        yield {
            "path": _SURROGATE.sub("\ufffd", min(too_deep)),
            "rule": "maxDepth",
            "message": message,
        }


def _text_problem(text: str) -> str | None:
    if "\x00" in text:
        return "contains U+0000 (NUL), which stores cannot keep as text; remove it"
    found = None if text.isascii() else _SURROGATE.search(text)
    if found is not None:
        return (
            f"contains a lone surrogate (U+{ord(found.group()):04X}), which has no UTF-8 "
            "encoding; send valid Unicode"
        )
    return None


def _detail(path: tuple[str | int, ...], rule: str, message: str) -> Detail:
    # a key's lone surrogate cannot travel in the error either: it is shown as U+FFFD
    where = _SURROGATE.sub("\ufffd", pointer(path))
    return {"path": where, "rule": rule, "message": message}
