"""A record's life (tests/adapters/_records.py), run on this adapter."""

from tests.adapters._records import *  # noqa: F403  (pytest collects the imported tests)
