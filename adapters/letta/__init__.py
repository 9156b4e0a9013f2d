"""``letta://``: a store over a real Letta server's archival memory (docs/adapters/letta.md)."""

from mnemowire.adapters.letta.store import LettaStore

__all__ = ["LettaStore"]
