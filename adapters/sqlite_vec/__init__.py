"""The embedded default store: sqlite-vec (vectors) and FTS5 (keywords) in one SQLite file."""

from mnemowire.adapters.sqlite_vec.store import CAPABILITIES, SqliteVecStore, searchable_text

__all__ = ["CAPABILITIES", "SqliteVecStore", "searchable_text"]
