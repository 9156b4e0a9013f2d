"""Spec v0.3's archive operations every table-backed store shares (tests/adapters/_archive.py),
and spec v0.4's history carried by an archive (tests/adapters/_archive_history.py), run on this
adapter."""

from tests.adapters._archive import *  # noqa: F403  (pytest collects the imported tests)
from tests.adapters._archive_history import *  # noqa: F403
