"""Spec v0.3's archive operations every table-backed store shares (tests/adapters/_archive.py),
run on this adapter."""

from tests.adapters._archive import *  # noqa: F403  (pytest collects the imported tests)
