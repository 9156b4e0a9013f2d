"""Spec v0.4's history (tests/adapters/_history.py), run on this adapter."""

from tests.adapters._history import *  # noqa: F403  (pytest collects the imported tests)
