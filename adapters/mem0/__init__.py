"""``mem0://``: a store over the real mem0 library (docs/adapters/mem0.md)."""

from mnemowire.adapters.mem0.store import Mem0Store

__all__ = ["Mem0Store"]
