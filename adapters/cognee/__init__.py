"""``cognee://``: a store over the real Cognee library (docs/adapters/cognee.md). ``COGNEE`` is
the process's cognee as the store configures it (offline, one folder, one thread): for a
side-by-side baseline of cognee's own API (``mnemowire bench adapter``)."""

from mnemowire.adapters.cognee._backend import COGNEE, offline_tasks
from mnemowire.adapters.cognee.store import CogneeStore

__all__ = ["COGNEE", "CogneeStore", "offline_tasks"]
