"""Spec v0.1's record operations (tests/adapters/_browse.py), run on this adapter."""

from tests.adapters._browse import *  # noqa: F403  (pytest collects the imported tests)
