"""Stores by URL scheme: ``sqlite-vec://...``, ``pgvector://...`` and any third party's.

Adapters register through the ``mnemowire.stores`` entry-point group, mnemowire's own included,
so a third-party adapter plugs in by declaring one entry point, without touching mnemowire::

    [project.entry-points."mnemowire.stores"]
    mystore = "my_package.store:MyStore.from_url"

The entry point names a callable ``factory(url, **options) -> MemoryStore``. The runtime never
imports an adapter module by name: it only follows entry points (and explicit registrations).
"""

from __future__ import annotations

import difflib
import math
import os
from collections.abc import Callable, Collection, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from mnemowire.errors import ConfigError
from mnemowire.protocol import MemoryStore

__all__ = [
    "ENTRY_POINT_GROUP",
    "default_store_url",
    "integer",
    "number",
    "open_store",
    "register",
    "schemes",
    "text",
    "url_options",
]

ENTRY_POINT_GROUP = "mnemowire.stores"
Factory = Callable[..., MemoryStore]
_registered: dict[str, Factory] = {}


def register(scheme: str, factory: Factory) -> None:
    """Register a store factory for ``scheme://`` URLs in this process (tests, embedding apps)."""
    _registered[scheme] = factory


def schemes() -> list[str]:
    """Every URL scheme a store can be opened with here."""
    names = {ep.name for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    return sorted(names | set(_registered))


def open_store(url: str, **options: Any) -> MemoryStore:
    """Open the store a URL names; options go to its factory (e.g. ``embedder=...``)."""
    scheme, sep, _ = url.partition("://")
    if not sep:
        raise ConfigError(
            f"{url!r} is not a store URL; write scheme://location, e.g. sqlite-vec://memory.db "
            f"(schemes here: {', '.join(schemes())})"
        )
    factory = _registered.get(scheme) or _entry_point(scheme)
    return factory(url, **options)


def _entry_point(scheme: str) -> Factory:
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.name == scheme:
            try:
                factory: Factory = entry.load()
            except ImportError as exc:
                extra = scheme.split("-", maxsplit=1)[0]
                raise ConfigError(
                    f"the {scheme!r} store needs packages that are not installed ({exc}); "
                    f"install its extra, e.g. pip install 'mnemowire[{extra}]'"
                ) from exc
            return factory
    raise ConfigError(
        f"no store is registered for {scheme}://; known schemes: {', '.join(schemes())}"
    )


def default_store_url() -> str:
    """``$MNEMOWIRE_STORE``, or a sqlite-vec file in the user's data directory."""
    configured = os.environ.get("MNEMOWIRE_STORE")
    if configured:
        return configured
    import platformdirs

    folder = Path(platformdirs.user_data_dir("mnemowire"))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite-vec://{folder / 'memory.db'}"


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
        if (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
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
