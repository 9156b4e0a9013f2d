"""Spec v0.3's archive operations every store over a memory library shares
(tests/adapters/_document_archive.py), run on the real Letta server the session started."""

from __future__ import annotations

import pytest

from mnemowire.adapters.letta import LettaStore
from tests.adapters._document_archive import *  # noqa: F403  (pytest collects the imported tests)
from tests.adapters._document_archive import DocumentStore
from tests.adapters.letta.conftest import server_url


@pytest.fixture
def document_store() -> DocumentStore:
    """Fresh Letta stores, an id map of their own each, on the session's server (the test's
    Memory facade closes them)."""
    return lambda: LettaStore.from_url(f"{server_url()}&ids=:memory:")
