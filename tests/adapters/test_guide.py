"""The adapter author's guide is a store: the skeleton in docs/adapters/guide.md, taken out of
the page as it is, passes the conformance harness on everything it declares."""

from __future__ import annotations

import contextlib
import importlib.util
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from types import ModuleType

import pytest

from mnemowire.conformance import RunOptions, certify
from mnemowire.embedders import HashEmbedder
from mnemowire.protocol import MemoryStore

GUIDE = Path(__file__).parents[2] / "docs" / "adapters" / "guide.md"
SKELETON = re.compile(r"<!-- skeleton:start -->\n```python\n(.*?)```\n<!-- skeleton:end -->", re.S)


def skeleton(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The guide's code, imported as a module of its own."""
    [code] = SKELETON.findall(GUIDE.read_text(encoding="utf-8"))
    path = tmp_path / "dict_store.py"
    path.write_text(code, encoding="utf-8")
    found = importlib.util.spec_from_file_location("dict_store", path)
    assert found is not None
    assert found.loader is not None
    module = importlib.util.module_from_spec(found)
    monkeypatch.setitem(sys.modules, "dict_store", module)
    found.loader.exec_module(module)
    return module


async def test_the_guides_skeleton_store_is_certified(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = skeleton(tmp_path, monkeypatch)

    @contextlib.asynccontextmanager
    async def opened() -> AsyncIterator[MemoryStore]:
        store = module.DictStore(HashEmbedder(64))
        try:
            yield store
        finally:
            await store.aclose()

    report = await certify(opened, options=RunOptions(seed=1, examples=25, stateful_runs=15))
    statuses = {c["id"]: c["status"] for c in report.data["checks"]}
    failed = {
        c["id"]: c["reason"] for c in report.data["checks"] if c["status"] in ("FAIL", "ERROR")
    }
    assert failed == {}
    # what it leaves out is refused with `unsupported`, not quietly half-served
    assert statuses["store.undeclared-refused"] == "PASS"
    assert statuses["model.stateful"] == "SKIP"  # it declares no governance or archive
    assert statuses["model.base"] == "PASS"
    assert sum(s == "PASS" for s in statuses.values()) >= 30


def test_the_skeleton_opens_by_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = skeleton(tmp_path, monkeypatch)
    store = module.DictStore.from_url("dict://?embedder=hash:16&name=mine")
    assert (store.name, store.embedder.dimension) == ("mine", 16)
    capabilities = store.capabilities()
    assert "governance" not in capabilities.capabilities
    assert capabilities.spec_version == "v0"
