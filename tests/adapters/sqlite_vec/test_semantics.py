"""The behaviour every store shares (tests/adapters/_semantics.py), run on this adapter."""

from tests.adapters._semantics import *  # noqa: F403  (pytest collects the imported tests)
