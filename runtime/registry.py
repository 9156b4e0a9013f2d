"""Stores by URL scheme: ``sqlite-vec://...``, ``pgvector://...`` and any third party's.

Adapters register through the ``mnemowire.stores`` entry-point group, mnemowire's own included,
so a third-party adapter plugs in by declaring one entry point, without touching mnemowire::

    [project.entry-points."mnemowire.stores"]
    mystore = "my_package.store:MyStore.from_url"

The entry point names a callable ``factory(url, **options) -> MemoryStore``. The runtime never
imports an adapter module by name: it only follows entry points (and explicit registrations).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from mnemowire.errors import ConfigError
from mnemowire.protocol import MemoryStore

__all__ = ["ENTRY_POINT_GROUP", "default_store_url", "open_store", "register", "schemes"]

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
