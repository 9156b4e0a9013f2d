"""Spec v0.4's forget of a whole scope and its dry run (tests/adapters/_forget_scope.py),
run on this adapter."""

from tests.adapters._forget_scope import *  # noqa: F403  (pytest collects the imported tests)
