"""Spec v0.3's archive operations every store over a memory library shares
(tests/adapters/_document_archive.py), run on the real mem0."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mnemowire.adapters.mem0 import Mem0Store
from mnemowire.adapters.mem0._backend import entity
from tests.adapters._document_archive import *  # noqa: F403  (pytest collects the imported tests)
from tests.adapters._document_archive import DocumentStore, LibraryRows


@pytest.fixture
def document_store(tmp_path: Path) -> DocumentStore:
    """Fresh mem0 stores, a folder each (the test's Memory facade closes them)."""
    made = iter(range(1_000))
    return lambda: Mem0Store(tmp_path / f"mem0-{next(made)}")


@pytest.fixture
def library_rows() -> LibraryRows:
    """mem0's own rows of an agent, read by its ``get_all``."""

    async def rows(store: Any, agent: str) -> int:
        def read() -> Any:
            scope = {"agent_id": entity(agent)}
            return store._memory.get_all(filters=scope, top_k=1_000_000, show_expired=True)

        return len((await store._run(read))["results"])

    return rows
