"""A store URL's query options (``sqlite-vec://memory.db?embedder=hash:64``), parsed and
checked the same way by every adapter: a misspelt option is an error naming the closest one."""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Collection, Mapping
from typing import Any
from urllib.parse import parse_qsl

from mnemowire.errors import ConfigError

__all__ = ["OptionParser", "integer", "number", "text", "url_options"]

#: reads one URL option's text; raises ValueError saying what the value must be
OptionParser = Callable[[str], Any]


def text(value: str) -> str:
    """A non-empty string option."""
    if not value:
        raise ValueError("must not be empty")
    return value


def integer(minimum: int | None = None, maximum: int | None = None) -> OptionParser:
    """An integer option, within the bounds given."""

    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise ValueError("must be a whole number") from None
        below = minimum is not None and number < minimum
        if below or (maximum is not None and number > maximum):
            if maximum is None:
                raise ValueError(f"must be at least {minimum}")
            if minimum is None:
                raise ValueError(f"must be at most {maximum}")
            raise ValueError(f"must be between {minimum} and {maximum}")
        return number

    return parse


def number(minimum: float | None = None, *, positive: bool = False) -> OptionParser:
    """A finite number option, at least ``minimum`` (above 0 when ``positive``)."""

    def parse(value: str) -> float:
        try:
            parsed = float(value)
        except ValueError:
            raise ValueError("must be a number") from None
        if not math.isfinite(parsed):
            raise ValueError("must be a finite number")
        if positive and parsed <= 0:
            raise ValueError("must be above 0")
        if minimum is not None and parsed < minimum:
            raise ValueError(f"must be at least {minimum:g}")
        return parsed

    return parse


def url_options(
    url: str,
    query: str,
    known: Mapping[str, OptionParser],
    *,
    passthrough: Collection[str] = (),
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """A store URL's query options, checked: ``known`` options parsed by their parser, the
    ``passthrough`` ones (a driver's own, such as libpq's) returned as they are, in order.

    An option given twice, a value its parser refuses, or a name in neither set is a
    ConfigError naming the option (and the closest known name, for a typo), so a misspelt
    ``embeder=hash:64`` never silently loads the default model instead.
    """
    parsed: dict[str, Any] = {}
    others: list[tuple[str, str]] = []
    seen: set[str] = set()
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name in seen:
            raise ConfigError(f"{_public(url)}: option {name!r} is given twice; keep one")
        seen.add(name)
        if name in known:
            try:
                parsed[name] = known[name](value)
            except ValueError as exc:
                raise ConfigError(f"{_public(url)}: option {name}={value!r} {exc}") from None
        elif name in passthrough:
            others.append((name, value))
        else:
            names = sorted({*known, *passthrough})
            close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            listed = ", ".join(sorted(known))
            raise ConfigError(f"{_public(url)}: unknown option {name!r}{hint} (options: {listed})")
    return parsed, others


def _public(url: str) -> str:
    """The URL without its query or a password, for error messages."""
    base = url.partition("?")[0]
    scheme, sep, rest = base.partition("://")
    login, at, where = rest.rpartition("@")
    if at and ":" in login:
        login = login.split(":", 1)[0] + ":***"
    return f"{scheme}{sep}{login}{at}{where}"
