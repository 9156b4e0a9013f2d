"""Which SQLite to run on: one that can load the sqlite-vec extension, and says which it is.

Many Pythons (this project's CI machine, macOS system Python, some distro builds) ship a
``sqlite3`` that cannot load extensions. The standard module is used when it can; otherwise the
drop-in ``sqlean`` (sqlean.py, wheels for Linux, macOS and Windows) and then ``pysqlite3``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from mnemowire.errors import ConfigError

__all__ = ["Driver", "connect", "find_driver"]

_CANDIDATES = ("sqlite3", "sqlean", "pysqlite3.dbapi2")


@dataclass(frozen=True)
class Driver:
    """A DB-API module able to load extensions, and its name for health reports."""

    module: ModuleType
    name: str

    @property
    def sqlite_version(self) -> str:
        return str(self.module.sqlite_version)


def find_driver(preferred: str | None = None) -> Driver:
    """The first SQLite module here that can load extensions (``preferred`` first, if given)."""
    order = [preferred] if preferred else []
    order += [c for c in _CANDIDATES if c != preferred]
    tried = []
    for name in order:
        try:
            module = importlib.import_module(name)
        except ImportError:
            tried.append(f"{name} (not installed)")
            continue
        if hasattr(module.Connection, "enable_load_extension"):
            return Driver(module, name.split(".")[0])
        tried.append(f"{name} (cannot load extensions)")
    raise ConfigError(
        "no SQLite here can load the sqlite-vec extension; tried "
        + ", ".join(tried)
        + ". Install one: pip install sqlean.py"
    )


def connect(driver: Driver, path: str) -> Any:
    """Open ``path`` with sqlite-vec loaded; autocommit mode, transactions are explicit."""
    import sqlite_vec

    connection = driver.module.connect(path, isolation_level=None, check_same_thread=False)
    connection.enable_load_extension(True)
    sqlite_vec.load(connection)
    connection.enable_load_extension(False)
    return connection
