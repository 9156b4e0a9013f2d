"""The embedded default store: sqlite-vec (vectors) and FTS5 (keywords) in one SQLite file."""

from mnemowire.adapters._common import searchable_text
from mnemowire.adapters.sqlite_vec.store import CAPABILITIES, SqliteVecStore

__all__ = ["CAPABILITIES", "SqliteVecStore", "searchable_text"]
