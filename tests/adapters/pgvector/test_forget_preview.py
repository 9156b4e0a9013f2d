"""Spec v0.4's forget dry run (tests/adapters/_forget_preview.py), run on this adapter."""

from tests.adapters._forget_preview import *  # noqa: F403  (pytest collects the imported tests)
