"""mnemowire: the memorywire agent-memory wire format, made real.

>>> from mnemowire import SyncMemory                                    # doctest: +SKIP
>>> with SyncMemory.open() as memory:                                   # doctest: +SKIP
...     memory.remember("Alice likes tea", agent="assistant", user="alice")
...     print(memory.recall("what does Alice drink?", agent="assistant").results[0].content)

Importing the package is cheap: it loads no schema, no database driver and no model; ``Memory``
and ``SyncMemory`` (``mnemowire.layers.memory``) load on first use. The pieces live in
submodules (``mnemowire.spec`` validates messages against the JSON Schemas, ...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mnemowire._version import __version__

if TYPE_CHECKING:
    from mnemowire.layers.memory import Memory, SyncMemory

__all__ = ["Memory", "SyncMemory", "__version__"]

_LAZY = {"Memory": "mnemowire.layers.memory", "SyncMemory": "mnemowire.layers.memory"}


def __getattr__(name: str) -> Any:
    """``Memory`` and ``SyncMemory`` imported when first named, so ``import mnemowire`` stays
    cheap for the CLI's ``--help`` and for code that only wants the models."""
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'mnemowire' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
