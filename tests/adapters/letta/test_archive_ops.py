"""Spec v0.3's archive operations every store over a memory library shares
(tests/adapters/_document_archive.py), run on the real Letta server the session started."""

from __future__ import annotations

from typing import Any

import pytest

from mnemowire.adapters.letta import LettaStore
from tests.adapters._document_archive import *  # noqa: F403  (pytest collects the imported tests)
from tests.adapters._document_archive import DocumentStore, LibraryRows
from tests.adapters.letta.conftest import server_url


@pytest.fixture
def document_store() -> DocumentStore:
    """Fresh Letta stores, an id map of their own each, on the session's server (the test's
    Memory facade closes them)."""
    return lambda: LettaStore.from_url(f"{server_url()}&ids=:memory:")


@pytest.fixture
def library_rows() -> LibraryRows:
    """The passages of the agent's Letta agent (a name of the store's own)."""

    async def rows(store: Any, agent: str) -> int:
        def read() -> int:
            letta_id = store._agent(agent, create=False)
            return 0 if letta_id is None else len(list(store._pages(letta_id)))

        return int(await store._run(read))

    return rows
