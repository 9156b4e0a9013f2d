"""``mem0://``: a store over the real mem0 library (docs/adapters/mem0.md). ``open_memory``
opens mem0 itself as the store configures it (offline, in a folder): for a side-by-side
baseline of mem0's own API (``mnemowire bench adapter``)."""

from mnemowire.adapters.mem0._backend import close_memory, open_memory
from mnemowire.adapters.mem0.store import Mem0Store

__all__ = ["Mem0Store", "close_memory", "open_memory"]
