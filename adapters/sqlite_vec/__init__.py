"""The embedded default store: sqlite-vec (vectors) and a rare-word table (keywords) in one
SQLite file."""

from mnemowire.adapters.sqlite_vec.store import CAPABILITIES, IMPLEMENTS, SqliteVecStore

__all__ = ["CAPABILITIES", "IMPLEMENTS", "SqliteVecStore"]
