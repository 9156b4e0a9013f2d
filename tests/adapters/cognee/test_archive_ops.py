"""Spec v0.3's archive operations every store over a memory library shares
(tests/adapters/_document_archive.py), run on the real cognee."""

from __future__ import annotations

import pytest

from mnemowire.adapters.cognee import CogneeStore
from tests.adapters._document_archive import *  # noqa: F403  (pytest collects the imported tests)
from tests.adapters._document_archive import DocumentStore


@pytest.fixture
def document_store() -> DocumentStore:
    """Fresh cognee stores, a temporary folder each (the test's Memory facade closes them)."""
    return lambda: CogneeStore(":memory:")
