"""Spec v0.3's archive operations every store over a memory library shares
(tests/adapters/_document_archive.py), run on the real cognee."""

from __future__ import annotations

from typing import Any

import pytest

from mnemowire.adapters.cognee import CogneeStore
from tests.adapters._document_archive import *  # noqa: F403  (pytest collects the imported tests)
from tests.adapters._document_archive import DocumentStore, LibraryRows


@pytest.fixture
def document_store() -> DocumentStore:
    """Fresh cognee stores, a temporary folder each (the test's Memory facade closes them)."""
    return lambda: CogneeStore(":memory:")


@pytest.fixture
def library_rows() -> LibraryRows:
    """The items of the store's dataset (a dataset of its own: the one agent imported)."""

    async def rows(store: Any, _agent: str) -> int:
        return len(await store._run(store._rows))

    return rows
