"""Spec v0.3's archive operations every store over a memory library shares
(tests/adapters/_document_archive.py), run on the real mem0."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemowire.adapters.mem0 import Mem0Store
from tests.adapters._document_archive import *  # noqa: F403  (pytest collects the imported tests)
from tests.adapters._document_archive import DocumentStore


@pytest.fixture
def document_store(tmp_path: Path) -> DocumentStore:
    """Fresh mem0 stores, a folder each (the test's Memory facade closes them)."""
    made = iter(range(1_000))
    return lambda: Mem0Store(tmp_path / f"mem0-{next(made)}")
